import Foundation

/// The record file formats, told apart by extension: `.edf` is EDF/EDF+,
/// `.csv`, `.txt` and `.tsv` are CSV, anything else a WFDB record (path with or without `.hea`).
public enum ECGRecordFormat: String, Sendable, CaseIterable {
    case wfdb, edf, csv

    public init(path: String) {
        switch (path as NSString).pathExtension.lowercased() {
        case "edf": self = .edf
        case "csv", "txt", "tsv": self = .csv
        default: self = .wfdb
        }
    }

    /// Reads a record at every signal's own rate: a WFDB record with the
    /// annotations of `<record>.<annotator>`, an EDF/EDF+ file with its
    /// annotation signals, or a CSV file (`declaredRate` as in `CSVRecordReader`).
    /// `strict`: an EDF or WFDB record cut short is refused instead of read to its last complete record.
    public static func readRecording(path: String, annotator: String = "atr", declaredRate: Double? = nil,
                                     strict: Bool = false) throws -> ECGRecording {
        switch ECGRecordFormat(path: path) {
        case .wfdb: return try WFDBRecordReader.readRecording(path: path, annotator: annotator, strict: strict)
        case .edf: return try EDFReader.read(path: path, strict: strict)
        case .csv: return ECGRecording(record: try CSVRecordReader.read(path: path, declaredRate: declaredRate))
        }
    }
}

extension ECGRecording {
    /// finest step CSV values [mV] are stored with when they fit: 1 µV
    static let csvGain = 1000.0

    /// A record in mV as 16-bit signals: 1 µV steps when the largest value
    /// fits, else the finest step that fits it. NaN samples become missing.
    public init(record: ECGRecord) {
        let missing = Int16.min
        let signals = zip(record.leadNames, record.samples).map { name, values in
            let largest = values.reduce(Float(0)) { $1.isFinite ? max($0, abs($1)) : $0 }
            let fullScale = Double(Int16.max)
            let gain = Double(largest) * Self.csvGain <= fullScale ? Self.csvGain : fullScale / Double(largest)
            let digital = values.map { $0.isFinite ? Int16((Double($0) * gain).rounded()) : missing }
            return ECGSignal(label: name, sampleRate: record.sampleRate, units: "mV", gain: gain, baseline: 0,
                             digitalRange: -Int(Int16.max)...Int(Int16.max), missingValue: missing, digital: digital)
        }
        self.init(name: record.name, signals: signals)
    }

    /// The lead to play when none is asked for: the first whose label names an
    /// ECG lead ("ECG", "EKG I", "II", "MLII", "V5", "MCL1"), else lead 0 — an
    /// EDF from a sleep lab usually opens with EEG.
    public var defaultLead: Int { Self.defaultLead(labels: labels) }

    /// `defaultLead` among `labels`.
    public static func defaultLead(labels: [String]) -> Int {
        let chestLeads: Set<String> = ["MCL1", "MCL6"]
        return labels.firstIndex { label in
            let upper = label.uppercased()
            return upper.contains("ECG") || upper.contains("EKG") || ECGLeadName.standard(label) != nil
                || chestLeads.contains(upper)
        } ?? 0
    }
}
