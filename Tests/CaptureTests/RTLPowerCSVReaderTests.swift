import Foundation
import Signals
import Testing
@testable import Capture

@Suite struct RTLPowerCSVReaderTests {
    /// An independent, naive parse of an rtl_power file: split on ", ",
    /// Swift's own Float(String), drop the repeated last value.
    private func naiveRows(_ path: String) throws -> [(low: Double, step: Double, values: [Float], time: String)] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").map { line in
            let fields = line.components(separatedBy: ", ")
            let values = fields[6...].map { Float($0)! }
            return (Double(fields[2])!, Double(fields[4])!, Array(values.dropLast()), fields[0] + "T" + fields[1])
        }
    }

    @Test(arguments: Fixtures.osakaFiles)
    func realFilesReplayWithTheirValuesExact(_ file: String) throws {
        let path = Fixtures.path(file)
        let expected = try naiveRows(path)
        let reader = try RTLPowerCSVReader(path: path, options: utcStrict)
        let frames = try readAll(reader)
        #expect(frames.count == 299)
        #expect(frames.count == expected.count)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
        iso.timeZone = TimeZone(identifier: "UTC")
        for (frame, row) in zip(frames, expected) {
            // "Hz low" is the first value's centre (rtl_power.c csv_dbm): value k sits at low + k·step
            #expect(frame.binCenterHz(0) == row.low)
            #expect(frame.binCenterHz(127) == row.low + 127 * row.step)
            #expect(frame.binWidthHz == row.step)
            #expect(frame.powerDB.count == 128)
            #expect(frame.powerDB == row.values)
            #expect(frame.timestamp == iso.date(from: row.time)!.timeIntervalSince1970)
        }
        #expect(reader.skipped == 0)
        #expect(reader.metadata.binWidthHz == 781.25)
        #expect(reader.progress.done == reader.progress.total)
    }

    @Test func theRepeatedLastValueIsDroppedOnlyWhenItRepeats() throws {
        // 4 bins of 250 Hz between 1000 and 2000 Hz: rtl_power prints 5 values, the last repeated.
        let rtl = try rtlPowerFrames("2020-01-01, 00:00:00, 1000, 2000, 250.00, 10, -1.00, -2.00, -3.00, -4.00, -4.00\n")
        #expect(rtl.frames.map(\.powerDB) == [[-1, -2, -3, -4]])
        // soapy_power's rtl_power writer prints exactly 4 values, none repeated
        let soapy = try rtlPowerFrames("2020-01-01, 00:00:00, 1000, 2000, 250.0, 10, -1.5, -2.5, -3.5, -4.5\n")
        #expect(soapy.frames.map(\.powerDB) == [[-1.5, -2.5, -3.5, -4.5]])
    }

    @Test func hopsOfOneTimestampAssembleIntoOneFrameAtTheirNearestBins() throws {
        // Hop edges are freq ± int(bw/2): the second hop starts 1001 Hz after
        // the first, i.e. 4.004 bins of 250 Hz → bin 4.
        let text = """
            2020-01-01, 00:00:00, 100000, 101000, 250.00, 10, -1.00, -2.00, -3.00, -4.00, -4.00
            2020-01-01, 00:00:00, 101001, 102001, 250.00, 10, -5.00, -6.00, -7.00, -8.00, -8.00
            2020-01-01, 00:00:01, 100000, 101000, 250.00, 10, -11.00, -12.00, -13.00, -14.00, -14.00
            2020-01-01, 00:00:01, 101001, 102001, 250.00, 10, -15.00, -16.00, -17.00, -18.00, -18.00

            """
        let result = try rtlPowerFrames(text)
        #expect(result.frames.count == 2)
        #expect(result.frames[0].powerDB == [-1, -2, -3, -4, -5, -6, -7, -8])
        #expect(result.frames[1].powerDB == [-11, -12, -13, -14, -15, -16, -17, -18])
        #expect(result.frames[0].binCenterHz(0) == 100_000)
        #expect(result.frames[0].startHz == 100_000 - 125)  // lower edge: half a 250 Hz step below
        #expect(result.frames[1].timestamp - result.frames[0].timestamp == 1)
    }

    @Test func aNewSweepInTheSameSecondStartsANewFrame() throws {
        let text = """
            2020-01-01, 00:00:00, 1000, 2000, 250.00, 10, -1.00, -2.00, -3.00, -4.00, -4.00
            2020-01-01, 00:00:00, 1000, 2000, 250.00, 10, -5.00, -6.00, -7.00, -8.00, -8.00
            """
        #expect(try rtlPowerFrames(text).frames.count == 2)
    }

    @Test func croppedHopsWithTwoBinsMoreThanTheirEdgesSayAreAccepted() throws {
        // rtl_power -c: 6 bins printed (+1 repeat) for edges 1000 Hz apart at 250 Hz (4 bins)
        let text = "2020-01-01, 00:00:00, 1000, 2000, 250.00, 10, -1.00, -2.00, -3.00, -4.00, -5.00, -6.00, -6.00\n"
        #expect(try rtlPowerFrames(text).frames.map(\.powerDB.count) == [6])
    }

    private let good = "2020-01-01, 00:00:00, 1000, 2000, 250.00, 10, -1.00, -2.00, -3.00, -4.00, -4.00"

    /// Damage inserted as line 2 of 3 good lines: skipped and counted, fatal when strict.
    @Test(arguments: [
        ("2020-01-01, 00:00:01, 1000, 2000, 250.00, 10, -1.00", "found 1"),
        // within rtl_power's crop tolerance of the edges, but not the first sweep's 4 values
        ("2020-01-01, 00:00:01, 1000, 2000, 250.00, 10, -1.00, -2.00", "with 4 values as in the first sweep"),
        ("2020-01-01, 00:00:01, 1000, 2000, 250.00, 10, -1.00, abc, -3.00, -4.00, -4.00", "found 'abc'"),
        ("2020-01-01, 00:00:01, 1000, 2000, 250.00, 10, -1.00, inf, -3.00, -4.00, -4.00", "not a power"),
        ("2020-01-01, 00:00:01, 1000, nan, 250.00, 10, -1.00, -3.00, -4.00, -4.00", "Hz low < Hz high"),
        ("2020-01-01, 00:00:01, 1000, 2000, 200.00, 10, -1.00, -2.00, -3.00, -4.00, -5.00, -5.00", "mixed bin widths"),
        ("2019-12-31, 23:59:59, 1000, 2000, 250.00, 10, -1.00, -2.00, -3.00, -4.00, -4.00", "backwards"),
        ("2020-01-01, 00:00:01, 1000", "7 or more columns"),
        ("2020-13-01, 00:00:01, 1000, 2000, 250.00, 10, -1.00, -2.00, -3.00, -4.00, -4.00", "date YYYY-MM-DD"),
        ("hello", "no commas"),
    ])
    func damagedLinesAreSkippedAndCountedOrFatalWhenStrict(_ bad: String, _ expected: String) throws {
        let later = good.replacingOccurrences(of: "00:00:00", with: "00:00:02")
        let text = [good, bad, later].joined(separator: "\n") + "\n"
        let lenient = try rtlPowerFrames(text)
        #expect(lenient.skipped == 1)
        #expect(lenient.frames.count == 2)
        let error = captureError { _ = try rtlPowerFrames(text, options: utcStrict) }
        #expect(error?.location == .line(2))
        #expect(error?.file == "test.csv")
        #expect(error?.detail.contains(expected) == true, "\(String(describing: error))")
    }

    @Test func negativeInfinityIsZeroPowerAndKept() throws {
        let text = "2020-01-01, 00:00:00, 1000, 2000, 250.00, 10, -inf, -2.00, -3.00, -4.00, -4.00\n"
        #expect(try rtlPowerFrames(text, options: utcStrict).frames[0].powerDB[0] == -.infinity)
    }

    @Test func aLaterSweepWithAnotherHopLayoutIsDamage() throws {
        let text = """
            \(good)
            2020-01-01, 00:00:01, 1500, 2500, 250.00, 10, -1.00, -2.00, -3.00, -4.00, -4.00
            """
        let error = captureError { _ = try rtlPowerFrames(text, options: utcStrict) }
        #expect(error?.location == .line(2))
        #expect(error?.detail.contains("as in the first sweep") == true)
    }

    @Test func anEmptyFileIsOneClearError() {
        for text in ["", "\n\n", "# only a comment\n"] {
            let error = captureError { _ = try rtlPowerFrames(text) }
            #expect(error?.detail.contains("empty") == true)
        }
        let allBad = captureError { _ = try rtlPowerFrames("a\nb\n") }
        #expect(allBad?.detail.contains("no valid rtl_power line") == true)
    }

    @Test func aTruncatedLastLineIsDamageNotACrash() throws {
        let full = try String(contentsOfFile: Fixtures.path(Fixtures.osakaFiles[0]), encoding: .utf8)
        var rng = SeededRandom(seed: 4)
        for _ in 0..<40 {
            let cut = Int.random(in: 0..<full.utf8.count, using: &rng)
            let text = String(decoding: Array(full.utf8)[..<cut], as: UTF8.self)
            let result = try? rtlPowerFrames(text)
            if let result { #expect(result.frames.allSatisfy { $0.powerDB.count == 128 }) }
        }
    }

    @Test func localTimeIsConvertedWithTheGivenOffset() throws {
        let japan = CaptureReadOptions(timeZone: .utcOffset(seconds: 9 * 3600))
        let frames = try rtlPowerFrames(good + "\n", options: japan).frames
        // 2020-01-01 00:00:00 in Japan = 2019-12-31 15:00:00 UTC
        #expect(frames[0].timestamp == 1_577_804_400)
    }
}
