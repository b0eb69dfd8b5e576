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

@Suite struct DisplayRangeTests {
    @Test func gainStepsMoveTheReferenceByOneDivision() {
        var range = DisplayRange(referenceLevelDB: -20, decibelsPerDivision: 10, divisions: 10)
        #expect(range.bottomDB == -120)
        range.increaseGain()
        #expect(range.referenceLevelDB == -30)
        range.decreaseGain()
        range.decreaseGain()
        #expect(range.referenceLevelDB == -10)
        let scale = range.scale(rows: 40)!
        #expect(scale.topDB == -10 && scale.bottomDB == -110 && scale.rows == 40)
    }

    @Test func scaleStepsAndClamping() {
        var range = DisplayRange(referenceLevelDB: 500, decibelsPerDivision: 7)
        #expect(range.referenceLevelDB == DisplayRange.referenceLimits.upperBound)
        #expect(range.decibelsPerDivision == 5)
        range.finerScale(); range.finerScale(); range.finerScale()
        #expect(range.decibelsPerDivision == 1)
        for _ in 0..<10 { range.coarserScale() }
        #expect(range.decibelsPerDivision == 20)
        for _ in 0..<100 { range.increaseGain() }
        #expect(range.referenceLevelDB == DisplayRange.referenceLimits.lowerBound)
        #expect(DisplayRange(referenceLevelDB: .nan).referenceLevelDB == 0)
    }
}
