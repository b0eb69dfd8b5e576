import Foundation
import Signals

/// Writes sweep blocks in hackrf_sweep's output layouts (release 2022.09.1,
/// host/hackrf-tools/src/hackrf_sweep.c; see Firmware-Notes/hackrf-sweep.md):
///
/// - text: per block two lines
///   `date, time.usec, hz_low, hz_high, hz_bin_width, num_samples, dB, dB, …`,
///   first [f, f + fs/4] then [f + fs/2, f + 3fs/4]; date/time in local time,
///   values `%.2f`;
/// - binary (`-B`): per quarter one record, host byte order:
///   u32 record length (16 + 4·N/4), u64 hz_low, u64 hz_high, N/4 float32 dB.
public final class HackRFSweepWriter {
    public enum Layout: Sendable { case text, binary }

    private let sink: OutputSink
    private let layout: Layout
    /// FFT size N
    private let fftSize: Int
    /// sample rate [Hz]; quarter width is fs/4
    private let sampleRateHz: UInt64
    /// `%.2f` of the bin width, formatted once (it never changes mid-run)
    private let binWidthText: [UInt8]
    /// strftime("%Y-%m-%d, %H:%M:%S") of localtime, as hackrf_sweep prints it
    private var dateTime = CachedDateTime(zone: .local, separator: ", ")
    /// `%.2f` of the last row's step (`writeRow`), formatted again only when it changes
    private var rowStepText: [UInt8] = []
    private var cachedRowStep = Double.nan
    /// a converter in front of the HackRF (`--frequency-offset`): blocks are
    /// written at their real frequencies, mirrored when it inverts
    public var conversion: FrequencyConversion?
    /// a block's values in mirrored order (an inverting converter), reused
    private var mirrored: [Float] = []

    public init(sink: OutputSink, layout: Layout, fftSize: Int, sampleRateHz: UInt64 = 20_000_000) {
        self.sink = sink
        self.layout = layout
        self.fftSize = fftSize
        self.sampleRateHz = sampleRateHz
        self.binWidthText = Array(String(format: "%.2f", Double(sampleRateHz) / Double(fftSize)).utf8)
    }

    /// Writes the two kept quarter-spectra of one block.
    /// - Parameters:
    ///   - frequencyHz: the block's sweep frequency f [Hz]
    ///   - seconds, microseconds: arrival time of the USB transfer (Unix time)
    ///   - lower: N/4 dB values for [f, f + fs/4]
    ///   - upper: N/4 dB values for [f + fs/2, f + 3fs/4]
    public func writeBlock(frequencyHz: UInt64, seconds: Int, microseconds: Int,
                           lower: UnsafeBufferPointer<Float>, upper: UnsafeBufferPointer<Float>) throws {
        let quarter = sampleRateHz / 4
        if let conversion, !conversion.isIdentity {
            try writeConverted(low: frequencyHz, high: frequencyHz + quarter, seconds: seconds, microseconds: microseconds,
                               values: lower, conversion: conversion)
            try writeConverted(low: frequencyHz + 2 * quarter, high: frequencyHz + 3 * quarter, seconds: seconds,
                               microseconds: microseconds, values: upper, conversion: conversion)
            return
        }
        switch layout {
        case .binary:
            try writeRecord(low: frequencyHz, high: frequencyHz + quarter, values: lower)
            try writeRecord(low: frequencyHz + 2 * quarter, high: frequencyHz + 3 * quarter, values: upper)
        case .text:
            try writeLine(seconds: seconds, microseconds: microseconds,
                          low: frequencyHz, high: frequencyHz + quarter, values: lower)
            try writeLine(seconds: seconds, microseconds: microseconds,
                          low: frequencyHz + 2 * quarter, high: frequencyHz + 3 * quarter, values: upper)
        }
    }

    /// One quarter at its real frequencies: [low, high] tuned becomes
    /// [low + offset, high + offset], or [offset − high, offset − low] with
    /// its values mirrored for an inverting converter.
    private func writeConverted(low: UInt64, high: UInt64, seconds: Int, microseconds: Int,
                                values: UnsafeBufferPointer<Float>, conversion: FrequencyConversion) throws {
        let a = conversion.realHz(tunedHz: Double(low)), b = conversion.realHz(tunedHz: Double(high))
        let realLow = UInt64(max(0, min(a, b)).rounded()), realHigh = UInt64(max(0, max(a, b)).rounded())
        guard conversion.inverted else {
            return try writeSlice(lowHz: realLow, highHz: realHigh, seconds: seconds, microseconds: microseconds,
                                  values: values)
        }
        mirrored.removeAll(keepingCapacity: true)
        mirrored.append(contentsOf: values.reversed())
        try mirrored.withUnsafeBufferPointer {
            try writeSlice(lowHz: realLow, highHz: realHigh, seconds: seconds, microseconds: microseconds, values: $0)
        }
    }

