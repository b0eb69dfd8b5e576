/// One line of rtl_power or hackrf_sweep text:
/// `date, time, Hz low, Hz high, Hz step, samples, dB, dB, …`.
struct SweepLine {
    /// [s since the Unix epoch]
    var timestamp = 0.0
    /// [Hz]
    var lowHz = 0.0
    /// [Hz]
    var highHz = 0.0
    /// bin width [Hz]
    var stepHz = 0.0
    /// FFTs accumulated (rtl_power) or FFT size (hackrf_sweep)
    var samples = 0
    /// values in `SweepLineParser.values`
    var valueCount = 0
}

/// Parses sweep lines into reused storage; says what is wrong with a bad one.
struct SweepLineParser {
    /// dB values of the last parsed line (first `SweepLine.valueCount` valid)
    private(set) var values: [Float] = []
    var clock: WallClockParser

    init(timeZone: CaptureReadOptions.TimeZoneRule) {
        clock = WallClockParser(rule: timeZone)
    }

    /// true for lines to pass over silently: blank or `#` comments
    static func isIgnorable(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { continue }
            return byte == UInt8(ascii: "#")
        }
        return true
    }

    /// Parses one line; returns what was expected if it is malformed.
    mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>, into line: inout SweepLine) -> String? {
        var fields = FieldCursor(bytes)
        guard let date = fields.next(), let time = fields.next() else {
            return "expected 'date, time, Hz low, Hz high, Hz step, samples, dB, …', found no commas"
        }
        guard let timestamp = clock.parse(date: date, time: time) else {
            return "expected a date YYYY-MM-DD and a time HH:MM:SS in the first two columns"
        }
        line.timestamp = timestamp
        guard let low = fields.next(), let high = fields.next(), let step = fields.next(), let samples = fields.next()
        else { return "expected 7 or more columns (date, time, Hz low, Hz high, Hz step, samples, dB…)" }
        guard let lowHz = DecimalParser.double(low), let highHz = DecimalParser.double(high),
              lowHz.isFinite, highHz.isFinite, lowHz >= 0, highHz > lowHz
        else { return "expected Hz low < Hz high in columns 3 and 4, both finite numbers" }
        guard let stepHz = DecimalParser.double(step), stepHz.isFinite, stepHz > 0 else {
            return "expected a positive bin width (Hz step) in column 5"
        }
        guard let sampleCount = DecimalParser.integer(samples), sampleCount >= 0 else {
            return "expected a whole number of samples in column 6"
        }
        line.lowHz = lowHz
        line.highHz = highHz
        line.stepHz = stepHz
        line.samples = sampleCount
        var count = 0
        var column = 6
        while let field = fields.next() {
            column += 1
            if field.isEmpty {
                // a trailing ", " before the end of the line is harmless
                if fields.next() == nil { break }
                return "column \(column) is empty, expected a dB value"
            }
            guard let value = DecimalParser.float(field) else {
                return "column \(column): expected a dB value, found '\(String(decoding: field.prefix(24), as: UTF8.self))'"
            }
            guard value == -.infinity || value.isFinite else {
                return "column \(column): \(value) is not a power (only finite values and -inf are)"
            }
            if count == values.count { values.append(value) } else { values[count] = value }
            count += 1
        }
        guard count > 0 else { return "expected dB values after the 6 header columns, found none" }
        line.valueCount = count
        return nil
    }

    /// values of the last parsed line, `count` of them
    func withValues<T>(count: Int, _ body: (UnsafeBufferPointer<Float>) -> T) -> T {
        values.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<count])) }
    }
}
