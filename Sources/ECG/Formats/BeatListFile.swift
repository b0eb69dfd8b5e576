import Foundation
import Signals

/// Beat times without a signal: what a Holter export, a WFDB annotation file,
/// another program's beat list or a heart-rate strap's RR intervals give.
/// The rhythm engine reads these as it reads the beats its own QRS detector finds.
public struct BeatList: Sendable, Equatable {
    /// the file the beats came from (for messages)
    public var name: String
    /// the beat clock [Hz]: the record's sampling rate, or 1000 for RR intervals in ms
    public var sampleRate: Double
    /// beat times [samples of `sampleRate`], ascending
    public var samples: [Int]
    /// each beat's class where the file labels beats (WFDB annotation codes), nil where it has none
    public var classes: [BeatClass]?
    /// the end of the recording [samples]: the header's length, else the last beat
    public var endSample: Int
    /// intervals of 0 skipped (an app's marker of a lost beat)
    public var skippedIntervals = 0

    public init(name: String, sampleRate: Double, samples: [Int], classes: [BeatClass]? = nil, endSample: Int? = nil) {
        self.name = name
        self.sampleRate = sampleRate
        self.samples = samples
        self.classes = classes
        self.endSample = max(endSample ?? 0, (samples.last ?? 0) + 1)
    }

    /// length of the recording [s]
    public var duration: Double { Double(endSample) / sampleRate }
}

/// Reads beat lists: WFDB annotation files (beats and their labels) and RR-interval lists.
public enum BeatListFile {
    /// A record's annotations as beats: `record` names the record (`ltafdb/00`, with or without `.hea`),
    /// `annotator` the annotation file's extension (`qrs`, `atr`, …) or a path to the file itself.
    /// The sampling rate comes from the record's header (its signal files need not exist), else from
    /// the annotation file's `## time resolution` note, else `rate`.
    public static func readAnnotations(record: String, annotator: String, rate: Double? = nil) throws -> BeatList {
        let base = record.hasSuffix(".hea") ? String(record.dropLast(4)) : record
        // a name of letters, digits and _ is an annotator (the file's extension); anything else a path
        let isAnnotatorName = !annotator.isEmpty && annotator.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        let annotationPath = isAnnotatorName ? base + "." + annotator : annotator
        guard let data = FileManager.default.contents(atPath: annotationPath) else {
            throw ECGError(file: annotationPath, FileManager.default.fileExists(atPath: annotationPath)
                           ? "cannot read (permission?)" : "no such annotation file (--beats names the annotator: REC.ANN)")
        }
        let annotations = try WFDBAnnotationReader.read(contents: [UInt8](data), file: annotationPath)
        var sampleRate = rate
        var length: Int?
        let headerPath = base + ".hea"
        if FileManager.default.fileExists(atPath: headerPath) {
            let header = try WFDBHeader.parse(try InputError.readText(headerPath), file: headerPath)
            sampleRate = header.sampleRate
            length = header.sampleCount
        }
        if let resolution = try WFDBAnnotationReader.timeResolution(annotations, file: annotationPath) {
            sampleRate = resolution
        }
        guard let sampleRate, sampleRate.isFinite, sampleRate > 0 else {
            throw ECGError(file: annotationPath, "no sampling rate: expected the record's header \(headerPath) or --rate")
        }
        return try beats(from: annotations, file: annotationPath, sampleRate: sampleRate, length: length)
    }

    /// The beats among `annotations` with their EC57 classes (F as V: a fusion beat is partly ventricular).
    static func beats(from annotations: [WFDBAnnotation], file: String, sampleRate: Double, length: Int?) throws -> BeatList {
        var samples: [Int] = [], classes: [BeatClass] = []
        samples.reserveCapacity(annotations.count)
        classes.reserveCapacity(annotations.count)
        for annotation in annotations where annotation.isBeat {
            if let last = samples.last, annotation.sample < last {
                throw ECGError(file: file, "beat at sample \(annotation.sample) comes after one at \(last): expected times in order")
            }
            samples.append(annotation.sample)
            switch ReferenceBeatClass(mitCode: annotation.code) {
            case .normal: classes.append(.normal)
            case .supraventricular: classes.append(.supraventricular)
            case .ventricular, .fusion: classes.append(.ventricular)
            case .unclassifiable, nil: classes.append(.unclassifiable)
            }
        }
        guard samples.count >= 2 else { throw ECGError(file: file, "expected beat annotations, found \(samples.count)") }
        return BeatList(name: file, sampleRate: sampleRate, samples: samples, classes: classes, endSample: length)
    }

