import Foundation

/// Reads EDF and EDF+ files (see `EDFHeader`) into an `ECGRecording`: every
/// ordinary signal at its own rate (samples per record / record duration),
/// the "EDF Annotations" signals as annotations.
public enum EDFReader {
    /// Reads the file at `path`; the record's name is the file name without `.edf`.
    /// - Parameter strict: refuse a file whose data ends before its header's record count (else its
    ///   complete records are used and a note says what was missing)
    public static func read(path: String, strict: Bool = false) throws -> ECGRecording {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ECGError(file: path, FileManager.default.fileExists(atPath: path) ? "cannot read (permission?)" : "no such file")
        }
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        return try data.withUnsafeBytes { try decode($0, file: path, name: name, strict: strict) }
    }

    /// How many complete data records the bytes after the header hold, checked
    /// against the header's count. A partial last record is reported in `note`.
    /// Data that ends before the header's count (a file copied while it was
    /// being written, a partial download) gives its complete records and a note
    /// saying how many the header promised and where the data ends, as MNE
    /// reads such files; `strict` refuses it. More data than the header says is
    /// always an error (the header is then wrong, not the file short).
    public static func completeRecords(header: EDFHeader, fileSize: Int, file: String,
                                       strict: Bool = false) throws -> (count: Int, note: String?) {
        let recordBytes = header.recordBytes
        let data = fileSize - header.headerBytes
        let available = data / recordBytes
        let partial = data % recordBytes
        let note = partial == 0 ? nil :
            "last data record truncated: \(partial) of \(recordBytes) bytes at byte \(header.headerBytes + available * recordBytes); the \(available) complete records are used"
        guard let declared = header.recordCount else { return (available, note) }
        if declared == available || (declared == available + 1 && partial > 0) {
            return (available, note)
        }
        if declared > available, !strict {
            return (available, "cut short: the header promises \(declared) data records, \(available) are complete; "
                + "the data ends at byte \(fileSize)\(partial > 0 ? " inside record \(available + 1)" : ""); "
                + "the \(available) complete records are used (--strict refuses the file)")
        }
        throw ECGError(file: file, location: .byte(236),
                       "number of data records: the header says \(declared), the \(data) bytes after the header hold \(available) records of \(recordBytes) bytes\(partial > 0 ? " and \(partial) bytes more" : "")")
    }

    /// Decodes a whole file's bytes.
    public static func decode(_ bytes: UnsafeRawBufferPointer, file: String, name: String,
                              strict: Bool = false) throws -> ECGRecording {
        let header = try EDFHeader.parse(bytes, file: file)
        let (count, note) = try completeRecords(header: header, fileSize: bytes.count, file: file, strict: strict)
        var decoder = EDFRecordDecoder(header: header, file: file)
        try decoder.append(bytes, records: 0..<count, at: header.headerBytes)
        var recording = decoder.recording(name: name)
        recording.start = header.start
        if let note { recording.notes.append(note) }
        trimPadding(&recording, records: count, duration: header.recordDuration)
        return recording
    }

    /// A "Recording ends" annotation inside the last data record (EDFbrowser
    /// and `EDFWriter` write one) marks where the data ends; the rest of that
    /// record is padding and is cut off.
    static func trimPadding(_ recording: inout ECGRecording, records: Int, duration: Double) {
        let end = Double(records) * duration
        guard let mark = recording.annotations.last(where: { $0.text == EDFWriter.endText }),
              mark.onset < end - 1e-9, mark.onset > end - duration - 1e-9 else { return }
        // the mark only says where the padding starts: not an event of the record
        recording.annotations.removeAll { $0 == mark }
        for index in recording.signals.indices {
            let keep = Int((mark.onset * recording.signals[index].sampleRate).rounded())
            if keep < recording.signals[index].digital.count {
                recording.signals[index].digital.removeLast(recording.signals[index].digital.count - keep)
            }
        }
    }
}

/// Turns data records into signals and annotations, a batch at a time (a
/// whole file, or the records a growing file gained since the last read).
public struct EDFRecordDecoder: Sendable {
    public let header: EDFHeader
    let file: String
    /// digital samples per ordinary signal so far
    public private(set) var digital: [[Int16]]
    public private(set) var annotations: [ECGAnnotation] = []
    /// records decoded so far
    public private(set) var recordsRead = 0
    /// the first record's start [s from the header's start time], from its time-keeping TAL
    private var firstStart: Double?
    /// start of the next record where no gap occurs [s from the first record]
    private var expectedStart = 0.0
    /// EDF+D gaps filled with missing samples
    public private(set) var gapNotes: [String] = []
    /// longest EDF+D gap filled with missing samples: a week [s]
    static let maximumGapSeconds = 7 * 86_400.0
    /// most missing samples one gap may add over all signals (256 MB of Int16)
    static let maximumGapSamples = Double(1 << 27)
    let dataSignals: [Int]
    let annotationSignals: [Int]
    let offsets: [Int]
    /// digital value marking gap samples of each ordinary signal (outside its digital range when it can be)
    let gapValues: [Int16]

    public init(header: EDFHeader, file: String) {
        self.header = header
        self.file = file
        dataSignals = header.signals.indices.filter { !header.signals[$0].isAnnotation }
        annotationSignals = header.signals.indices.filter { header.signals[$0].isAnnotation }
        offsets = header.signalOffsets
        digital = Array(repeating: [], count: dataSignals.count)
        gapValues = dataSignals.map { index in
            let signal = header.signals[index]
            if signal.digitalMinimum > Int(Int16.min) { return Int16(signal.digitalMinimum - 1) }
            if signal.digitalMaximum < Int(Int16.max) { return Int16(signal.digitalMaximum + 1) }
            return Int16.min
        }
    }

