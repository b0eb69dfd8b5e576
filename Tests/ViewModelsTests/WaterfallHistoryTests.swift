import Signals
import Testing
@testable import ViewModels

/// A frame of `bins` bins of 1 kHz from 100 MHz at `time`, every bin `level`
/// except those in `peaks`.
func flatFrame(time: Double, level: Float = -80, bins: Int = 8, peaks: [Int: Float] = [:]) -> SpectrumFrame {
    var power = [Float](repeating: level, count: bins)
    for (bin, value) in peaks { power[bin] = value }
    return SpectrumFrame(startHz: 100e6, binWidthHz: 1e3, timestamp: time, powerDB: power)
}

@Suite struct WaterfallHistoryTests {
    @Test func twoRowsPerSecondAndAOneFrameBurstIsKept() {
        let history = WaterfallHistory(capacity: 16, maxBinsPerRow: 8)
        // 30 frames/s for 2 s starting on a whole second; one frame at 0.4 s carries a burst in bin 3
        let start = 1000.0
        for i in 0..<60 {
            let t = start + Double(i) / 30
            history.add(flatFrame(time: t, peaks: i == 12 ? [3: -10] : [:]))
        }
        #expect(history.count == 4)
        for (k, sequence) in (history.startSequence..<history.endSequence).enumerated() {
            #expect(history.info(sequence).timestamp == start + Double(k) * 0.5)
        }
        let firstRow = Array(history.bins(history.startSequence))
        #expect(firstRow[3] == -10)
        #expect(firstRow[2] == -80)
        #expect(Array(history.bins(history.startSequence + 1))[3] == -80)
    }

