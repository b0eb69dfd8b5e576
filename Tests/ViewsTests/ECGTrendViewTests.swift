import Terminal
import Testing
import ViewModels
@testable import Views

@Suite struct ECGTrendViewTests {
    static func trend(seconds: Int, target: ClosedRange<Double>? = 60...100) -> ECGHeartRateTrend {
        var trend = ECGHeartRateTrend(target: target)
        for second in 0..<seconds {
            trend.append(measured: second < 3 ? nil : 70 + Double(second % 20), reference: 75)
        }
        return trend
    }

    @Test func drawsTheMeasuredLineTheReferenceAndTheTarget() {
        var buffer = Buffer(width: 60, height: 14)
        let view = ECGTrendView()
        view.render(Self.trend(seconds: 90), in: Rect(x: 0, y: 0, width: 60, height: 14), into: &buffer)
        let lines = buffer.lines
        // second 89: measured 70 + 89 % 20 = 79, reference 75; each name in its trace's colour
        #expect(lines[0].hasPrefix("HR trend 1 min │ measured 79 │ annotated 75 │ target 60–100"), "\(lines[0])")
        let legendColour = { (word: String) in
            buffer.cell(x: lines[0].distance(from: lines[0].startIndex, to: lines[0].range(of: word)!.lowerBound), y: 0)?.foreground }
        #expect(legendColour("measured") == ECGTrendView.measuredColor)
        #expect(legendColour("annotated") == ECGTrendView.referenceColor)
        #expect(legendColour("target") == ECGTrendView.targetColor)
        #expect(lines.contains { $0.hasPrefix("80 ") || $0.hasPrefix("80") })
        // 112 dot columns: seconds 0…89 are in columns 0…44 of the plot, nothing beyond the sweep
        let braille = { (column: Int) in (1..<14).contains { row in
            buffer.cell(x: column, y: row).map { $0.scalar.value > 0x2800 && $0.scalar.value <= 0x28FF } ?? false } }
        #expect(braille(4) && braille(4 + 44))
        #expect(!braille(4 + 47))
        // the reference colour is drawn (75 beats/min) as is the measured one
        let colours = Set((1..<14).flatMap { row in (4..<60).compactMap { buffer.cell(x: $0, y: row)?.foreground } })
        #expect(colours.contains(ECGTrendView.referenceColor) && colours.contains(ECGTrendView.measuredColor))
    }

    /// A break in the stream (a sensor's dropped link) is a dotted line across the plot before the
    /// second after it, and the legend says how long the last one was.
    @Test func aBreakInTheStreamIsADottedLineAndTheLegendSaysHowLong() {
        var trend = ECGHeartRateTrend(target: nil)
        for _ in 0..<20 { trend.append(measured: 72, reference: nil) }
        trend.markGap(lasting: 3.14)
        for _ in 0..<20 { trend.append(measured: 74, reference: nil) }
        #expect(trend.gap(before: 20)?.seconds == 3.14 && trend.gap(before: 19) == nil)
        var buffer = Buffer(width: 60, height: 14)
        ECGTrendView().render(trend, in: Rect(x: 0, y: 0, width: 60, height: 14), into: &buffer)
        let legend = buffer.lines[0]
        #expect(legend.hasSuffix("gap 3.1 s") || legend.contains("│ gap 3.1 s"), "\(legend)")
        let at = legend.distance(from: legend.startIndex, to: legend.range(of: "gap 3.1")!.lowerBound)
        #expect(buffer.cell(x: at, y: 0)?.foreground == ECGTrendView.gapColor)
        // second 20 is dot column 20, in text column 4 + 10: grey through the plot's height, and only there
        let grey = { (column: Int) in (1..<14).filter { buffer.cell(x: column, y: $0)?.foreground == ECGTrendView.gapColor }.count }
        #expect(grey(14) >= 10, "\(buffer.lines.joined(separator: "\n"))")
        #expect((4..<60).filter { $0 != 14 }.allSatisfy { grey($0) == 0 })
        // a trend that never broke says nothing of gaps
        var whole = Buffer(width: 60, height: 14)
        ECGTrendView().render(Self.trend(seconds: 40, target: nil), in: Rect(x: 0, y: 0, width: 60, height: 14), into: &whole)
        #expect(!whole.lines[0].contains("gap"))
    }

    /// Seconds in AF draw the rate in the AF colour, and the legend says the AF burden once there was AF.
    @Test func atrialFibrillationColoursItsSecondsAndTheLegendSaysTheBurden() {
        var trend = ECGHeartRateTrend()
        for second in 0..<60 {
            trend.append(measured: 80, reference: nil, inAF: second >= 30, afBurden: Double(max(0, second - 29)) / Double(second + 1))
        }
        var buffer = Buffer(width: 60, height: 14)
        ECGTrendView().render(trend, in: Rect(x: 0, y: 0, width: 60, height: 14), into: &buffer)
        let legend = buffer.lines[0]
        // 30 of 60 seconds in AF
        #expect(legend.hasPrefix("HR trend 1 min │ measured 80 │ AF burden 50 %"), "\(legend)")
        // seconds 0…29 are dot columns 0…29 (cells 4…18), 30…59 cells 19…33
        let colour = { (column: Int) in (1..<14).compactMap { buffer.cell(x: column, y: $0)?.foreground }
            .first { $0 == ECGTrendView.afColor || $0 == ECGTrendView.measuredColor } }
        #expect(colour(4 + 5) == ECGTrendView.measuredColor)
        #expect(colour(4 + 25) == ECGTrendView.afColor)
        // without AF no burden is shown
        var plain = Buffer(width: 60, height: 14)
        ECGTrendView().render(Self.trend(seconds: 60), in: Rect(x: 0, y: 0, width: 60, height: 14), into: &plain)
        #expect(!plain.lines[0].contains("AF burden"))
    }

    /// Drawing second by second gives the same screen as drawing all at once,
    /// also once the sweep has wrapped past its start.
    @Test func incrementalDrawingEqualsAFullDraw() {
        let rect = Rect(x: 0, y: 0, width: 40, height: 10)
        let incremental = ECGTrendView()
        var buffer = Buffer(width: 40, height: 10)
        var trend = ECGHeartRateTrend(target: 50...90)
        for second in 0..<150 {
            trend.append(measured: 60 + Double(second % 30), reference: nil)
            incremental.render(trend, in: rect, into: &buffer)
        }
        var fresh = Buffer(width: 40, height: 10)
        ECGTrendView().render(trend, in: rect, into: &fresh)
        #expect(buffer.lines == fresh.lines)
        #expect(!buffer.lines[0].contains("annotated"))
    }

    @Test func feedAppendsOnePointPerSecondWithTheReferenceRate() throws {
        // 10 s at 100 Hz of reference beats every 0.8 s (75 beats/min)
        var trend = ECGHeartRateTrend()
        trend.append(measured: nil, reference: ECGHeartRateTrend.referenceRate(beats: [0, 80, 160, 240][...], sampleRate: 100))
        #expect(trend.rates(at: 0).reference == 75)
        #expect(trend.rates(at: 0).measured.isNaN && trend.rates(at: 1).reference.isNaN)
        for _ in 0..<ECGHeartRateTrend.capacity { trend.append(measured: 60, reference: nil) }
        #expect(trend.rates(at: 0).measured.isNaN, "older than the ring is gone")
        #expect(trend.rates(at: ECGHeartRateTrend.capacity).measured == 60)
    }
}