    /// Decodes `records` (indices into the file) from `bytes`, in which record
    /// `records.lowerBound` starts at `offset` (the header's size for a whole file, 0
    /// for bytes read from that record's position on).
    public mutating func append(_ bytes: UnsafeRawBufferPointer, records: Range<Int>, at offset: Int) throws {
        let recordBytes = header.recordBytes
        guard offset >= 0, offset + records.count * recordBytes <= bytes.count else {
            throw ECGError(file: file, location: .byte(header.headerBytes + records.lowerBound * recordBytes),
                           "data records \(records.lowerBound)…\(records.upperBound - 1) run past the end of the data")
        }
        for (position, index) in dataSignals.enumerated() {
            digital[position].reserveCapacity(digital[position].count + records.count * header.signals[index].samplesPerRecord)
        }
        for record in records {
            let start = offset + (record - records.lowerBound) * recordBytes
            try readTimekeeping(bytes, recordStart: start, fileStart: header.headerBytes + record * recordBytes, record: record)
            for (position, index) in dataSignals.enumerated() {
                let from = start + offsets[index]
                let count = header.signals[index].samplesPerRecord
                for sample in 0..<count {
                    let low = UInt16(bytes[from + 2 * sample])
                    let high = UInt16(bytes[from + 2 * sample + 1])
                    digital[position].append(Int16(bitPattern: low | high << 8))
                }
            }
            recordsRead += 1
        }
    }

    /// Reads the record's TALs: the first one's onset is the record's start
    /// (EDF+D: a later start than expected is a gap, filled with missing
    /// samples), the others become annotations.
    private mutating func readTimekeeping(_ bytes: UnsafeRawBufferPointer, recordStart: Int, fileStart: Int, record: Int) throws {
        var recordOnset: Double?
        for (order, index) in annotationSignals.enumerated() {
            let from = recordStart + offsets[index]
            let length = 2 * header.signals[index].samplesPerRecord
            let tals = try EDFAnnotationParser.parse(UnsafeRawBufferPointer(rebasing: bytes[from..<from + length]),
                                                    file: file, fileOffset: fileStart + offsets[index])
            for (number, tal) in tals.enumerated() {
                if order == 0 && number == 0 {
                    recordOnset = tal.onset
                }
                let origin = firstStart ?? recordOnset ?? 0
                for text in tal.texts {
                    annotations.append(ECGAnnotation(onset: tal.onset - origin, duration: tal.duration, text: text,
                                                     isBeat: ECGAnnotation.textMarksBeat(text)))
                }
            }
        }
        let onset = recordOnset ?? Double(record) * header.recordDuration
        if firstStart == nil { firstStart = onset }
        let start = onset - (firstStart ?? 0)
        // a gap of at least one sample period of the fastest signal, in EDF+D only
        if header.variant == .discontinuous, start > expectedStart + 1e-9, header.recordDuration > 0 {
            let gap = start - expectedStart
            // onsets are at most 10^9 s, but filling such a gap would not fit in memory
            guard gap <= Self.maximumGapSeconds else {
                throw ECGError(file: file, location: .byte(fileStart + offsets[annotationSignals[0]]),
                               "EDF Annotations: record \(record) starts \(gap) s after the previous one ends; gaps of more than \(Int(Self.maximumGapSeconds)) s are not filled")
            }
            let missing = dataSignals.map { index in
                (gap * Double(header.signals[index].samplesPerRecord) / header.recordDuration).rounded()
            }
            guard missing.reduce(0, +) <= Self.maximumGapSamples else {
                throw ECGError(file: file, location: .byte(fileStart + offsets[annotationSignals[0]]),
                               "EDF Annotations: the gap of \(gap) s before record \(record) needs more than \(Int(Self.maximumGapSamples)) missing samples")
            }
            for position in dataSignals.indices {
                digital[position].append(contentsOf: repeatElement(gapValues[position], count: Int(missing[position])))
            }
            gapNotes.append("EDF+D gap of \(gap) s before record \(record) (at \(expectedStart) s) filled with missing samples")
        }
        expectedStart = max(expectedStart, start) + header.recordDuration
    }

    /// Hands over the digital samples decoded so far, one array per ordinary
    /// signal, and starts the next batch empty (a followed file's new records).
    public mutating func takeSamples() -> [[Int16]] {
        let taken = digital
        digital = Array(repeating: [], count: dataSignals.count)
        return taken
    }

    /// whether `value` of ordinary signal `position` marks an EDF+D gap
    func isGap(_ value: Int16, position: Int) -> Bool {
        !gapNotes.isEmpty && value == gapValues[position]
    }

    /// The signals and annotations decoded so far.
    public func recording(name: String) -> ECGRecording {
        let signals = dataSignals.enumerated().map { position, index in
            let signal = header.signals[index]
            return ECGSignal(label: signal.label, sampleRate: Double(signal.samplesPerRecord) / header.recordDuration,
                             units: signal.units, gain: signal.gain, baseline: signal.baseline,
                             digitalRange: signal.digitalMinimum...signal.digitalMaximum,
                             missingValue: gapNotes.isEmpty ? nil : gapValues[position], digital: digital[position])
        }
        return ECGRecording(name: name, signals: signals, annotations: annotations, notes: gapNotes)
    }
}