    @Test func ringAtEveryWrapPosition() {
        let capacity = 5
        for extra in 0...(2 * capacity) {
            let history = WaterfallHistory(capacity: capacity, maxBinsPerRow: 4)
            let rows = capacity + extra
            for row in 0..<rows {
                history.add(flatFrame(time: Double(row) * 0.5, level: Float(row), bins: 4))
            }
            #expect(history.count == capacity)
            #expect(history.endSequence == rows)
            #expect(history.startSequence == rows - capacity)
            for sequence in history.startSequence..<history.endSequence {
                #expect(Array(history.bins(sequence)) == [Float](repeating: Float(sequence), count: 4),
                        "rows \(rows), sequence \(sequence)")
                #expect(history.info(sequence).timestamp == Double(sequence) * 0.5)
            }
            // binary search over the wrapped ring
            let middle = history.startSequence + capacity / 2
            #expect(history.firstSequence(startingAtOrAfter: Double(middle) * 0.5) == middle)
            #expect(history.sequence(covering: Double(middle) * 0.5 + 0.3) == middle)
            #expect(history.sequence(covering: Double(rows) * 0.5 + 1) == nil)
        }
    }

    @Test func wideFramesAreReducedByMax() {
        let history = WaterfallHistory(capacity: 4, maxBinsPerRow: 4)
        history.add(flatFrame(time: 0, bins: 10, peaks: [5: -3, 9: -7]))
        let info = history.info(0)
        #expect(info.binCount == 4)          // 10 bins in groups of 3
        #expect(info.binWidthHz == 3e3)
        #expect(Array(history.bins(0)) == [-80, -3, -80, -7])
    }

    @Test func aNewBandStartsANewRowAndAJumpBackStartsAgain() {
        let history = WaterfallHistory(capacity: 8, maxBinsPerRow: 8)
        history.add(flatFrame(time: 10.1))
        history.add(SpectrumFrame(startHz: 200e6, binWidthHz: 1e3, timestamp: 10.2, powerDB: [1, 2]))
        #expect(history.count == 2)
        #expect(history.info(1).startHz == 200e6)
        history.add(flatFrame(time: 3))
        #expect(history.count == 1)
        #expect(history.info(history.startSequence).timestamp == 3)
    }

    @Test func thirtyRowsPerSecondGiveEachFrameOfAThirtyFrameSourceItsOwnRow() {
        let history = WaterfallHistory(rowsPerSecond: 30, capacity: 128, maxBinsPerRow: 8)
        #expect(history.rowsPerSecond == 30 && abs(history.rowSeconds - 1.0 / 30) < 1e-12)
        // 30 frames/s for 2 s, each with its own level in bin 2 (the frame number)
        let start = 1000.0
        for i in 0..<60 {
            history.add(flatFrame(time: start + Double(i) / 30, peaks: [2: Float(i) - 70]))
        }
        #expect(history.count == 60, "\(history.count)")
        for (k, sequence) in (history.startSequence..<history.endSequence).enumerated() {
            #expect(abs(history.info(sequence).timestamp - (start + Double(k) / 30)) < 1e-9)
            #expect(history.bins(sequence)[2] == Float(k) - 70, "row \(k)")
        }
    }

    @Test func eachFastRowIsTheMaxOfEveryFrameInItsSlot() {
        // 90 frames/s with random levels at 30 rows/s: three frames a row, none unaccounted for
        var random = SeededRandom(seed: 33)
        let history = WaterfallHistory(rowsPerSecond: 30, capacity: 128, maxBinsPerRow: 4)
        var expected: [[Float]] = []
        let start = 500.0
        for i in 0..<180 {
            let levels = (0..<4).map { _ in Float(Int.random(in: -100 ... -20, using: &random)) }
            // a little jitter inside the slot, as a real source's timestamps have
            let jitter = Double.random(in: 0..<0.002, using: &random)
            history.add(SpectrumFrame(startHz: 100e6, binWidthHz: 1e3, timestamp: start + Double(i) / 90 + jitter,
                                      powerDB: levels))
            if i % 3 == 0 { expected.append(levels) } else {
                expected[expected.count - 1] = zip(expected[expected.count - 1], levels).map { max($0, $1) }
            }
        }
        #expect(history.count == 60, "\(history.count)")
        for (k, sequence) in (history.startSequence..<history.endSequence).enumerated() where k < expected.count {
            #expect(Array(history.bins(sequence)) == expected[k], "row \(k)")
        }
    }

    @Test func theRowRateIsClampedAndTheCapacityBoundedInMemory() {
        #expect(WaterfallHistory(rowsPerSecond: 100).rowsPerSecond == 30)
        #expect(WaterfallHistory(rowsPerSecond: 0.1, capacity: 4).rowsPerSecond == 0.5)
        #expect(WaterfallHistory(rowsPerSecond: .nan, capacity: 4).rowsPerSecond == 2)
        // a slow rate keeps at least the default rows; a fast one as many minutes as the budget allows
        #expect(WaterfallHistory.capacity(rowsPerSecond: 0.5) == WaterfallHistory.defaultCapacity)
        let fast = WaterfallHistory.capacity(rowsPerSecond: 30)
        #expect(fast * WaterfallHistory.defaultMaxBinsPerRow <= WaterfallHistory.maxStoredValues)
        #expect(Double(fast) / 30 >= 180, "\(fast) rows")   // at least 3 minutes at 30 rows/s
        #expect(WaterfallHistory.capacity(rowsPerSecond: 4) == 3072)   // 12.8 min at 4 rows/s
    }

    @Test func scrollingBackAtThirtyRowsPerSecondUsesTheirPeriod() {
        // 40 s of a 30 frames/s source at 30 rows/s; the 5 s period over 30 pixel rows (6 rows a pixel)
        let model = WaterfallModel(history: WaterfallHistory(rowsPerSecond: 30, capacity: 2000, maxBinsPerRow: 4),
                                   periodIndex: 0)
        for i in 0..<1200 { model.add(flatFrame(time: Double(i) / 30, level: Float(i), bins: 4)) }
        var live = [WaterfallRowSpan](repeating: .empty, count: 30)
        live.withUnsafeMutableBufferPointer { model.mapRows(now: 40, into: $0) }
        #expect(live[0].end - live[0].first == 5 || live[0].end - live[0].first == 6, "\(live[0])")
        for y in 1..<30 { #expect(live[y].end == live[y - 1].first) }
        model.scroll(bySeconds: 10, now: 40)
        var back = [WaterfallRowSpan](repeating: .empty, count: 30)
        back.withUnsafeMutableBufferPointer { model.mapRows(now: 40, into: $0) }
        // 10 s back = 300 rows of 1/30 s
        #expect(back[0].first == live[0].first - 300 && back[29].first == live[29].first - 300, "\(back[0]) \(live[0])")
        #expect(model.secondsBeforeNow(atPixelRow: 0, pixelRows: 30) == 10)
    }

    @Test func badFramesAreIgnored() {
        let history = WaterfallHistory(capacity: 4, maxBinsPerRow: 4)
        history.add(SpectrumFrame(startHz: 0, binWidthHz: .nan, timestamp: 0, powerDB: [1]))
        history.add(SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: .infinity, powerDB: [1]))
        history.add(SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: []))
        #expect(history.count == 0)
    }
}

@Suite struct WaterfallModelTests {
    /// A model with one row per half second from t = 0 to `seconds`, each row's level = its sequence.
    func filledModel(seconds: Double, periodIndex: Int = 0) -> WaterfallModel {
        let model = WaterfallModel(history: WaterfallHistory(capacity: 4000, maxBinsPerRow: 4), periodIndex: periodIndex)
        var t = 0.0
        var row = 0
        while t < seconds {
            model.add(flatFrame(time: t + 0.1, level: Float(row), bins: 4))
            t += 0.5
            row += 1
        }
        return model
    }

    func spans(_ model: WaterfallModel, now: Double, rows: Int) -> [WaterfallRowSpan] {
        var result = [WaterfallRowSpan](repeating: .empty, count: rows)
        result.withUnsafeMutableBufferPointer { model.mapRows(now: now, into: $0) }
        return result
    }

