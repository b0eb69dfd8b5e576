import Foundation
import Signals

/// Every file format tscope reads or writes, named as `--format` takes it,
/// found from the file name (and, where one extension has several formats,
/// from the first bytes).
public enum CaptureFormat: String, Sendable, CaseIterable {
    /// tscope's SQLite capture store (reader and writer come with the store)
    case tscope
    case rtlPower = "rtl_power"
    case hackrfSweep = "hackrf_sweep"
    case hackrfSweepBinary = "hackrf_sweep_binary"
    case soapyPowerBin = "soapy_power_bin"
    case sigmf
    case cu8, cs8, cs16, cf32
    /// tscope's table export (wide or long), for pandas and spreadsheets
    case csv
    /// frames read and dropped: checks an input and counts its frames
    case null

    public var canRead: Bool {
        switch self {
        case .csv, .null: return false
        default: return true
        }
    }

    public var canWrite: Bool {
        switch self {
        case .tscope, .rtlPower, .hackrfSweep, .hackrfSweepBinary, .soapyPowerBin, .csv, .null: return true
        default: return false
        }
    }

    /// the raw sample layout, for I/Q formats
    public var iqSampleFormat: IQSampleFormat? { IQSampleFormat(rawValue: rawValue) }

    /// What the extension of an output path names; nil if it says nothing
    /// definite (.csv could be three formats: --format decides).
    public static func forOutput(path: String) -> CaptureFormat? {
        switch fileExtension(path) {
        case "tscope": return .tscope
        case "bin": return .hackrfSweepBinary
        case "sdrff", "soapy": return .soapyPowerBin
        default: return nil
        }
    }

    /// The format of an existing file from its extension and first bytes.
    public static func detect(path: String) throws -> CaptureFormat {
        let ext = fileExtension(path)
        switch ext {
        case "tscope": return .tscope
        case "sigmf-meta", "sigmf-data", "sigmf": return .sigmf
        case "cu8", "u8": return .cu8
        case "cs8", "s8": return .cs8
        case "cs16", "s16": return .cs16
        case "cf32", "fc32": return .cf32
        default: break
        }
        let head = try firstBytes(path, count: 64)
        if head.isEmpty { throw CaptureError(file: path, "empty: nothing to read") }
        if head.starts(with: SoapyPowerBinReader.magic) { return .soapyPowerBin }
        if head.starts(with: Array("SQLite format 3".utf8)) { return .tscope }
        if ext == "bin" {
            if let problem = notSweepBinary(head) {
                throw CaptureError(file: path, location: .byte(0), "not hackrf_sweep -B: \(problem); if it is raw I/Q "
                    + "(rtl_sdr and dump1090 write .bin too) read it with \(rawIQHint)")
            }
            return .hackrfSweepBinary
        }
        if ext == "csv" || ext == "txt" || head.first.map({ (0x30...0x39).contains($0) }) == true {
            // hackrf_sweep prints microseconds after the seconds: "HH:MM:SS.ffffff,"
            let text = String(decoding: head, as: UTF8.self)
            if text.range(of: #"^\d{4}-\d{2}-\d{2}, ?\d{2}:\d{2}:\d{2}\.\d"#, options: .regularExpression) != nil {
                return .hackrfSweep
            }
            if text.range(of: #"^\d{4}-\d{2}-\d{2}, ?\d{2}:\d{2}:\d{2},"#, options: .regularExpression) != nil {
                return .rtlPower
            }
            if text.hasPrefix("time,") {
                throw CaptureError(file: path, "is a tscope CSV export (a table for pandas), which tscope does not read back")
            }
            throw CaptureError(file: path, location: .line(1),
                               "expected rtl_power or hackrf_sweep lines ('2024-05-01, 12:00:00, Hz low, …'); "
                                + "give --in-format (\(readable))")
        }
        throw CaptureError(file: path, "unknown kind of file: give --in-format (\(readable)); raw I/Q also needs --rate "
            + "and --center")
    }

    /// what raw I/Q needs on the command line, for hints
    public static var rawIQHint: String { IQSampleFormat.commandLineHint }

    /// Why `head` (a file's first bytes) cannot start hackrf_sweep -B output,
    /// or nil if it can: a record opens with its uint32 LE length 16 + 4·bins,
    /// then uint64 LE hz_low < hz_high (hackrf_sweep.c writes them so).
    static func notSweepBinary(_ head: [UInt8]) -> String? {
        guard head.count >= 20 else { return "\(head.count) bytes, shorter than one record header (20 bytes)" }
        func load<T: FixedWidthInteger>(_ offset: Int, _ type: T.Type) -> T {
            var value: T = 0
            for i in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(head[offset + i]) }
            return value
        }
        let length = Int(load(0, UInt32.self))
        guard length > 16, (length - 16) % 4 == 0, length <= HackRFSweepBinaryReader.maxRecordLength else {
            return "the first record's uint32 LE length reads \(length), not 16 + 4·bins"
        }
        let low = load(4, UInt64.self), high = load(12, UInt64.self)
        // 100 GHz: far above any analyzer tscope reads (tscope writes -B for all of them)
        guard low < high, high <= 100_000_000_000 else {
            return "the first record's hz_low \(low) and hz_high \(high) are no band"
        }
        return nil
    }

    /// formats `--in-format` accepts, for messages
    public static var readable: String { allCases.filter(\.canRead).map(\.rawValue).joined(separator: ", ") }
    /// formats convert's `--format` accepts, for messages
    public static var writable: String { allCases.filter(\.canWrite).map(\.rawValue).joined(separator: ", ") }

    static func fileExtension(_ path: String) -> String {
        URL(fileURLWithPath: path).pathExtension.lowercased()
    }

    private static func firstBytes(_ path: String, count: Int) throws -> [UInt8] {
        let input = try ByteInput(path: path)
        var bytes = [UInt8](repeating: 0, count: count)
        let n = try bytes.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, count: count) }
        return Array(bytes[0..<n])
    }
}

/// Drops every frame: `convert IN /dev/null --format null` checks a file.
final class DiscardingWriter: SpectrumFrameWriter {
    func write(_ frame: SpectrumFrame) throws {}
    func finish() throws {}
}
