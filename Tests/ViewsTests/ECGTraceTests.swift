import Testing
@testable import Views

@Suite struct ECGTraceRasterizerTests {
    /// (top, bottom) per column; nil where empty
    private func spans(_ values: [Float], columns: Int, rows: Int = 20, baseline: Double = 10,
                       dotsPerMillivolt: Double = 5) -> [ClosedRange<Int>?] {
        var top = [Int32](repeating: 0, count: columns), bottom = top
        values.withUnsafeBufferPointer { v in
            top.withUnsafeMutableBufferPointer { t in
                bottom.withUnsafeMutableBufferPointer { b in
                    ECGTraceRasterizer.rasterize(v, rows: rows, baselineRow: baseline, dotsPerMillivolt: dotsPerMillivolt,
                                                 top: t, bottom: b)
                }
            }
        }
        return zip(top, bottom).map { $0 == ECGTraceRasterizer.empty ? nil : Int($0)...Int($1) }
    }

    @Test func aFlatLineSitsOnTheBaseline() {
        #expect(spans([Float](repeating: 0, count: 100), columns: 10) == Array(repeating: 10...10, count: 10))
    }

    @Test func aStepIsJoinedInTheColumnWhereItHappens() {
        let step = [Float](repeating: 0, count: 50) + [Float](repeating: 1, count: 50)
        let result = spans(step, columns: 10)
        #expect(result[0..<5].allSatisfy { $0 == 10...10 })
        #expect(result[5] == 5...10)
        #expect(result[6...].allSatisfy { $0 == 5...5 })
    }

    @Test func nanLeavesColumnsEmptyAndIsNotJoinedAcross() {
        var values = [Float](repeating: 0, count: 100)
        for i in 40..<60 { values[i] = .nan }
        for i in 60..<100 { values[i] = -1 }
        let result = spans(values, columns: 10)
        #expect(result[4] == nil && result[5] == nil)
        #expect(result[6] == 15...15) // no join back to the baseline before the gap
    }

    @Test func fewSamplesAreJoinedByLinesAcrossEmptyColumns() {
        // three samples over ten columns: x = 0, 3, 6
        let result = spans([0, 2, 0], columns: 10)
        #expect(result[0] == 10...10)
        #expect(result[1] == 7...10)
        #expect(result[3] == 0...4)
        #expect(result[0...6].allSatisfy { $0 != nil })
        #expect(result[7...].allSatisfy { $0 == nil })
    }

    @Test func valuesOffTheBandAreClampedToItsEdges() {
        #expect(spans([100, 100], columns: 1) == [0...0])
        #expect(spans([-100], columns: 1) == [19...19])
        #expect(spans([.infinity], columns: 1) == [nil])
    }
}

@Suite struct ECGPaperScaleTests {
    @Test func majorBoxesAreSquareInCellsAndGainScalesOnlyTheTrace() {
        let scale = ECGPaperScale(traceColumns: 100, stripSeconds: 5, gainMillimetresPerMillivolt: 10)
        #expect(scale.columnsPerSecond == 20)
        // 0.2 s = 4 columns wide, 0.5 mV = 2 rows tall: a cell is twice as tall as wide
        #expect(0.2 * scale.columnsPerSecond == 2 * 0.5 * scale.paperRowsPerMillivolt)
        #expect(scale.traceDotsPerMillivolt == 16)
        let timeLines = scale.timeLines, voltageLines = scale.voltageLines
        #expect(timeLines.fine == 4 && timeLines.bold == 20)        // 0.04 s is too close; 0.2 s and 1 s
        #expect(voltageLines.fine == 2 && voltageLines.bold == 10)  // 0.5 mV and 2.5 mV
        #expect(scale.calibrationColumns == 6)
        let doubled = ECGPaperScale(traceColumns: 100, stripSeconds: 5, gainMillimetresPerMillivolt: 20)
        #expect(doubled.paperRowsPerMillivolt == scale.paperRowsPerMillivolt)
        #expect(doubled.traceDotsPerMillivolt == 32)
        let wide = ECGPaperScale(traceColumns: 300, stripSeconds: 2.5, gainMillimetresPerMillivolt: 10)
        #expect(wide.timeLines.fine == 0.04 * 120 && wide.timeLines.bold == 0.2 * 120)
    }
}
