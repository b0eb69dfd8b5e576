/// One signal of a record as the file stores it: digital values at the
/// signal's own rate, with the scaling to physical units.
public struct ECGSignal: Sendable, Equatable {
    /// lead or signal name ("MLII", "EKG I", "ABP")
    public var label: String
    /// samples per second of this signal [Hz]
    public var sampleRate: Double
    /// physical units as the file names them ("mV", "uV", "mmHg", "")
    public var units: String
    /// digital units per physical unit [adu/unit]; negative for inverted polarity (EDF physical max < min)
    public var gain: Double
    /// digital value of 0 physical units [adu]
    public var baseline: Double
    /// smallest and largest digital value the format or ADC can hold [adu]
    public var digitalRange: ClosedRange<Int>
    /// digital value that marks a missing sample (WFDB), nil when the format has none (EDF)
    public var missingValue: Int16?
    /// samples as stored [adu]
    public var digital: [Int16]

    public init(label: String, sampleRate: Double, units: String, gain: Double, baseline: Double,
                digitalRange: ClosedRange<Int>, missingValue: Int16?, digital: [Int16]) {
        self.label = label
        self.sampleRate = sampleRate
        self.units = units
        self.gain = gain
        self.baseline = baseline
        self.digitalRange = digitalRange
        self.missingValue = missingValue
        self.digital = digital
    }

    /// The samples in mV: (adu − baseline) / gain, scaled from the units; units that
    /// are not voltages (mmHg, "") stay as they are. Missing samples become NaN.
    public var millivolts: [Float] {
        let scale = Self.millivoltsPerUnit(units) / gain
        let missing = missingValue
        let baseline = baseline
        // written through buffer pointers: `map`'s closure cost more than the arithmetic
        return [Float](unsafeUninitializedCapacity: digital.count) { output, initialized in
            digital.withUnsafeBufferPointer { input in
                for index in input.indices {
                    let value = input[index]
                    output[index] = value == missing ? .nan : Float((Double(value) - baseline) * scale)
                }
            }
            initialized = digital.count
        }
    }

    /// how many mV one of `units` is; 1 for units that are not voltages
    public static func millivoltsPerUnit(_ units: String) -> Double {
        switch units {
        case "uV", "µV", "μV", "microvolts": return 0.001
        case "nV": return 0.000_001
        case "V": return 1000
        default: return 1
        }
    }
}

/// An annotation of a record in time: a beat, a rhythm change, a note.
public struct ECGAnnotation: Sendable, Equatable {
    /// time from the start of the record [s]
    public var onset: Double
    /// length [s], nil for an instant
    public var duration: Double?
    /// "N", "V", "(AFIB", "Lights off", …
    public var text: String
    /// the annotation marks a QRS complex (a reference beat)
    public var isBeat: Bool

    public init(onset: Double, duration: Double? = nil, text: String, isBeat: Bool) {
        self.onset = onset
        self.duration = duration
        self.text = text
        self.isBeat = isBeat
    }

    /// Beat labels in free-text annotations (EDF+): WFDB's beat mnemonics and
    /// the words exporters use ("R", "QRS", "beat").
    static let beatTexts: Set<String> = [
        "N", "L", "R", "B", "A", "a", "J", "S", "V", "r", "F", "e", "j", "n", "E", "/", "f", "Q", "?",
        "QRS", "R-peak", "R peak", "Rpeak", "beat", "Beat", "heartbeat", "Heartbeat",
    ]

    /// whether free text names a beat
    public static func textMarksBeat(_ text: String) -> Bool {
        beatTexts.contains(text.trimmingSpaces())
    }
}

/// A lead asked for on the command line: an index counting from 0, or a label
/// matched exactly (`EKG I` is not `EKG II`).
public enum LeadSelector: Sendable, Equatable, CustomStringConvertible {
    case index(Int)
    case label(String)

    /// "2" is index 2; anything else is a label.
    public init(_ text: String) {
        if let index = Int(text), index >= 0 { self = .index(index) } else { self = .label(text) }
    }

    public var description: String {
        switch self {
        case .index(let index): return "\(index)"
        case .label(let label): return "\"\(label)\""
        }
    }

    /// The index of the chosen lead among `labels`; the error lists the labels.
    public func resolve(in labels: [String], file: String) throws -> Int {
        let found: Int?
        switch self {
        case .index(let index): found = index < labels.count ? index : nil
        // the exact label first, then the standard lead it names ("II" finds "EKG II", "MLII", "ii")
        case .label(let label): found = labels.firstIndex(of: label) ?? ECGLeadName.index(of: label, in: labels)
        }
        guard let found else {
            let list = labels.enumerated().map { "\($0.offset) \"\($0.element)\"" }.joined(separator: ", ")
            throw ECGError(file: file, "no lead \(description): the leads are \(list)")
        }
        return found
    }
}

/// When a record starts: a time of day, and the date when the file gives one.
public struct ECGStartTime: Sendable, Equatable {
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// day, month (1–12), four-digit year
    public var date: (day: Int, month: Int, year: Int)?

