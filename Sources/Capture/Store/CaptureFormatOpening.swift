import Foundation
import Signals

/// Opening a format's reader and writer: here, beside the store, because the
/// `.tscope` cases need it (the parsers outside Store/ build without GRDB, as
/// Tools/fuzz builds them).
extension CaptureFormat {
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
            return try storeWriter(path: path, metadata: metadata, atomicSession: false)
        case .rtlPower: return RTLPowerFrameWriter(sink: try sink())
        case .hackrfSweep: return HackRFSweepFrameWriter(sink: try sink(), layout: .text)
        case .hackrfSweepBinary: return HackRFSweepFrameWriter(sink: try sink(), layout: .binary)
        case .soapyPowerBin: return SoapyPowerBinWriter(sink: try sink())
        case .csv: return CSVExporter(sink: try sink(), layout: csvLayout, unit: metadata?.levelUnit ?? "dB")
        case .null: return DiscardingWriter()
        default:
            throw CaptureError(file: path, "tscope cannot write \(rawValue) yet; outputs: \(Self.writable)")
        }
    }

    /// `openWriter` for a command's output: nothing appears at `path` unless
    /// `finish` succeeds, and `abandon` (or a failed `finish`) leaves it as it
    /// was. A new file is written beside `path` under a temporary name and
    /// renamed; a session appended to an existing capture store is one
    /// transaction, rolled back whole.
    public func openAtomicWriter(path: String, csvLayout: CSVExporter.Layout = .wide,
                                 metadata: CaptureMetadata? = nil) throws -> AtomicFrameWriter {
        if self == .null { return AtomicFrameWriter(writer: DiscardingWriter(), output: nil) }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if self == .tscope, size > 0, !AtomicOutput.writesInPlace(path) {
            return AtomicFrameWriter(writer: try storeWriter(path: path, metadata: metadata, atomicSession: true),
                                     output: nil)
        }
        let output = AtomicOutput(target: path)
        do {
            let writer = self == .tscope
                ? try storeWriter(path: output.path, metadata: metadata, atomicSession: true)
                : try openWriter(path: output.path, csvLayout: csvLayout, metadata: metadata)
            return AtomicFrameWriter(writer: writer, output: output)
        } catch {
            throw output.naming(error)
        }
    }

    private func storeWriter(path: String, metadata: CaptureMetadata?, atomicSession: Bool) throws -> CaptureStoreWriter {
        var stored = metadata ?? CaptureMetadata(format: "tscope")
        stored.format = "tscope"
        return try CaptureStoreWriter(path: path, metadata: stored,
                                      session: CaptureSessionInfo(startedAt: unixTimeNow(), label: stored.label,
                                                                  operatorName: stored.operatorName,
                                                                  band: stored.span, binWidthHz: stored.binWidthHz),
                                      options: CaptureStoreWriter.Options(atomicSession: atomicSession))
    }
}
