import Testing
@testable import DSP

@Suite struct PowerScaleTests {
    let scale = PowerScale(bottomDB: -100, topDB: 0, rows: 10)!

    @Test func mapsLevelsToRowsWithClamping() {
        #expect(scale.row(for: 0) == 0)
        #expect(scale.row(for: -5) == 0)
        #expect(scale.row(for: -10.5) == 1)
        #expect(scale.row(for: -99) == 9)
        #expect(scale.row(for: -100) == 9)
        #expect(scale.row(for: 30) == 0)
        #expect(scale.row(for: -300) == 9)
        #expect(scale.row(for: .infinity) == 0)
        #expect(scale.row(for: -.infinity) == 9)
        #expect(scale.row(for: .nan) == nil)
    }

    @Test func inverseGivesRowCentresAndEdges() {
        #expect(scale.centerDB(ofRow: 0) == -5)
        #expect(scale.centerDB(ofRow: 9) == -95)
        #expect(scale.topEdgeDB(ofRow: 10) == -100)
        for row in 0..<scale.rows { #expect(scale.row(for: scale.centerDB(ofRow: row)) == row) }
    }

    @Test func rejectsBadRanges() {
        #expect(PowerScale(bottomDB: 0, topDB: 0, rows: 5) == nil)
        #expect(PowerScale(bottomDB: 0, topDB: -10, rows: 5) == nil)
        #expect(PowerScale(bottomDB: -10, topDB: 0, rows: 0) == nil)
        #expect(PowerScale(bottomDB: .nan, topDB: 0, rows: 5) == nil)
    }
}
