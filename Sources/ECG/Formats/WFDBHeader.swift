/// A WFDB record header (`.hea`), single-segment records only.
///
/// Layout from the WFDB header(5) specification (PhysioNet, "WFDB Applications
/// Guide"): comment lines start with `#`; the record line is
/// `name[/segments] nsig [fs[/counterfreq][(basecounter)] [nsamples [time [date]]]]`;
/// then one line per signal:
/// `file format[xspf][:skew][+offset] [gain[(baseline)][/units] [adcres [adczero [init [checksum [blocksize [description]]]]]]]`.
public struct WFDBHeader: Sendable, Equatable {
    public var recordName: String
    /// frames per second [Hz]: a signal's rate when it has one sample per frame
    /// (`WFDBSignalSpec.sampleRate(frameRate:)` for the others)
    public var sampleRate: Double
    /// frames (samples of a one-per-frame signal), nil when the header leaves it out (derive from the data)
    public var sampleCount: Int?
    public var signals: [WFDBSignalSpec]
    /// comment lines without the leading `#`
    public var comments: [String]
    /// the record's start: base time "hh:mm:ss" and base date "dd/mm/yyyy" as written, nil when left out
    public var baseTime: String?
    public var baseDate: String?

    /// WFDB's default sampling frequency when the record line omits it [Hz]
    static let defaultSampleRate = 250.0

    public init(recordName: String, sampleRate: Double, sampleCount: Int?, signals: [WFDBSignalSpec], comments: [String]) {
        self.recordName = recordName
        self.sampleRate = sampleRate
        self.sampleCount = sampleCount
        self.signals = signals
        self.comments = comments
    }

    /// Parses header text; `file` names the header in errors.
    public static func parse(_ text: String, file: String) throws -> WFDBHeader {
        var comments: [String] = []
        var record: (name: String, signalCount: Int, rate: Double, count: Int?, time: String?, date: String?)?
        var signals: [WFDBSignalSpec] = []
        var lineNumber = 0
        // "\r\n" is one Character in Swift, and a newline like "\n"
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            if trimmed.first == "#" {
                comments.append(String(trimmed.dropFirst()).trimmingSpaces())
                continue
            }
            let fields = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.isEmpty { continue }
            if let known = record {
                guard signals.count < known.signalCount else {
                    throw ECGError(file: file, location: .line(lineNumber),
                                   "more signal lines than the \(known.signalCount) the record line declares")
                }
                signals.append(try WFDBSignalSpec.parse(fields: fields, line: trimmed, file: file, lineNumber: lineNumber))
            } else {
                record = try parseRecordLine(fields, file: file, lineNumber: lineNumber)
            }
        }
        guard let record else {
            throw ECGError(file: file, "no record line: expected `name nsig [fs [nsamples]]`")
        }
        guard signals.count == record.signalCount else {
            throw ECGError(file: file, location: .line(lineNumber),
                           "record line declares \(record.signalCount) signals, found \(signals.count) signal lines")
        }
        var header = WFDBHeader(recordName: record.name, sampleRate: record.rate, sampleCount: record.count,
                                signals: signals, comments: comments)
        header.baseTime = record.time
        header.baseDate = record.date
        return header
    }

    private static func parseRecordLine(
        _ fields: [Substring], file: String, lineNumber: Int
    ) throws -> (name: String, signalCount: Int, rate: Double, count: Int?, time: String?, date: String?) {
        let name = fields[0]
        if name.contains("/") {
            throw ECGError(file: file, location: .line(lineNumber), "multi-segment records are not supported")
        }
        guard fields.count >= 2, let signalCount = Int(fields[1]), signalCount >= 1, signalCount <= 4096 else {
            throw ECGError(file: file, location: .line(lineNumber),
                           "expected `name nsig [fs [nsamples]]` with 1 to 4096 signals")
        }
        var rate = defaultSampleRate
        if fields.count >= 3 {
            // "360", "360/720", "360(0)": the sampling frequency is the leading number
            let text = fields[2].prefix(while: { $0 != "/" && $0 != "(" })
            guard let value = Double(text), value.isFinite, value > 0 else {
                throw ECGError(file: file, location: .line(lineNumber),
                               "expected a positive sampling frequency [Hz], found \"\(fields[2])\"")
            }
            rate = value
        }
        var count: Int?
        if fields.count >= 4 {
            guard let value = Int(fields[3]), value >= 0 else {
                throw ECGError(file: file, location: .line(lineNumber),
                               "expected a sample count, found \"\(fields[3])\"")
            }
            count = value == 0 ? nil : value
        }
        let time = fields.count >= 5 ? String(fields[4]) : nil
        let date = fields.count >= 6 ? String(fields[5]) : nil
        return (String(name), signalCount, rate, count, time, date)
    }
}