    /// Writes one slice of any width as a text line or binary record, with
    /// this writer's bin width and FFT size in the text header (for convert).
    public func writeSlice(lowHz: UInt64, highHz: UInt64, seconds: Int, microseconds: Int,
                           values: UnsafeBufferPointer<Float>) throws {
        switch layout {
        case .binary:
            try writeRecord(low: lowHz, high: highHz, values: values)
        case .text:
            try writeLine(seconds: seconds, microseconds: microseconds, low: lowHz, high: highHz, values: values)
        }
    }

    /// Writes one row as a file had it: a text line with its own step
    /// (`%.2f`), num_samples and spellings of −inf/NaN, or a `-B` record.
    public func writeRow(lowHz: UInt64, highHz: UInt64, stepHz: Double, samples: Int64, seconds: Int,
                         microseconds: Int, values: UnsafeBufferPointer<Float>, spelling: NonFiniteSpelling,
                         lineEnd: LineEnd = .lf, timeDecimals: Int = 6) throws {
        switch layout {
        case .binary:
            try writeRecord(low: lowHz, high: highHz, values: values)
        case .text:
            if stepHz != cachedRowStep {
                cachedRowStep = stepHz
                rowStepText = Array(String(format: "%.2f", stepHz).utf8)
            }
            try writeLine(seconds: seconds, microseconds: microseconds, low: lowHz, high: highHz,
                          stepText: rowStepText, samples: UInt64(clamping: samples), values: values, spelling: spelling,
                          lineEnd: lineEnd, timeDecimals: timeDecimals)
        }
    }

    public func flush() throws { try sink.flush() }

    private func writeRecord(low: UInt64, high: UInt64, values: UnsafeBufferPointer<Float>) throws {
        let valueBytes = values.count * MemoryLayout<Float>.size
        var length = UInt32(16 + valueBytes)
        var edges = (low, high)
        try withUnsafeBytes(of: &length) { try sink.write($0) }
        try withUnsafeBytes(of: &edges) { try sink.write($0) }
        try sink.write(UnsafeRawBufferPointer(values))
    }

    /// what divides a µs count down to d digits after the seconds, by d
    private static let microsecondDivisors = [1_000_000, 100_000, 10_000, 1000, 100, 10, 1]

    private func writeLine(seconds: Int, microseconds: Int, low: UInt64, high: UInt64,
                           values: UnsafeBufferPointer<Float>) throws {
        try writeLine(seconds: seconds, microseconds: microseconds, low: low, high: high, stepText: binWidthText,
                      samples: UInt64(fftSize), values: values, spelling: .c, lineEnd: .lf)
    }

    private func writeLine(seconds: Int, microseconds: Int, low: UInt64, high: UInt64, stepText: [UInt8],
                           samples: UInt64, values: UnsafeBufferPointer<Float>, spelling: NonFiniteSpelling,
                           lineEnd: LineEnd, timeDecimals: Int = 6) throws {
        // worst case per value: ", " + sign + 39 digits + ".dd"; header < 120
        let out = try sink.reserveLine(120 + values.count * 48, values: values.count)
        var n = dateTime.write(seconds, to: out)
        // hackrf_sweep prints "HH:MM:SS.ffffff"; its 2018.01.1 release whole seconds
        if timeDecimals > 0 {
            let digits = min(timeDecimals, 6)
            out[n] = UInt8(ascii: "."); n += 1
            FixedPointFormat.writePadded(microseconds / Self.microsecondDivisors[digits], width: digits, to: out + n)
            n += digits
        }
        n += FixedPointFormat.writeCommaSpace(to: out + n)
        n += FixedPointFormat.writeDecimal(low, to: out + n)
        n += FixedPointFormat.writeCommaSpace(to: out + n)
        n += FixedPointFormat.writeDecimal(high, to: out + n)
        n += FixedPointFormat.writeCommaSpace(to: out + n)
        n += FixedPointFormat.writeBytes(stepText, to: out + n)
        n += FixedPointFormat.writeCommaSpace(to: out + n)
        n += FixedPointFormat.writeDecimal(samples, to: out + n)
        for value in values {
            n += FixedPointFormat.writeCommaSpace(to: out + n)
            n += FixedPointFormat.writeTwoDecimals(value, spelling: spelling, to: out + n)
        }
        n += lineEnd.write(to: out + n)
        sink.commit(bytes: n)
    }
}
