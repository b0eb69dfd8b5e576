import Foundation
import Testing
@testable import Capture

/// `core:datetime` parsing: the fuzzer found that ISO8601DateFormatter crashes
/// (SIGFPE in ICU) on a long fraction; the own parser must agree with it
/// everywhere it doesn't crash.
@Suite struct SigMFDateTimeTests {
    private static let may1Noon = 1_714_564_800.0

    private func metadata(datetime: String) -> Data {
        Data(#"""
            {"global": {"core:datatype": "ci8", "core:sample_rate": 10, "core:version": "1.0.0"},
             "captures": [{"core:sample_start": 0, "core:datetime": "\#(datetime)"}]}
            """#.utf8)
    }

    /// Fuzz/findings/SigMFMeta-crash-4ce190776f5632749f374315b3894e9761b8e4bd,
    /// its JSON reduced to the datetime: killed the process before the fix.
    @Test func theFuzzersInputIsOneClearError() {
        let datetime = "108-05-01T12:00:0.0" + String(repeating: "8", count: 124) + "Z"
        let error = captureError {
            _ = try SigMFRecording(metaPath: "rec.sigmf-meta", metaJSON: metadata(datetime: datetime),
                                   dataPath: "rec.sigmf-data", dataBytes: 1026)
        }
        #expect(error?.detail.contains("core:datetime") == true, "\(String(describing: error))")
    }

    @Test func aLongFractionCountsToNanoseconds() throws {
        let datetime = "2024-05-01T12:00:00." + String(repeating: "8", count: 124) + "Z"
        let recording = try SigMFRecording(metaPath: "rec.sigmf-meta", metaJSON: metadata(datetime: datetime),
                                           dataPath: "rec.sigmf-data", dataBytes: 1026)
        #expect(recording.startTime == Self.may1Noon + 0.888_888_888)
    }

    @Test(arguments: [
        ("2024-05-01T12:00:00Z", 0.0),
        ("2024-05-01t12:00:00z", 0.0),
        ("2024-05-01T12:00:00.5Z", 0.5),
        ("2024-05-01T12:00:00.500000Z", 0.5),
        ("2024-05-01T12:00:00.123456789Z", 0.123_456_789),
        ("2024-05-01T21:00:00+09:00", 0.0),
        ("2024-05-01T09:30:00-02:30", 0.0),
        ("2024-02-29T00:00:00Z", -62 * 86_400 - 12 * 3600.0),
    ])
    func validDateTimesParse(_ text: String, _ secondsAfterMay1Noon: Double) throws {
        let parsed = try #require(SigMFRecording.parseDateTime(text))
        #expect(abs(parsed - (Self.may1Noon + secondsAfterMay1Noon)) < 1e-6, "\(text) → \(parsed)")
    }

    /// The reference, where it doesn't crash: ISO8601DateFormatter with and
    /// without fractional seconds, as the reader used before.
    @Test(arguments: ["2024-05-01T12:00:00Z", "1999-12-31T23:59:59.25Z", "2024-05-01T21:00:00+09:00",
                      "2024-05-01T09:30:00.125-02:30", "1970-01-01T00:00:00Z"])
    func agreesWithISO8601DateFormatter(_ text: String) throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let withFraction = formatter.date(from: text)
        formatter.formatOptions = [.withInternetDateTime]
        let reference = try #require(withFraction ?? formatter.date(from: text)).timeIntervalSince1970
        let parsed = try #require(SigMFRecording.parseDateTime(text))
        #expect(abs(parsed - reference) < 1e-3)
    }

    @Test(arguments: [
        "", "2024-05-01", "2024-05-01T12:00:00", "2024-05-01 12:00:00Z", "2024-05-01T12:00Z",
        "2024-13-01T12:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T12:00:00.Z", "2024-05-01T12:00:00.12a4Z",
        "2024-05-01T12:00:00." + String(repeating: "1", count: 30) + "xZ", "2024-05-01T12:00:00+24:00",
        "2024-05-01T12:00:00+0900", "108-05-01T12:00:00Z", "2024-05-01T12:00:00Zjunk",
    ])
    func malformedDateTimesAreRefused(_ text: String) {
        #expect(SigMFRecording.parseDateTime(text) == nil, "\(text)")
    }
}