    public init(hour: Int, minute: Int, second: Int, date: (day: Int, month: Int, year: Int)? = nil) {
        self.hour = hour
        self.minute = minute
        self.second = second
        self.date = date
    }

    public static func == (a: ECGStartTime, b: ECGStartTime) -> Bool {
        a.hour == b.hour && a.minute == b.minute && a.second == b.second
            && a.date?.day == b.date?.day && a.date?.month == b.date?.month && a.date?.year == b.date?.year
    }

    /// From WFDB's "hh:mm:ss[.sss]" and "dd/mm/yyyy"; nil when the time does not read.
    /// Headers written by other tools also carry an ISO date "yyyy-mm-dd", and
    /// some (PhysioNet's CinC 2017 set: `A00001 1 300 9000 2014-05-08 05:05:15`)
    /// put it before the time: either order and either date form is read.
    public init?(wfdbTime time: String?, date: String?) {
        var time = time, date = date
        if let first = time, first.contains("-") || first.contains("/"), date?.contains(":") ?? false {
            (time, date) = (date, first)
        }
        guard let time else { return nil }
        let parts = time.split(separator: ":").map { Double($0) }
        guard parts.count == 3, let h = parts[0], let m = parts[1], let s = parts[2],
              (0..<24).contains(h), (0..<60).contains(m), (0..<61).contains(s) else { return nil }
        self.init(hour: Int(h), minute: Int(m), second: Int(s))
        if let date {
            if date.contains("-") {
                let fields = date.split(separator: "-").compactMap { Int($0) }
                if fields.count == 3, (1...12).contains(fields[1]), (1...31).contains(fields[2]) {
                    self.date = (fields[2], fields[1], fields[0])
                }
            } else {
                let fields = date.split(separator: "/").compactMap { Int($0) }
                if fields.count == 3, (1...31).contains(fields[0]), (1...12).contains(fields[1]) {
                    self.date = (fields[0], fields[1], fields[2])
                }
            }
        }
    }

    /// WFDB's record-line fields: "hh:mm:ss" and "dd/mm/yyyy" (nil without a date).
    public var wfdb: (time: String, date: String?) {
        (String(format: "%02d:%02d:%02d", hour, minute, second),
         date.map { String(format: "%02d/%02d/%04d", $0.day, $0.month, $0.year) })
    }
}

/// A record as stored: every signal at its own rate, in digital units, and
/// the record's annotations. `ECGRecord` (one rate, mV) is what plays.
public struct ECGRecording: Sendable {
    public var name: String
    public var signals: [ECGSignal]
    public var annotations: [ECGAnnotation]
    /// things the reader passed over and the user should hear of (a truncated last record)
    public var notes: [String]
    /// when the first sample was taken, if the file says
    public var start: ECGStartTime?

    public init(name: String, signals: [ECGSignal], annotations: [ECGAnnotation] = [], notes: [String] = []) {
        self.name = name
        self.signals = signals
        self.annotations = annotations
        self.notes = notes
    }

    public var labels: [String] { signals.map(\.label) }

    /// The playable record of the signals that share the chosen lead's rate
    /// (nil: `defaultLead`), in file order, and the chosen lead's index in it. Signals
    /// at other rates are named in `otherRates` so nothing goes unmentioned.
    public func record(lead selector: LeadSelector?, file: String) throws -> (record: ECGRecord, lead: Int, otherRates: [String]) {
        guard !signals.isEmpty else { throw ECGError(file: file, "no signals") }
        let chosen = try selector?.resolve(in: labels, file: file) ?? defaultLead
        let rate = signals[chosen].sampleRate
        let same = signals.indices.filter { signals[$0].sampleRate == rate }
        let others = signals.indices.filter { signals[$0].sampleRate != rate }
            .map { "\(signals[$0].label) (\(Self.format(signals[$0].sampleRate)) Hz)" }
        // signals of one rate in one record can still differ in length (EDF never; WFDB never): cut to the shortest
        let length = same.map { signals[$0].digital.count }.min() ?? 0
        let record = ECGRecord(name: name, sampleRate: rate, leadNames: same.map { signals[$0].label },
                               samples: same.map { Array(signals[$0].millivolts.prefix(length)) })
        return (record, same.firstIndex(of: chosen) ?? 0, others)
    }

    /// Sample indices at `sampleRate` of the annotations that mark beats.
    public func beatSamples(atRate sampleRate: Double) -> [Int] {
        annotations.filter { $0.isBeat && Self.fits($0.onset, sampleRate) }.map { Int(($0.onset * sampleRate).rounded()) }
    }

    /// The annotations that do not mark beats (notes, rhythm changes, EDF+
    /// events) at their sample index at `sampleRate`.
    public func otherAnnotationSamples(atRate sampleRate: Double) -> [(sample: Int, text: String)] {
        annotations.filter { !$0.isBeat && Self.fits($0.onset, sampleRate) }
            .map { (Int(($0.onset * sampleRate).rounded()), $0.text) }
    }

    /// whether an onset [s] lands on a sample index of the record's clock
    static func fits(_ onset: Double, _ sampleRate: Double) -> Bool {
        onset >= 0 && onset * sampleRate < Double(Int32.max)
    }

    static func format(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(rate)
    }
}
