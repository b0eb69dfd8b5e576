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
        if head.starts(with: SoapyPowerBinReader.magic) { return .soapyPowerBin }
        if head.starts(with: Array("SQLite format 3".utf8)) { return .tscope }
        if ext == "bin" { return .hackrfSweepBinary }
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
            if head.isEmpty { throw CaptureError(file: path, "empty: nothing to read") }
            throw CaptureError(file: path, location: .line(1),
                               "expected rtl_power or hackrf_sweep lines ('2024-05-01, 12:00:00, Hz low, …'); give --format")
        }
        throw CaptureError(file: path, "unknown kind of file: give --format (\(readable))")
    }

    /// formats `--format` accepts for input, for messages
    public static var readable: String { allCases.filter(\.canRead).map(\.rawValue).joined(separator: ", ") }
    /// formats `--format` accepts for output, for messages
    public static var writable: String { allCases.filter(\.canWrite).map(\.rawValue).joined(separator: ", ") }

    /// Opens a reader for `path` in this format.
    public func openReader(path: String, options: CaptureReadOptions) throws -> SpectrumFrameReader {
        switch self {
        case .rtlPower: return try RTLPowerCSVReader(path: path, options: options)
        case .hackrfSweep: return try HackRFSweepCSVReader(path: path, options: options)
        case .hackrfSweepBinary: return try HackRFSweepBinaryReader(path: path, options: options)
        case .soapyPowerBin: return try SoapyPowerBinReader(path: path, options: options)
        case .sigmf: return try SigMFRecording(path: path).makeReader(options: options.iq)
        case .cu8, .cs8, .cs16, .cf32:
            return try IQSpectrumReader(path: path, format: iqSampleFormat!, options: options.iq)
        case .tscope: return try CaptureStoreReader(path: path, strict: options.strict)
        case .csv, .null:
            throw CaptureError(file: path, "\(rawValue) is an output format only; inputs: \(Self.readable)")
        }
    }

    /// Opens a writer for `path` in this format (`csvLayout` for .csv). A
    /// capture store that exists is appended to as a new session, never
    /// overwritten; `metadata` (the input's) goes into a new store.
    public func openWriter(path: String, csvLayout: CSVExporter.Layout = .wide,
                           metadata: CaptureMetadata? = nil) throws -> SpectrumFrameWriter {
        func sink() throws -> OutputSink {
            if path == "-" { return OutputSink(fd: STDOUT_FILENO, name: "stdout") }
            do { return try OutputSink.file(path: path) } catch let error as OutputError {
                throw CaptureError(file: path, "cannot create: \(error.detail)")
            }
        }
        switch self {
        case .tscope:
            var stored = metadata ?? CaptureMetadata(format: "tscope")
            stored.format = "tscope"
            return try CaptureStoreWriter(path: path, metadata: stored,
                                          session: CaptureSessionInfo(startedAt: unixTimeNow(), label: stored.label,
                                                                      operatorName: stored.operatorName,
                                                                      band: stored.span, binWidthHz: stored.binWidthHz))
        case .rtlPower: return RTLPowerFrameWriter(sink: try sink())
        case .hackrfSweep: return HackRFSweepFrameWriter(sink: try sink(), layout: .text)
        case .hackrfSweepBinary: return HackRFSweepFrameWriter(sink: try sink(), layout: .binary)
        case .soapyPowerBin: return SoapyPowerBinWriter(sink: try sink())
        case .csv: return CSVExporter(sink: try sink(), layout: csvLayout)
        case .null: return DiscardingWriter()
        default:
            throw CaptureError(file: path, "tscope cannot write \(rawValue) yet; outputs: \(Self.writable)")
        }
    }

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
