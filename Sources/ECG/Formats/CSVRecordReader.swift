import Foundation

/// How to read the numbers of an ECG CSV file.
public struct CSVReadOptions: Sendable {
    /// samples per second [Hz]: required without a time column; with one, the rate it must have
    public var rate: Double?
    /// ADC units per mV (physical = (value − baseline) / gain × the header's unit)
    public var gain: Double
    /// ADC value of 0 mV
    public var baseline: Double

    public init(rate: Double? = nil, gain: Double = 1, baseline: Double = 0) {
        self.rate = rate
        self.gain = gain
        self.baseline = baseline
    }
}

/// A CSV record and what reading it tolerated (for stderr).
public struct CSVRecording: Sendable {
    public var record: ECGRecord
    /// one line per kind of thing tolerated: timestamps going back, gaps, empty fields
    public var notes: [String]
}

/// Reads an ECG in CSV, as boards, phones, Python tools and spreadsheets write it:
///
/// - columns separated by commas, semicolons (then a decimal comma is allowed)
///   or whitespace, guessed from the first line; `#` lines are comments;
/// - an optional header: a first line with any non-numeric field names the
///   columns; without one every column is a lead and `--rate` is required;
/// - a time column when the header names the first column so (`time`, `t`,
///   `time_s`, `ms`, `timestamp`, …; milliseconds when the name says `ms`,
///   microseconds for `us`/`µs`), every further column a lead; the rate is
///   measured from the time column (mean of the steps within half and one and
///   a half of the median step, robust to jitter and to gaps);
/// - a first column named `sample`, `index`, `n` or `row` holds row numbers:
///   it is dropped and `--rate` is required;
/// - units per lead from the header (`ecg_uv`, `II [µV]`, `V1 (mV)`: µV, uV,
///   mV, microvolts, millivolts) scaled to mV; ADC units with `gain`/`baseline`.
///
/// Timestamps are placed on the nominal grid in file order: a sample whose
/// time goes back by less than `backwardTolerance` sample periods (device clocks
/// rebuilt per BLE packet jitter so) simply follows the previous one and is
/// counted; a forward jump of more than `gapTolerance` periods is a gap, filled
/// with missing samples (NaN) and counted. A longer step back is an error.
public enum CSVRecordReader {
    /// largest relative disagreement allowed between a declared and the measured rate
    static let rateTolerance = 0.01
    /// steps back tolerated [sample periods]
    static let backwardTolerance = 8.0
    /// a time ahead of the grid by more than this is a gap [sample periods]
    static let gapTolerance = 3.0
    /// longest gap filled with missing samples [s]
    static let longestGap = 3600.0

