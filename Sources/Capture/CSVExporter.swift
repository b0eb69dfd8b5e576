import Foundation
import Signals

/// Writes frames as a plain table that pandas reads in one call.
///
/// - wide: `time,<centre Hz of bin 0>,<centre Hz of bin 1>,…`, one row per
///   frame; every frame must have the first frame's bins.
///   `pandas.read_csv(path, index_col="time", parse_dates=["time"])`
/// - long: `time,frequency_hz,power_db`, one row per bin of every frame
///   (`power_dbm` for a capture in dBm: a calibrated analyzer, a tinySA).
///   `pandas.read_csv(path, parse_dates=["time"])`
///
/// time is ISO 8601 UTC with microseconds (`2018-11-18T03:31:45.000000Z`);
/// power is in dB, written with the fewest digits that read back as the same
/// float; a bin without data (NaN) is an empty field, zero power `-inf`.
public final class CSVExporter: SpectrumFrameWriter {
    public enum Layout: String, Sendable, CaseIterable { case wide, long }

    private let sink: OutputSink
    private let layout: Layout
    /// geometry of the first frame (wide layout)
    private var columns: (startHz: Double, binWidthHz: Double, count: Int)?
    /// "YYYY-MM-DDTHH:MM:SS" in UTC
    private var dateTime = CachedDateTime(zone: .utc, separator: "T")
    /// the formatted time of the frame being written
    private var timeField = [UInt8](repeating: 0, count: 27)
    private var framesWritten = 0
    /// the long layout's power column: "power_db" or "power_dbm"
    private let powerColumn: String

    /// - Parameter unit: the levels' unit (`CaptureMetadata.levelUnit`)
    public init(sink: OutputSink, layout: Layout, unit: PowerUnit = .dB) {
        self.sink = sink
        self.layout = layout
        powerColumn = "power_\(unit.rawValue.lowercased())"
    }

    public func write(_ frame: SpectrumFrame) throws {
        formatTime(frame.timestamp)
        switch layout {
        case .wide: try writeWide(frame)
        case .long: try writeLong(frame)
        }
        framesWritten += 1
    }

    public func finish() throws {
        if framesWritten == 0 && layout == .long { try sink.write("time,frequency_hz,\(powerColumn)\n") }
        try sink.flush()
    }

    private func writeWide(_ frame: SpectrumFrame) throws {
        if let columns {
            guard columns.startHz == frame.startHz, columns.binWidthHz == frame.binWidthHz,
                  columns.count == frame.powerDB.count else {
                throw CaptureError(file: sink.name, "frame \(framesWritten + 1) has other bins than the first "
                    + "(\(frame.powerDB.count) from \(frame.startHz) Hz): the wide layout needs one set of columns, use --layout long")
            }
        } else {
            columns = (frame.startHz, frame.binWidthHz, frame.powerDB.count)
            var header = "time"
            for i in 0..<frame.powerDB.count { header += "," + Self.hertz(frame.binCenterHz(i)) }
            try sink.write(header + "\n")
        }
        // per value at most "," + 48 bytes; the row goes through reserve when it fits
        let worstCase = timeField.count + 1 + frame.powerDB.count * 49
        guard worstCase <= sink.reservableCapacity else {
            throw CaptureError(file: sink.name, "a frame of \(frame.powerDB.count) bins is too wide for one CSV row "
                + "here, use --layout long")
        }
        let out = try sink.reserve(worstCase)
        var n = copyTime(to: out)
        frame.powerDB.withUnsafeBufferPointer { values in
            for value in values {
                out[n] = UInt8(ascii: ","); n += 1
                n += Self.writeValue(value, to: out + n)
            }
        }
        out[n] = UInt8(ascii: "\n"); n += 1
        sink.commit(bytes: n)
    }

    private func writeLong(_ frame: SpectrumFrame) throws {
        if framesWritten == 0 { try sink.write("time,frequency_hz,\(powerColumn)\n") }
        try frame.powerDB.withUnsafeBufferPointer { values in
            for (i, value) in values.enumerated() {
                let out = try sink.reserve(timeField.count + 80)
                var n = copyTime(to: out)
                out[n] = UInt8(ascii: ","); n += 1
                n += Self.writeHertz(frame.binCenterHz(i), to: out + n)
                out[n] = UInt8(ascii: ","); n += 1
                n += Self.writeValue(value, to: out + n)
                out[n] = UInt8(ascii: "\n"); n += 1
                sink.commit(bytes: n)
            }
        }
    }

    private func copyTime(to out: UnsafeMutablePointer<UInt8>) -> Int {
        for (i, byte) in timeField.enumerated() { out[i] = byte }
        return timeField.count
    }

    /// `YYYY-MM-DDTHH:MM:SS.ffffffZ` of a Unix time into `timeField`.
    private func formatTime(_ unclamped: Double) {
        let (whole, micros) = PrintableTime.microseconds(unclamped)
        timeField.withUnsafeMutableBufferPointer { buffer in
            let out = buffer.baseAddress!
            _ = dateTime.write(whole, to: out)
            out[19] = UInt8(ascii: ".")
            FixedPointFormat.writePadded(micros, width: 6, to: out + 20)
            out[26] = UInt8(ascii: "Z")
        }
    }

    /// A dB value that reads back as the same Float: two decimals when they
    /// suffice (values read from rtl_power/hackrf_sweep text), else Swift's
    /// shortest round-trip form; NaN → empty, −inf → "-inf". Returns bytes (≤ 48).
    static func writeValue(_ value: Float, to out: UnsafeMutablePointer<UInt8>) -> Int {
        if value.isNaN { return 0 }
        let n = FixedPointFormat.writeTwoDecimals(value, to: out)
        if !value.isFinite { return n }
        if DecimalParser.float(UnsafeBufferPointer(start: out, count: n)) == value { return n }
        var count = 0
        for byte in value.description.utf8 {
            out[count] = byte
            count += 1
        }
        return count
    }

    /// A frequency [Hz] with up to 3 decimals, trailing zeros removed.
    static func hertz(_ value: Double) -> String {
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    private static func writeHertz(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let millis = (abs(value) * 1000).rounded()
        guard value.isFinite, millis < 1e18 else {
            var count = 0
            for byte in hertz(value).utf8 { out[count] = byte; count += 1 }
            return count
        }
        var n = 0
        if value < 0 { out[0] = UInt8(ascii: "-"); n = 1 }
        let scaled = UInt64(millis)
        n += FixedPointFormat.writeDecimal(scaled / 1000, to: out + n)
        var fraction = Int(scaled % 1000)
        guard fraction != 0 else { return n }
        out[n] = UInt8(ascii: "."); n += 1
        var digits = 3
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        FixedPointFormat.writePadded(fraction, width: digits, to: out + n)
        return n + digits
    }
}
