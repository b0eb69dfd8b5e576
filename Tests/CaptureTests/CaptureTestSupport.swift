import Foundation
import Signals
import Testing
@testable import Capture

/// Fixture files of this target, found next to this source file.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }
    static let osakaFiles = ["nhkfm3.csv", "cocolo3.csv", "fm802-3.csv", "fmosaka-3.csv"].map { "rtl_power-fm-osaka/\($0)" }
}

/// UTC for every test: results must not depend on the machine's zone.
let utc = CaptureReadOptions(timeZone: .utcOffset(seconds: 0))
let utcStrict = CaptureReadOptions(strict: true, timeZone: .utcOffset(seconds: 0))

/// Every frame a reader yields, each a copy.
func readAllFrames(_ reader: SpectrumFrameReader) throws -> [SpectrumFrame] {
    var frames: [SpectrumFrame] = []
    var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
    while try reader.next(into: &frame) { frames.append(frame) }
    return frames
}

/// Runs a reader made by `make` over in-memory bytes.
func withMemoryReader<R>(_ bytes: [UInt8], name: String = "test.csv",
                         _ make: (ByteInput) -> SpectrumFrameReader,
                         _ body: (SpectrumFrameReader) throws -> R) rethrows -> R {
    try bytes.withUnsafeBytes { raw in
        try body(make(ByteInput(bytes: raw, name: name)))
    }
}

func rtlPowerFrames(_ text: String, options: CaptureReadOptions = utc) throws -> (frames: [SpectrumFrame], skipped: Int) {
    try withMemoryReader(Array(text.utf8), { RTLPowerCSVReader(input: $0, options: options) }) { reader in
        (try readAllFrames(reader), reader.skipped)
    }
}

/// The error a throwing expression threw, as a CaptureError (nil if it did not throw one).
func captureError(_ body: () throws -> Void) -> CaptureError? {
    do {
        try body()
        return nil
    } catch let error as CaptureError {
        return error
    } catch {
        return nil
    }
}

/// A temporary directory removed by the caller.
func temporaryDirectory(_ label: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tscope-\(label)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