    public static func read(path: String, options: CSVReadOptions = CSVReadOptions()) throws -> CSVRecording {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ECGError(file: path, FileManager.default.fileExists(atPath: path) ? "cannot read (permission?)" : "no such file")
        }
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        return try parse(String(decoding: data, as: UTF8.self), file: path, name: name, options: options)
    }

    /// The record alone, with a declared rate (the `time,lead,…` reader's old entry point).
    public static func read(path: String, declaredRate: Double?) throws -> ECGRecord {
        try read(path: path, options: CSVReadOptions(rate: declaredRate)).record
    }

    package static func parse(_ text: String, file: String, name: String, declaredRate: Double?) throws -> ECGRecord {
        try parse(text, file: file, name: name, options: CSVReadOptions(rate: declaredRate)).record
    }

    enum Separator { case comma, semicolon, whitespace }

    /// Calls `body` with the fields of every line that is not empty or a `#`
    /// comment, its 1-based line number and the separator guessed from the first such line.
    static func rows(_ text: String, _ body: (_ fields: [String], _ line: Int, _ separator: Separator) throws -> Void) rethrows {
        var separator: Separator?
        var lineNumber = 0
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            lineNumber += 1
            let trimmed = String(line).trimmingSpaces()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let chosen = separator ?? (trimmed.contains(";") ? .semicolon : trimmed.contains(",") ? .comma : .whitespace)
            separator = chosen
            try body(split(trimmed, chosen), lineNumber, chosen)
        }
    }

    package static func parse(_ text: String, file: String, name: String, options: CSVReadOptions) throws -> CSVRecording {
        var columnCount = 0
        var names: [String]?
        var hasTime = false
        var dropsIndex = false
        var times: [Double] = []
        var timeLines: [Int] = []
        var columns: [[Float]] = []
        var emptyFields = 0
        try rows(text) { fields, lineNumber, chosen in
            if columnCount == 0 {
                columnCount = fields.count
                if fields.contains(where: { number($0, chosen) == nil && !$0.isEmpty }) {
                    names = fields
                    // a first column of times, or of row numbers (dropped: the rate comes from --rate)
                    hasTime = isTimeName(fields[0]) || isIndexName(fields[0])
                    dropsIndex = isIndexName(fields[0])
                    if hasTime && fields.count < 2 {
                        throw ECGError(file: file, location: .line(lineNumber),
                                       "expected a header `time,lead,…` with a time column and at least one lead")
                    }
                    columns = Array(repeating: [], count: fields.count - (hasTime ? 1 : 0))
                    return
                }
                columns = Array(repeating: [], count: fields.count)
            }
            guard fields.count == columnCount else {
                throw ECGError(file: file, location: .line(lineNumber),
                               "expected \(columnCount) columns as \(names == nil ? "in the first row" : "in the header"), found \(fields.count)")
            }
            if hasTime {
                guard let time = number(fields[0], chosen), time.isFinite else {
                    throw ECGError(file: file, location: .line(lineNumber), "expected a time, found \"\(fields[0])\"")
                }
                times.append(time)
                timeLines.append(lineNumber)
            }
            let first = hasTime ? 1 : 0
            for column in columns.indices {
                let field = fields[column + first]
                if field.isEmpty {
                    emptyFields += 1
                    columns[column].append(.nan)
                    continue
                }
                // NaN is kept as a missing sample; anything else unreadable is an error
                guard let value = number(field, chosen) else {
                    let label = names.map { " (\($0[column + first]))" } ?? ""
                    throw ECGError(file: file, location: .line(lineNumber),
                                   "expected a number [mV] in column \(column + first + 1)\(label), found \"\(field)\"")
                }
                columns[column].append(Float(value))
            }
        }
        let rows = columns.first?.count ?? 0
        guard columnCount > 0, rows >= 2 else {
            throw ECGError(file: file, "expected at least two rows of samples")
        }
        var notes: [String] = []
        if emptyFields > 0 { notes.append("\(emptyFields) empty fields read as missing samples") }

        // units: the header's, then the ADC conversion
        let leadNames = names.map { Array($0.dropFirst(hasTime ? 1 : 0)) } ?? (1...columns.count).map { "\($0)" }
        let gain = options.gain == 0 ? 1 : options.gain
        for column in columns.indices {
            let unit = names == nil ? 1 : millivoltsPerUnit(inName: leadNames[column])
            if unit == 1 && gain == 1 && options.baseline == 0 { continue }
            // in Double, so that 1000 µV is exactly the Float nearest 1 mV
            let scale = unit / gain
            let baseline = options.baseline
            columns[column] = columns[column].map { Float((Double($0) - baseline) * scale) }
        }

        // found by ECGLineFuzz: a declared rate of 0 made a record of rate 0
        if let declared = options.rate, !(declared.isFinite && declared > 0) {
            throw ECGError(file: file, "sample rate \(declared) Hz: expected a positive rate")
        }
        guard hasTime && !dropsIndex else {
            guard let rate = options.rate else {
                throw ECGError(file: file, "no time column\(names == nil ? " (no header)" : ""): give the sample rate with --rate")
            }
            return CSVRecording(record: ECGRecord(name: name, sampleRate: rate, leadNames: leadNames, samples: columns),
                                notes: notes)
        }

        let timeScale = timeUnit(names?[0] ?? "")
        let measured = try measuredRate(times, scale: timeScale, file: file)
        if let declared = options.rate, abs(declared - measured) > rateTolerance * measured {
            throw ECGError(file: file, "declared rate \(declared) Hz does not match the time column (\(String(format: "%.3f", measured)) Hz)")
        }
        let rate = options.rate ?? measured
        // found by ECGLineFuzz: microsecond time steps gave a rate whose gaps asked for terabytes of missing samples
        guard rate <= Self.maximumRate else {
            throw ECGError(file: file, String(format: "the time column gives %.0f Hz: more than the %.0f Hz an ECG is sampled at",
                                              rate, Self.maximumRate))
        }
        let (samples, gridNotes) = try placeOnGrid(columns, times: times, lines: timeLines, scale: timeScale, rate: rate, file: file)
        return CSVRecording(record: ECGRecord(name: name, sampleRate: rate, leadNames: leadNames, samples: samples),
                            notes: notes + gridNotes)
    }

    /// the highest sample rate a CSV's time column may give [Hz] (ECG hardware samples at 50 Hz to a few kHz)
    static let maximumRate = 100_000.0
    /// the most missing samples one gap is filled with (10 M: 83 min at 2 kHz, 40 MB per lead)
    static let longestGapSamples = 10_000_000

    /// Rate from the time column [Hz]: the mean of the steps between half and
    /// one and a half times the median step, rounded to a whole Hz when within 0.05 %.
    static func measuredRate(_ times: [Double], scale: Double, file: String) throws -> Double {
        var steps = zip(times.dropFirst(), times).map { ($0 - $1) * scale }
        steps.sort()
        let median = steps[steps.count / 2]
        guard median > 0 else {
            throw ECGError(file: file, "the time column does not increase (median step \(median))")
        }
        let typical = steps.filter { $0 >= 0.5 * median && $0 <= 1.5 * median }
        let rate = Double(typical.count) / typical.reduce(0, +)
        let whole = rate.rounded()
        return abs(rate - whole) <= 0.0005 * rate ? whole : rate
    }

    /// Samples in file order on the grid of `rate`; gaps filled with NaN.
    static func placeOnGrid(_ columns: [[Float]], times: [Double], lines: [Int], scale: Double, rate: Double,
                            file: String) throws -> ([[Float]], [String]) {
        var output = columns.map { column -> [Float] in
            var lead = [Float]()
            lead.reserveCapacity(column.count)
            return lead
        }
        var slot = -1
        var backSteps = 0
        var largestBack = 0.0
        var gaps = 0
        var gapSamples = 0
        for row in times.indices {
            let position = (times[row] - times[0]) * scale * rate // [samples]
            if row > 0 {
                let step = (times[row] - times[row - 1]) * scale
                if step <= 0 {
                    if -step * rate > backwardTolerance {
                        throw ECGError(file: file, location: .line(lines[row]),
                                       String(format: "time goes back by %.3f s (more than %.0f sample periods)", -step, backwardTolerance))
                    }
                    backSteps += 1
                    largestBack = max(largestBack, -step)
                }
            }
            var next = slot + 1
            if position - Double(next) > gapTolerance {
                // in seconds before any conversion to a sample count: a time of 1e300 must not overflow Int
                // (found by ECGLineFuzz: a trap, "Double value cannot be converted to Int")
                let jumpSeconds = (position - Double(next)) / rate
                // and at most longestGapSamples of them (memory: the gap is filled with missing samples)
                guard jumpSeconds <= longestGap, jumpSeconds * rate <= Double(Self.longestGapSamples) else {
                    throw ECGError(file: file, location: .line(lines[row]),
                                   String(format: "time jumps ahead by %.0f s: longer than the %.0f s a gap may last", jumpSeconds, longestGap))
                }
                let missing = Int(position.rounded()) - next
                for lead in output.indices { output[lead].append(contentsOf: repeatElement(.nan, count: missing)) }
                gaps += 1
                gapSamples += missing
                next += missing
            }
            for lead in output.indices { output[lead].append(columns[lead][row]) }
            slot = next
        }
        var notes: [String] = []
        if backSteps > 0 {
            notes.append(String(format: "%d timestamps went back (at most %.0f ms): kept in file order on the %@ Hz grid",
                                backSteps, largestBack * 1000, rateText(rate)))
        }
        if gaps > 0 {
            notes.append(String(format: "%d gaps in the time column (%.2f s in all) filled with missing samples", gaps, Double(gapSamples) / rate))
        }
        return (output, notes)
    }

    static func rateText(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(format: "%.3f", rate)
    }

    static func split(_ line: String, _ separator: Separator) -> [String] {
        switch separator {
        case .comma: return line.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() }
        case .semicolon: return line.split(separator: ";", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() }
        case .whitespace: return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        }
    }

    /// A number as the file writes it (a decimal comma where `;` separates columns).
    static func number(_ field: String, _ separator: Separator) -> Double? {
        if let value = Double(field) { return value }
        if separator == .semicolon, field.contains(",") { return Double(field.replacingOccurrences(of: ",", with: ".")) }
        return nil
    }

    /// words of a column name, lowercased: "ecg_uv" → ["ecg", "uv"], "II [µV]" → ["ii", "µv"]
    static func words(_ name: String) -> [String] {
        name.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    static func isIndexName(_ name: String) -> Bool {
        ["sample", "samples", "index", "idx", "n", "row"].contains(words(name).joined())
    }

    static func isTimeName(_ name: String) -> Bool {
        let timeWords: Set<String> = ["time", "t", "ms", "s", "sec", "secs", "seconds", "timestamp", "elapsed", "us", "µs", "μs"]
        let parts = words(name)
        return parts.contains(where: timeWords.contains) || parts.first?.hasPrefix("time") == true
    }

    /// seconds per unit of the time column
    static func timeUnit(_ name: String) -> Double {
        let parts = words(name)
        if parts.contains(where: { ["us", "µs", "μs", "micros"].contains($0) }) { return 1e-6 }
        if parts.contains(where: { ["ms", "millis", "milliseconds"].contains($0) }) || name.lowercased().contains("ms") { return 0.001 }
        return 1
    }

    /// mV per unit a lead's name states ("ecg_uv" → 0.001); 1 when it states none
    static func millivoltsPerUnit(inName name: String) -> Double {
        for part in words(name).reversed() {
            switch part {
            case "uv", "µv", "μv", "microvolts", "microvolt": return 0.001
            case "mv", "millivolts", "millivolt": return 1
            default: continue
            }
        }
        return 1
    }
}
