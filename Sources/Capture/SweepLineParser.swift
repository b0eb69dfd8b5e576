/// One line of rtl_power or hackrf_sweep text:
/// `date, time, Hz low, Hz high, Hz step, samples, dB, dB, …`.
struct SweepLine {
    /// [s since the Unix epoch]
    var timestamp = 0.0
    /// the printed time [µs since the Unix epoch], exact
    var timeMicros: Int64 = 0
    /// digits printed after the seconds
    var timeDecimals = 0
    /// [Hz]
    var lowHz = 0.0
    /// [Hz]
    var highHz = 0.0
    /// bin width [Hz]
    var stepHz = 0.0
    /// FFTs accumulated (rtl_power) or FFT size (hackrf_sweep)
    var samples = 0
    /// values parsed (read them with `SweepLineParser.withValues`)
    var valueCount = 0
}

extension SweepLine {
    /// The line (`text`) as a row (`firstBin` and `binCount` are set when it is placed).
    func row(_ text: LineReader.Line, repeatsLast: Bool = false) -> SweepRow {
        SweepRow(lowHz: lowHz, highHz: highHz, stepHz: stepHz, samples: Int64(samples), timeMicros: timeMicros,
                 firstBin: 0, binCount: 0, repeatsLast: repeatsLast,
                 lineEnd: !text.terminated ? .none : text.crlf ? .crlf : .lf, timeDecimals: timeDecimals)
    }
}

/// Parses sweep lines into reused storage; says what is wrong with a bad one.
final class SweepLineParser {
    /// dB values of the last parsed line (first `SweepLine.valueCount` valid)
    private var storage: UnsafeMutablePointer<Float>
    private var capacity = 1024
    var clock: WallClockParser
    /// how the file spells −inf and NaN, from the first such value; nil before one is seen
    private(set) var spelling: NonFiniteSpelling?

    init(timeZone: CaptureReadOptions.TimeZoneRule) {
        clock = WallClockParser(rule: timeZone)
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// true for lines to pass over silently: blank or `#` comments
    static func isIgnorable(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { continue }
            return byte == UInt8(ascii: "#")
        }
        return true
    }

    /// The next line of `lines` that is not blank or a comment, parsed into
    /// `line`; lines that do not parse are recorded as damage. nil at the end.
    func nextLine(from lines: LineReader, into line: inout SweepLine,
                  damage: inout DamageCounter) throws -> LineReader.Line? {
        while let text = try lines.next() {
            if Self.isIgnorable(text.bytes) { continue }
            if let problem = parse(text.bytes, into: &line) {
                try damage.record(lines.error(at: text, problem))
                continue
            }
            return text
        }
        return nil
    }

    /// Parses one line; returns what was expected if it is malformed.
    func parse(_ bytes: UnsafeBufferPointer<UInt8>, into line: inout SweepLine) -> String? {
        var problem = ""
        var fields = FieldCursor(bytes)
        guard let date = fields.next(), let time = fields.next() else {
            return "expected 'date, time, Hz low, Hz high, Hz step, samples, dB, …', found no commas"
        }
        guard let (micros, decimals) = clock.parseMicros(date: date, time: time) else {
            return "expected a date YYYY-MM-DD and a time HH:MM:SS in the first two columns"
        }
        line.timeMicros = micros
        line.timeDecimals = decimals
        line.timestamp = Double(micros) / 1e6
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
        guard let count = parseValues(fields.rest(), problem: &problem) else { return problem }
        guard count > 0 else { return "expected dB values after the 6 header columns, found none" }
        line.valueCount = count
        return nil
    }

