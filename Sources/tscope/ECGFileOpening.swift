import ECG
import Foundation

/// A recording read whole from a file, with what came with it.
struct ECGRecordFile {
    var record: ECGRecord
    /// reference beats next to the record (a WFDB record's `.atr`), sample indices; empty when none
    var referenceBeats: [Int]
    /// what reading tolerated (timestamps going back, gaps), one line each, for stderr
    var notes: [String]
}

/// The one place a SOURCE path becomes a recording, chosen by its extension:
/// `.csv`, `.txt`, `.tsv` are CSV (`CSVRecordReader`); anything else is a WFDB
/// record (with or without `.hea`). A new format adds a case here and every
/// ECG command (watch, score, detect, monitor, `watch --ecg`) takes it.
enum ECGFileOpening {
    enum Kind {
        case csv, wfdb
    }

    static func kind(of path: String) -> Kind {
        switch (path as NSString).pathExtension.lowercased() {
        case "csv", "txt", "tsv": return .csv
        default: return .wfdb
        }
    }

    /// Reads the recording at `path`. `rate` is the rate it must have (a CSV
    /// without a time column takes it as its rate); `gain`/`baseline` convert
    /// a CSV's ADC units to mV.
    static func open(_ path: String, rate: Double?, gain: Double = 1, baseline: Double = 0) throws -> ECGRecordFile {
        switch kind(of: path) {
        case .csv:
            let recording = try CSVRecordReader.read(path: path, options: CSVReadOptions(rate: rate, gain: gain, baseline: baseline))
            return ECGRecordFile(record: recording.record, referenceBeats: [], notes: recording.notes)
        case .wfdb:
            let record = try WFDBRecordReader.read(path: path)
            if let rate, abs(rate - record.sampleRate) > 1e-6 * record.sampleRate {
                throw ECGError(file: path, "the header says \(record.sampleRate) Hz, --rate says \(rate) Hz")
            }
            return ECGRecordFile(record: record, referenceBeats: try referenceBeats(recordPath: path), notes: [])
        }
    }

    /// The `.atr` beats next to a WFDB record, or none when it has no `.atr`.
    static func referenceBeats(recordPath: String) throws -> [Int] {
        let base = recordPath.hasSuffix(".hea") ? String(recordPath.dropLast(4)) : recordPath
        guard FileManager.default.fileExists(atPath: base + ".atr") else { return [] }
        return try WFDBRecordReader.readAnnotations(recordPath: recordPath).filter(\.isBeat).map(\.sample)
    }
}
