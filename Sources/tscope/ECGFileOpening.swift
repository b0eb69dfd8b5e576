import ECG
import Foundation
import Runs
import ViewModels

/// A recording read whole from a file, with what came with it.
struct ECGRecordFile {
    var record: ECGRecord
    /// reference beats (a WFDB record's annotation file, an EDF+ file's beat annotations), sample indices; empty when none
    var referenceBeats: [Int]
    /// annotations that are not beats (notes, rhythm changes, EDF+ texts), drawn on the strip
    var annotations: [ECGStripAnnotation] = []
    /// what reading tolerated (timestamps going back, gaps), one line each, for stderr
    var notes: [String]
    /// signals at other rates than the chosen lead's, left out of `record` ("ABP (125 Hz)")
    var otherRates: [String] = []
    /// the lead asked for with --lead (moved to index 0), nil when none was asked for
    var chosenLead: Int?
    /// the lead to detect on when nothing else decides: the file's first ECG lead
    var fallbackLead = 0
    /// each lead's index in the file (leads are reordered and leads at other rates left out)
    var fileIndices: [Int]
}

/// The one place a SOURCE path becomes a recording, chosen by its extension
/// (`ECGRecordFormat`): `.csv`, `.txt`, `.tsv` are CSV (`CSVRecordReader`),
/// `.edf` is EDF/EDF+, anything else a WFDB record (with or without `.hea`).
/// A new format adds a case there and every ECG command (watch, score,
/// detect, monitor, convert, `watch --ecg`) takes it.
enum ECGFileOpening {
    /// Reads the recording at `path`. `rate` is the rate it must have (a CSV
    /// without a time column takes it as its rate); `gain`/`baseline` convert
    /// a CSV's ADC units to mV; `lead` picks the lead to show first and detect
    /// on (in a multi-rate file, the leads at its rate are kept);
    /// `annotator` names a WFDB record's annotation file.
    static func open(_ path: String, rate: Double?, gain: Double = 1, baseline: Double = 0,
                     lead: LeadSelector? = nil, annotator: String = "atr") throws -> ECGRecordFile {
        var file: ECGRecordFile
        switch ECGRecordFormat(path: path) {
        case .csv:
            let recording = try CSVRecordReader.read(path: path, options: CSVReadOptions(rate: rate, gain: gain, baseline: baseline))
            file = ECGRecordFile(record: recording.record, referenceBeats: [], notes: recording.notes,
                                 fileIndices: Array(recording.record.leadNames.indices))
            if let lead {
                file.chosenLead = try lead.resolve(in: recording.record.leadNames, file: path)
            }
        case .wfdb, .edf:
            let recording = try ECGRecordFormat.readRecording(path: path, annotator: annotator)
            let (record, chosen, otherRates) = try recording.record(lead: lead, file: path)
            if let rate, abs(rate - record.sampleRate) > 1e-6 * record.sampleRate {
                throw ECGError(file: path, "the header says \(record.sampleRate) Hz, --rate says \(rate) Hz")
            }
            let annotations = recording.otherAnnotationSamples(atRate: record.sampleRate)
                .map { ECGStripAnnotation(sample: $0.sample, text: $0.text) }
            file = ECGRecordFile(record: record, referenceBeats: recording.beatSamples(atRate: record.sampleRate),
                                 annotations: annotations, notes: recording.notes, otherRates: otherRates, fallbackLead: chosen,
                                 fileIndices: recording.signals.indices.filter { recording.signals[$0].sampleRate == record.sampleRate })
            if lead != nil { file.chosenLead = chosen }
        }
        if let chosen = file.chosenLead {
            // the lead asked for comes first, so the strip layout shows it
            file.record = file.record.movingLeadFirst(chosen)
            file.fileIndices.insert(file.fileIndices.remove(at: chosen), at: 0)
            file.chosenLead = 0
        }
        return file
    }
}