/// One signal line of a WFDB header.
public struct WFDBSignalSpec: Sendable, Equatable {
    /// data file name relative to the header
    public var fileName: String
    /// storage format, e.g. 212 or 16
    public var format: Int
    /// bytes to skip at the start of the data file
    public var byteOffset: Int
    /// samples of this signal in each frame (`212x4`: 4 per frame, 4 × the frame rate)
    public var samplesPerFrame: Int = 1
    /// frames by which this signal's samples lag in the file (`:4`): sample t is stored in frame t + skew
    public var skew: Int = 0
    /// analog-to-digital units per physical unit [adu/mV]
    public var gain: Double
    /// adu value of 0 physical units
    public var baseline: Int
    /// physical units, "mV" when not given
    public var units: String
    /// ADC resolution [bits]
    public var adcResolution: Int
    public var adcZero: Int
    /// first sample value [adu], if given
    public var initialValue: Int?
    /// 16-bit sum of all samples, if given
    public var checksum: Int?
    public var blockSize: Int
    /// lead name, e.g. "MLII"
    public var description: String

    /// WFDB's gain when a header gives none or 0 (uncalibrated) [adu/mV]
    static let defaultGain = 200.0
    /// bounds that keep a hostile header from asking for absurd allocations
    static let maximumSamplesPerFrame = 1 << 12
    static let maximumSkew = 1 << 20

    /// samples per second of this signal in a record of `frameRate` frames per second [Hz]
    public func sampleRate(frameRate: Double) -> Double { frameRate * Double(samplesPerFrame) }

    static func parse(fields: [Substring], line: Substring, file: String, lineNumber: Int) throws -> WFDBSignalSpec {
        func fail(_ detail: String) -> ECGError { ECGError(file: file, location: .line(lineNumber), detail) }
        guard fields.count >= 2 else { throw fail("expected `file format [gain ...]` on a signal line") }
        var spec = WFDBSignalSpec(
            fileName: String(fields[0]), format: 0, byteOffset: 0, gain: defaultGain, baseline: 0, units: "mV",
            adcResolution: 12, adcZero: 0, initialValue: nil, checksum: nil, blockSize: 0, description: "")

        // format[xspf][:skew][+offset]
        let formatField = fields[1]
        guard let format = Int(formatField.prefix(while: { $0.isASCII && $0.isNumber })) else {
            throw fail("expected a numeric storage format, found \"\(formatField)\"")
        }
        spec.format = format
        if let plus = formatField.firstIndex(of: "+") {
            guard let offset = Int(formatField[formatField.index(after: plus)...]), offset >= 0 else {
                throw fail("expected a byte offset after \"+\" in \"\(formatField)\"")
            }
            spec.byteOffset = offset
        }
        if let times = formatField.firstIndex(of: "x") {
            let spf = formatField[formatField.index(after: times)...].prefix(while: { $0.isASCII && $0.isNumber })
            guard let value = Int(spf), (1...maximumSamplesPerFrame).contains(value) else {
                throw fail("expected 1 to \(maximumSamplesPerFrame) samples per frame after \"x\" in \"\(formatField)\"")
            }
            spec.samplesPerFrame = value
        }
        if let colon = formatField.firstIndex(of: ":") {
            let skew = formatField[formatField.index(after: colon)...].prefix(while: { $0.isASCII && $0.isNumber })
            guard let value = Int(skew), value <= maximumSkew else {
                throw fail("expected a skew of 0 to \(maximumSkew) frames after \":\" in \"\(formatField)\"")
            }
            spec.skew = value
        }

        var hasBaseline = false
        if fields.count >= 3 {
            // gain[(baseline)][/units]
            var gainField = fields[2]
            if let slash = gainField.firstIndex(of: "/") {
                spec.units = String(gainField[gainField.index(after: slash)...])
                gainField = gainField[..<slash]
            }
            if let open = gainField.firstIndex(of: "(") {
                guard gainField.last == ")",
                      let baseline = Int(gainField[gainField.index(after: open)..<gainField.index(before: gainField.endIndex)])
                else { throw fail("expected gain(baseline), found \"\(fields[2])\"") }
                spec.baseline = baseline
                hasBaseline = true
                gainField = gainField[..<open]
            }
            guard let gain = Double(gainField), gain.isFinite, gain >= 0 else {
                throw fail("expected a gain [adu/\(spec.units)], found \"\(fields[2])\"")
            }
            spec.gain = gain == 0 ? defaultGain : gain
        }
        func integer(_ index: Int, _ what: String) throws -> Int? {
            guard fields.count > index else { return nil }
            guard let value = Int(fields[index]) else { throw fail("expected \(what), found \"\(fields[index])\"") }
            return value
        }
        // 0 means "not given": the default stands (WFDB header(5); the Long-Term AF Database writes 0)
        if let value = try integer(3, "an ADC resolution [bits]"), value != 0 {
            guard (1...32).contains(value) else { throw fail("ADC resolution \(value) bits is out of range 1…32") }
            spec.adcResolution = value
        }
        if let value = try integer(4, "an ADC zero [adu]") { spec.adcZero = value }
        spec.initialValue = try integer(5, "an initial value [adu]")
        spec.checksum = try integer(6, "a checksum")
        if let value = try integer(7, "a block size") { spec.blockSize = value }
        if !hasBaseline { spec.baseline = spec.adcZero }
        if fields.count >= 9 {
            // the description is the rest of the line and may contain spaces
            let start = fields[8].startIndex
            spec.description = String(line[start...]).trimmingSpaces()
        }
        return spec
    }
}

extension String {
    /// without leading and trailing spaces, tabs and carriage returns
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
