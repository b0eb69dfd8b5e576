import DSP
import Foundation
import Signals

/// `tscope export --csv OUT --trace max|min|avg`: one row per device bin over
/// the whole capture, `frequency_hz,power_db` at bin centres — the summary a
/// user makes of a night's recording, and the reference or baseline trace
/// other commands read back. `avg` is the mean in linear power.
public enum TraceExporter {
    public struct Summary: Sendable {
        public var sweeps: Int
        /// frames left out because their bins differ from the first frame's
        public var skipped: Int
        public var bins: Int
    }

    /// Reads every frame of `reader` into a hold of `kind` and writes the CSV to
    /// `target` ("-" = stdout), atomically (a failed run leaves no file).
    public static func export(_ reader: SpectrumFrameReader, kind: TraceHold.Kind, to target: String,
                              input: String) throws -> Summary {
        var hold = TraceHold(kind: kind)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        while try reader.next(into: &frame) {
            hold.add(startHz: frame.startHz, binWidthHz: frame.binWidthHz, decibels: frame.powerDB)
        }
        guard hold.sweeps > 0 else { throw CaptureError(file: input, "no frames to hold a trace of") }
        let output = AtomicOutput(target: target)
        do {
            let sink = target == "-" ? OutputSink(fd: STDOUT_FILENO, name: "stdout") : try OutputSink.file(path: output.path)
            try sink.write("frequency_hz,power_\(reader.metadata.levelUnit.rawValue.lowercased())\n")
            let values = hold.decibels
            let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
            defer { scratch.deallocate() }
            for (i, value) in values.enumerated() {
                try sink.write(CSVExporter.hertz(hold.binCenterHz(i)) + ",")
                let count = CSVExporter.writeValue(value, to: scratch)
                try sink.write(UnsafeRawBufferPointer(start: scratch, count: count))
                try sink.write("\n")
            }
            try sink.flush()
            try output.commit()
        } catch {
            throw output.naming(error)
        }
        return Summary(sweeps: hold.sweeps, skipped: hold.skipped, bins: hold.decibels.count)
    }
}