    @Test func thickRowsCoverSeveralPixelsNewestOnTop() {
        // 5 s period over 20 pixel rows: 0.25 s per pixel, each half-second row 2 pixels high
        let model = filledModel(seconds: 100)
        let map = spans(model, now: 100, rows: 20)
        // top pixel [99.75, 100): the row starting at 99.5 (sequence 199)
        #expect(map[0] == WaterfallRowSpan(first: 199, end: 200))
        #expect(map[1] == WaterfallRowSpan(first: 199, end: 200))
        #expect(map[2] == WaterfallRowSpan(first: 198, end: 199))
        #expect(map[19] == WaterfallRowSpan(first: 190, end: 191))
    }

    @Test func thinRowsShareAPixelCombinedByMax() {
        // 600 s over 100 pixels: 6 s per pixel = 12 rows per pixel
        let model = filledModel(seconds: 720, periodIndex: WaterfallModel.periods.count - 1)
        let map = spans(model, now: 720, rows: 100)
        #expect(map[0].end - map[0].first == 12)
        for y in 1..<100 { #expect(map[y].end == map[y - 1].first) }
    }

    @Test func relativeOffsetKeepsThePictureMovingAsItLookedThen() {
        let model = filledModel(seconds: 200)
        let now = 150.0
        model.scroll(bySeconds: 10, now: now)
        #expect(model.offsetSeconds == 10)
        let scrolled = spans(model, now: now, rows: 20)
        // scrolled back 10 s at t = 150 shows what live showed at t = 140
        model.scrollToNow()
        #expect(spans(model, now: now - 10, rows: 20) == scrolled)
        model.scroll(bySeconds: 10, now: now)
        // time advances 3 s: the view moves with it (3 s = 6 rows later)
        let later = spans(model, now: now + 3, rows: 20)
        #expect(later != scrolled)
        #expect(later[0].first == scrolled[0].first + 6)
        model.scrollToNow()
        #expect(spans(model, now: now - 7, rows: 20) == later)
    }

    @Test func scrollingStopsAtTheOldestRowAndAtNow() {
        let model = filledModel(seconds: 60)    // rows from 0 to 59.5 s; period 5 s
        model.scroll(bySeconds: 1000, now: 60)
        #expect(model.offsetSeconds == 55)      // oldest row at the bottom
        model.scroll(bySeconds: -1000, now: 60)
        #expect(model.offsetSeconds == 0)
        let empty = WaterfallModel(history: WaterfallHistory(capacity: 4, maxBinsPerRow: 4))
        empty.scroll(bySeconds: 10, now: 5)
        #expect(empty.offsetSeconds == 0)
    }

    @Test func periodsStepThroughTheGeometricList() {
        let model = WaterfallModel()
        #expect(model.periodSeconds == 30)
        model.stepPeriod(by: 1)
        #expect(model.periodSeconds == 45)
        model.stepPeriod(by: 100)
        #expect(model.periodSeconds == 600)
        model.stepPeriod(by: -100)
        #expect(model.periodSeconds == 5)
        #expect(WaterfallModel.periods == [5, 10, 20, 30, 45, 60, 120, 300, 600])
        // at least 12.8 minutes of history at 2 rows/s
        #expect(Double(WaterfallHistory.defaultCapacity) / WaterfallHistory.defaultRowsPerSecond >= 12.8 * 60)
        #expect(WaterfallHistory().rowsPerSecond == 2 && WaterfallHistory().capacity == WaterfallHistory.defaultCapacity)
    }

    @Test func gapsShowNothing() {
        let model = WaterfallModel(history: WaterfallHistory(capacity: 16, maxBinsPerRow: 4), periodIndex: 0)
        model.add(flatFrame(time: 0.1, bins: 4))
        let map = spans(model, now: 5, rows: 10)
        #expect(map[0].isEmpty)
        #expect(!map[9].isEmpty)
    }

    @Test func aSlowSourceFillsTheTimeToItsNextRowButAnOutageStaysAGap() {
        // one frame a second (rtl_power -i 1), then nothing for 15 s, then one more
        let history = WaterfallHistory(capacity: 16, maxBinsPerRow: 4)
        for second in [0.0, 1, 2, 3, 18] { history.add(flatFrame(time: second, bins: 4)) }
        let first = history.startSequence
        #expect(history.sequence(covering: 1.7) == first + 1)   // held: no stripes between rows
        #expect(history.sequence(covering: 3.2) == first + 3)   // the row itself
        #expect(history.sequence(covering: 4.4) == first + 3)   // held up to 1.5 × its 1 s cadence
        #expect(history.sequence(covering: 4.6) == nil)         // then the outage shows
        #expect(history.sequence(covering: 10) == nil)
        #expect(history.sequence(covering: 18.3) == first + 4)
        #expect(history.sequence(covering: 27.5) == first + 4)  // its cadence is 15 s: held, but at most 10 s
        #expect(history.sequence(covering: 28.5) == nil)
    }
}