    /// The beat clock of RR lists [Hz]: intervals become beat times in milliseconds.
    public static let intervalClock = 1000.0

    /// An RR-interval list as heart-rate straps and HRV apps write them:
    /// - one interval per line in ms or s (Elite HRV; Kubios' plain input, `#` lines as comments), or all on
    ///   one line separated by spaces;
    /// - a table whose header names the interval column (Polar Sensor Logger's `Phone timestamp;RR-interval [ms]`,
    ///   HRV Logger's `timestamp, rr, since_start`, a Kubios report's `RR interval` column with `(s)` under it),
    ///   separated by `;`, `,`, tabs or spaces, after any preamble;
    /// - two columns without a header: time and interval (a Polar V800 export);
    /// - PhysioNet's `ann2rr -i s -v -V` (`start interval end` in samples, seconds, samples): the beats keep
    ///   the record's sample numbers and rate;
    /// - a Polar `.hrm` file in RR mode (`Interval=238`): the intervals under `[HRData]`.
    /// The unit is the header's (`[ms]`, `(s)`, `_ms`…), else ms when the median interval is above 10, seconds
    /// otherwise. Beats are the intervals' running sum on a 1 kHz clock, the first at 0: time stamps beside
    /// the intervals are not used (a phone may write when a notification arrived, not when the heart beat).
    /// An interval of 0 (an app's marker of a lost beat) is skipped and counted; an empty field is no interval.
    public static func readIntervals(path: String) throws -> BeatList {
        try parseIntervals(try InputError.readText(path), file: path)
    }