    /// Parses the comma-separated dB values into `storage`; nil (and `problem`)
    /// if one is malformed. Plain decimals are parsed in place in one pass
    /// (the hot loop of a large import); anything else goes through
    /// `DecimalParser.float`, the same result the slower way.
    private func parseValues(_ text: UnsafeBufferPointer<UInt8>?, problem: inout String) -> Int? {
        guard let text, let start = text.baseAddress, text.count > 0 else {
            problem = "expected dB values after the 6 header columns, found none"
            return nil
        }
        let end = start + text.count
        var p = start
        var count = 0
        let space = UInt8(ascii: " "), comma = UInt8(ascii: ","), point = UInt8(ascii: ".")
        return DecimalParser.powersOfTen.withUnsafeBufferPointer { powers -> Int? in
            while true {
                while p < end && (p.pointee == space || p.pointee == UInt8(ascii: "\t")) { p += 1 }
                if p == end {
                    // nothing after the last comma: a trailing ", " is harmless
                    if count == 0 { problem = "expected dB values after the 6 header columns, found none" }
                    return count > 0 ? count : nil
                }
                let fieldStart = p
                var negative = false
                if p.pointee == UInt8(ascii: "-") { negative = true; p += 1 }
                var mantissa: UInt64 = 0
                var digits = 0
                var fractionDigits = 0
                var seenPoint = false
                while p < end {
                    let byte = p.pointee
                    let d = byte &- UInt8(ascii: "0")
                    if d < 10 {
                        mantissa = mantissa &* 10 &+ UInt64(d)
                        digits += 1
                        if seenPoint { fractionDigits += 1 }
                    } else if byte == point && !seenPoint {
                        seenPoint = true
                    } else {
                        break
                    }
                    p += 1
                }
                while p < end && (p.pointee == space || p.pointee == UInt8(ascii: "\t")) { p += 1 }
                var value: Float
                if digits > 0 && digits <= 15 && fractionDigits <= 8 && (p == end || p.pointee == comma) {
                    value = Float(Double(mantissa) / powers[fractionDigits])
                    if negative { value = -value }
                } else {
                    // not a plain decimal: the whole field through the general parser
                    p = fieldStart
                    while p < end && p.pointee != comma { p += 1 }
                    var fieldEnd = p
                    while fieldEnd > fieldStart && (fieldEnd - 1).pointee == space { fieldEnd -= 1 }
                    let field = UnsafeBufferPointer(start: fieldStart, count: fieldEnd - fieldStart)
                    guard let parsed = Self.nonFinite(field) ?? DecimalParser.float(field).map({ ($0, .c) }) else {
                        problem = field.isEmpty ? "column \(count + 7) is empty, expected a dB value"
                            : "column \(count + 7): expected a dB value, found '\(String(decoding: field.prefix(24), as: UTF8.self))'"
                        return nil
                    }
                    guard parsed.value != .infinity else {
                        problem = "column \(count + 7): \(parsed.value) is not a power (finite values, -inf and nan are)"
                        return nil
                    }
                    // NaN: the tool could not measure the bin ("no data"); −inf: zero power
                    if !parsed.value.isFinite && spelling == nil { spelling = parsed.spelling }
                    value = parsed.value
                }
                if count == capacity { grow() }
                storage[count] = value
                count += 1
                if p == end { return count }
                p += 1  // the comma
            }
        }
    }

    /// A value that is not a number, as C (`nan`, `-nan`, `-inf`) or the old
    /// Microsoft runtime (`-1.#J`, `1.#QNAN`, …) prints it; nil for anything else.
    static func nonFinite(_ field: UnsafeBufferPointer<UInt8>) -> (value: Float, spelling: NonFiniteSpelling)? {
        if field.contains(UInt8(ascii: "#")) || field.contains(UInt8(ascii: "$")) {
            return NonFiniteSpelling.parseMSVC(field).map { ($0.value, .msvc(decimals: $0.decimals)) }
        }
        var i = 0
        if field.first == UInt8(ascii: "-") || field.first == UInt8(ascii: "+") { i = 1 }
        let rest = UnsafeBufferPointer(rebasing: field[i...])
        /// the rest of the field is `word`, in any case
        func spells(_ word: StaticString) -> Bool {
            rest.count == word.utf8CodeUnitCount
                && zip(rest, UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
                    .allSatisfy { $0 | 0x20 == $1 }
        }
        let magnitude: Float
        if spells("nan") { magnitude = .nan } else if spells("inf") || spells("infinity") { magnitude = .infinity } else {
            return nil
        }
        return (field.first == UInt8(ascii: "-") ? -magnitude : magnitude, .c)
    }

    /// Doubles the value storage (only while the widest line so far is read).
    private func grow() {
        let bigger = UnsafeMutablePointer<Float>.allocate(capacity: capacity * 2)
        bigger.update(from: storage, count: capacity)
        storage.deallocate()
        storage = bigger
        capacity *= 2
    }

    /// values of the last parsed line, `count` of them
    func withValues<T>(count: Int, _ body: (UnsafeBufferPointer<Float>) -> T) -> T {
        body(UnsafeBufferPointer(start: storage, count: count))
    }
}
