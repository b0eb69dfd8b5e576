import Foundation
import Signals
import Testing
@testable import Capture

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init(_ label: String) throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("tscope-capture-\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Seeded frames with awkward values: NaN bins, ±0, extremes, sub-0.01 dB detail.
func makeFrames(count: Int, bins: Int, seed: UInt64, start: Double = 1_763_720_100.125,
                interval: Double = 0.1) -> [SpectrumFrame] {
    var random = SeededRandom(seed: seed)
    return (0..<count).map { index in
        var power = (0..<bins).map { _ in Float(random.unit() * -120 + 10) }
        if bins > 4 {
            power[0] = .nan
            power[1] = -0.0
            power[2] = .greatestFiniteMagnitude
            power[3] = -.infinity
        }
        return SpectrumFrame(startHz: 88e6 + Double(index % 3) * 0.5, binWidthHz: 19_531.25,
                             timestamp: start + Double(index) * interval, powerDB: power)
    }
}

/// Frames equal bit for bit (NaN equal to NaN of the same pattern).
func identical(_ a: SpectrumFrame, _ b: SpectrumFrame) -> Bool {
    a.startHz.bitPattern == b.startHz.bitPattern && a.binWidthHz.bitPattern == b.binWidthHz.bitPattern
        && a.timestamp.bitPattern == b.timestamp.bitPattern
        && a.powerDB.map(\.bitPattern) == b.powerDB.map(\.bitPattern)
}

func readAll(_ reader: SpectrumFrameReader) throws -> [SpectrumFrame] {
    var frames: [SpectrumFrame] = []
    var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
    while try reader.next(into: &frame) { frames.append(frame) }
    return frames
}

/// Fixture files of this target, found next to this source file.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }
    static let osakaFiles = ["nhkfm3.csv", "cocolo3.csv", "fm802-3.csv", "fmosaka-3.csv"].map { "rtl_power-fm-osaka/\($0)" }
}

/// UTC for every test: results must not depend on the machine's zone.
let utc = CaptureReadOptions(timeZone: .utcOffset(seconds: 0))
let utcStrict = CaptureReadOptions(strict: true, timeZone: .utcOffset(seconds: 0))

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
        (try readAll(reader), reader.skipped)
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
func temporaryDirectory(_ label: String) throws -> URL { try TemporaryDirectory(label).url }