    package static func parseIntervals(_ text: String, file: String) throws -> BeatList {
        var lines: [(text: Substring, number: Int)] = []
        var lineNumber = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            lineNumber += 1
            var line = Substring(rawLine)
            if lineNumber == 1, line.first == "\u{FEFF}" { line = line.dropFirst() }
            line = line.drop { $0 == " " || $0 == "\t" }
            while let last = line.last, last == " " || last == "\t" { line = line.dropLast() }
            if line.isEmpty || line.first == "#" { continue }
            lines.append((line, lineNumber))
        }
        if let section = lines.firstIndex(where: { $0.text.lowercased() == "[hrdata]" }) {
            return try polarHRM(lines, dataFrom: section + 1, file: file)
        }
        guard let first = lines.first else { throw ECGError(file: file, "expected RR intervals, found an empty file") }
        // the header: the last line naming an interval column before the first number in that column
        // (a Kubios report names "RR Data" above "RR interval", and "(s)" below it)
        var header: (index: Int, column: Int, separator: Character)?
        var dataStart: Int?
        for (index, line) in lines.enumerated() {
            if let candidate = header {
                let fields = split(line.text, candidate.separator)
                if candidate.column < fields.count, number(fields[candidate.column]) != nil { dataStart = index; break }
            }
            let separator = separatorOf(line.text)
            let fields = split(line.text, separator)
            if isHeader(line.text, fields: fields, separator: separator), let column = intervalColumn(fields) {
                header = (index, column, separator)
            } else if header == nil, !fields.contains(where: { number($0) == nil && !$0.isEmpty }) {
                break   // numbers before any header: a list without one
            }
        }
        if dataStart == nil { header = nil }
        var values: [(value: Double, line: Int)] = []
        var scale: Double?
        var skipped = 0
        if let header {
            let headerFields = split(lines[header.index].text, header.separator)
            scale = unitScale(headerFields[header.column])
            // unit lines under the header (a Kubios report's "(s)"), before the first number
            for line in lines[(header.index + 1)..<dataStart!] where scale == nil {
                let fields = split(line.text, header.separator)
                if header.column < fields.count { scale = unitScale(fields[header.column]) }
            }
            var index = dataStart!
            while index < lines.count {
                let (line, lineNumber) = lines[index]
                index += 1
                let fields = split(line, header.separator)
                let field = header.column < fields.count ? fields[header.column] : ""
                if field.isEmpty { continue }
                guard let value = number(field) else {
                    throw ECGError(file: file, location: .line(lineNumber),
                                   "expected an RR interval in column \(header.column + 1), found \"\(field)\"")
                }
                try append(value, lineNumber, &values, &skipped, file: file)
            }
        } else {
            let separator = separatorOf(first.text)
            if let list = try ann2rrWithTimes(lines, separator: separator, file: file) { return list }
            for (line, lineNumber) in lines {
                let fields = split(line, separator).filter { !$0.isEmpty }
                // one interval, time and interval, or a row of intervals
                let chosen = fields.count == 2 ? [fields[1]] : fields
                for field in chosen {
                    guard let value = number(field) else {
                        throw ECGError(file: file, location: .line(lineNumber),
                                       "expected an RR interval or a header naming its column (RR, RR-interval [ms], rr_ms, ibi…), found \"\(field)\"")
                    }
                    try append(value, lineNumber, &values, &skipped, file: file)
                }
            }
        }
        return try beats(from: values, scale: scale, skipped: skipped, file: file)
    }

    /// PhysioNet `ann2rr -i s -v -V` output: `start interval end` per line, the start and end of each
    /// interval as sample numbers of the record and the interval in seconds, so the record's rate is
    /// (end − start) / interval and the beats keep the record's clock (a reference annotation file of the
    /// same record lines up). Nil when the lines are not three numbers agreeing that way.
    static func ann2rrWithTimes(_ lines: [(text: Substring, number: Int)], separator: Character, file: String) throws -> BeatList? {
        func row(_ line: Substring) -> (start: Int, interval: Double, end: Int)? {
            let fields = split(line, separator).filter { !$0.isEmpty }
            guard fields.count == 3, let start = Int(fields[0]), let interval = number(fields[1]), let end = Int(fields[2]),
                  start >= 0, end > start, interval.isFinite, interval > 0 else { return nil }
            return (start, interval, end)
        }
        // the rate: the median over the first rows (one damaged row does not set it)
        var ratios: [Double] = []
        for line in lines.prefix(64) {
            guard let row = row(line.text) else { return nil }
            ratios.append(Double(row.end - row.start) / row.interval)
        }
        guard !ratios.isEmpty else { return nil }
        var rate = median(ratios)
        guard rate >= 20, rate <= 100_000 else { return nil }
        if abs(rate - rate.rounded()) < 0.01 * rate { rate = rate.rounded() }
        var samples: [Int] = []
        samples.reserveCapacity(lines.count + 1)
        for (text, lineNumber) in lines {
            guard let row = row(text) else {
                throw ECGError(file: file, location: .line(lineNumber),
                               "expected ann2rr's `start interval end` (samples, seconds, samples) as on the lines above, found \"\(text)\"")
            }
            // the printed interval is rounded: allow its last decimal and a sample either way
            let expected = row.interval * rate
            guard abs(Double(row.end - row.start) - expected) <= max(1.5, 0.002 * expected) else {
                throw ECGError(file: file, location: .line(lineNumber),
                               String(format: "interval %g s does not match samples %d to %d at the file's %g Hz", row.interval, row.start, row.end, rate))
            }
            if let last = samples.last, row.start < last {
                throw ECGError(file: file, location: .line(lineNumber), "interval starts at sample \(row.start), before the end of the one above (\(last))")
            }
            // a start other than the last end: intervals left out between them (ann2rr prints only some kinds)
            if samples.last != row.start { samples.append(row.start) }
            samples.append(row.end)
        }
        return BeatList(name: file, sampleRate: rate, samples: samples)
    }

    /// A Polar `.hrm` file's `[HRData]`: RR intervals [ms] when `[Params]` says `Interval=238` (R-R recording);
    /// any other interval means heart rates sampled every so many seconds, not beats.
    static func polarHRM(_ lines: [(text: Substring, number: Int)], dataFrom start: Int, file: String) throws -> BeatList {
        let interval = lines.first { $0.text.lowercased().hasPrefix("interval=") }
        guard let interval, interval.text.dropFirst("interval=".count).trimmingCharacters(in: .whitespaces) == "238" else {
            throw ECGError(file: file, location: interval.map { .line($0.number) } ?? .whole,
                           "expected a Polar .hrm file recorded in R-R mode (Interval=238), found heart rates at a fixed interval")
        }
        var values: [(value: Double, line: Int)] = []
        var skipped = 0
        for (line, lineNumber) in lines[start...] {
            if line.first == "[" { break }
            let field = split(line, separatorOf(line)).first ?? ""
            guard let value = number(field) else {
                throw ECGError(file: file, location: .line(lineNumber), "expected an RR interval [ms], found \"\(field)\"")
            }
            try append(value, lineNumber, &values, &skipped, file: file)
        }
        return try beats(from: values, scale: 1, skipped: skipped, file: file)
    }

    static func append(_ value: Double, _ line: Int, _ values: inout [(value: Double, line: Int)], _ skipped: inout Int,
                       file: String) throws {
        guard value.isFinite, value >= 0 else {
            throw ECGError(file: file, location: .line(line), "expected an RR interval of 0 or more, found \(value)")
        }
        if value == 0 { skipped += 1 } else { values.append((value, line)) }
    }

    /// Beats at the running sum of the intervals [ms], the first at 0; `scale` ms per unit, nil to judge by size.
    static func beats(from values: [(value: Double, line: Int)], scale: Double?, skipped: Int, file: String) throws -> BeatList {
        guard values.count >= 2 else { throw ECGError(file: file, "expected RR intervals, found \(values.count)") }
        let scale = scale ?? (median(values.map(\.value)) > 10 ? 1 : 1000)
        var samples: [Int] = [0]
        samples.reserveCapacity(values.count + 1)
        var elapsed = 0.0
        for (value, line) in values {
            elapsed += value * scale
            guard elapsed < Double(Int32.max) else {
                throw ECGError(file: file, location: .line(line), "the intervals add up to more than 24 days")
            }
            samples.append(Int(elapsed.rounded()))
        }
        var list = BeatList(name: file, sampleRate: intervalClock, samples: samples)
        list.skippedIntervals = skipped
        return list
    }

    /// `;` where the line has one, else `,`, else a tab, else spaces
    static func separatorOf(_ line: Substring) -> Character {
        line.contains(";") ? ";" : line.contains(",") ? "," : line.contains("\t") ? "\t" : " "
    }

    /// Whether a line can be a table's header: a name where a number would be, no `key: value` (a report's
    /// preamble line), and when split by spaces, a few short names, not a sentence.
    static func isHeader(_ line: Substring, fields: [String], separator: Character) -> Bool {
        guard fields.contains(where: { number($0) == nil && !$0.isEmpty }) else { return false }
        var depth = 0
        for character in line {
            if character == "[" || character == "(" { depth += 1 } else if character == "]" || character == ")" {
                depth = max(0, depth - 1)
            } else if character == ":", depth == 0 { return false }
        }
        return separator != " " || fields.count <= 4
    }

    /// interval column names, lower case, letters only, without a unit
    static let intervalNames: Set<String> = ["rr", "rri", "rrinterval", "ibi", "interbeatinterval", "nn", "nni", "nninterval",
                                             "ppi", "ppinterval", "interval", "beatinterval"]

    /// the first column named as an interval (`RR-interval [ms]`, `rr_ms`, `RR (s)`, `RR interval`, `IBI`, `NN`,
    /// `PP-interval [ms]`): the name without what is in brackets, letters only, less a trailing unit
    static func intervalColumn(_ fields: [String]) -> Int? {
        fields.firstIndex { field in
            var name = ""
            var depth = 0
            for character in field.lowercased() {
                if character == "[" || character == "(" { depth += 1 } else if character == "]" || character == ")" {
                    depth = max(0, depth - 1)
                } else if depth == 0, character.isLetter { name.append(character) }
            }
            for unit in ["msec", "sec", "ms", "s"] where name.hasSuffix(unit) && intervalNames.contains(String(name.dropLast(unit.count))) {
                return true
            }
            return intervalNames.contains(name)
        }
    }

    /// ms per unit of the header's unit, nil when it names none
    static func unitScale(_ name: String) -> Double? {
        let lower = name.lowercased()
        if lower.contains("[ms]") || lower.contains("(ms)") || lower.hasSuffix("_ms") || lower.hasSuffix(" ms")
            || lower.hasSuffix("msec") || lower == "ms" { return 1 }
        if lower.contains("[s]") || lower.contains("(s)") || lower.hasSuffix("_s") || lower.hasSuffix(" s")
            || lower.hasSuffix("sec") { return 1000 }
        return nil
    }

    static func split(_ line: Substring, _ separator: Character) -> [String] {
        if separator == " " {
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        }
        return line.split(separator: separator, omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func number(_ field: String) -> Double? {
        guard !field.isEmpty, field.first != "+" || field.count > 1 else { return nil }
        return Double(field)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
