/// The header of an EDF or EDF+ file.
///
/// Layout from the EDF specification (Kemp et al. 1992) and EDF+ (Kemp &
/// Olivan 2003, edfplus.info/specs): a fixed 256-byte ASCII header, then 256
/// bytes per signal stored field by field (all labels, then all transducers,
/// …); all fields are left-aligned ASCII padded with spaces. Then the data
/// records: in each, every signal's samples per record as 16-bit
/// little-endian two's complement, signal after signal.
public struct EDFHeader: Sendable, Equatable {
    /// "EDF+C" (continuous), "EDF+D" (discontinuous) or "" (plain EDF) from the reserved field
    public enum Variant: String, Sendable { case edf = "EDF", continuous = "EDF+C", discontinuous = "EDF+D" }

    public var variant: Variant
    public var patient: String
    public var recording: String
    /// "dd.mm.yy" and "hh.mm.ss" as written
    public var startDate: String
    public var startTime: String
    public var headerBytes: Int
    /// data records the header declares; nil for −1 (a file still being written)
    public var recordCount: Int?
    /// length of one data record [s]
    public var recordDuration: Double
    public var signals: [EDFSignalHeader]

    /// The start from "dd.mm.yy" and "hh.mm.ss"; the year from EDF+'s
    /// "Startdate dd-MMM-yyyy" in the recording field, else yy (EDF: 85–99 are 1985–1999, 00–84 2000–2084).
    public var start: ECGStartTime? {
        let time = startTime.split(separator: ".").compactMap { Int($0) }
        guard time.count == 3, (0..<24).contains(time[0]), (0..<60).contains(time[1]), (0..<61).contains(time[2]) else { return nil }
        var start = ECGStartTime(hour: time[0], minute: time[1], second: time[2])
        // EDF+ writes "Startdate X" and 01.01.85 when the date is unknown (and 00.00.00, as EDFWriter does, for no start at all)
        if variant != .edf, recording.hasPrefix("Startdate X") {
            return time == [0, 0, 0] ? nil : start
        }
        let date = startDate.split(separator: ".").compactMap { Int($0) }
        if date.count == 3, (1...31).contains(date[0]), (1...12).contains(date[1]), (0...99).contains(date[2]) {
            var year = date[2] >= 85 ? 1900 + date[2] : 2000 + date[2]
            let words = recording.split(separator: " ")
            if words.count >= 2, words[0] == "Startdate", let full = words[1].split(separator: "-").last.flatMap({ Int($0) }),
               full % 100 == date[2] {
                year = full
            }
            start.date = (date[0], date[1], year)
        }
        return start
    }

    /// bytes of one data record
    public var recordBytes: Int { signals.reduce(0) { $0 + 2 * $1.samplesPerRecord } }
    /// byte offset of each signal within a data record
    public var signalOffsets: [Int] {
        var offsets: [Int] = []
        var offset = 0
        for signal in signals {
            offsets.append(offset)
            offset += 2 * signal.samplesPerRecord
        }
        return offsets
    }

    /// the fixed part's size, and each signal's [bytes]
    static let fixedBytes = 256
    static let perSignalBytes = 256
    /// more signals than any recorder writes; bounds what a damaged header can ask for
    static let maximumSignals = 4096
    /// samples per record per signal at most (a 61 440-byte record is EDF's recommended maximum; this is far above)
    static let maximumSamplesPerRecord = 1 << 22
    /// samples per second of a signal at most [Hz]: far above any biosignal, bounds damaged durations
    static let maximumSampleRate = 1e7
    /// the label that marks an EDF+ annotation signal
    public static let annotationLabel = "EDF Annotations"

    public init(variant: Variant, patient: String, recording: String, startDate: String, startTime: String,
                headerBytes: Int, recordCount: Int?, recordDuration: Double, signals: [EDFSignalHeader]) {
        self.variant = variant
        self.patient = patient
        self.recording = recording
        self.startDate = startDate
        self.startTime = startTime
        self.headerBytes = headerBytes
        self.recordCount = recordCount
        self.recordDuration = recordDuration
        self.signals = signals
    }

    /// Parses the header at the start of `bytes` (the file or at least its header).
    public static func parse(_ bytes: UnsafeRawBufferPointer, file: String) throws -> EDFHeader {
        var fields = FieldReader(bytes: bytes, file: file)
        guard bytes.count >= fixedBytes else {
            throw ECGError(file: file, location: .byte(bytes.count),
                           "header too short: \(bytes.count) bytes, the fixed EDF header is \(fixedBytes)")
        }
        if bytes[0] == 0xFF {
            throw ECGError(file: file, location: .byte(0), "version: a BDF file (24-bit samples) is not EDF; not supported")
        }
        let version = fields.text(8)
        guard version == "0" else {
            throw ECGError(file: file, location: .byte(0), "version: expected \"0\", found \"\(version)\"")
        }
        let patient = fields.text(80)
        let recording = fields.text(80)
        let startDate = fields.text(8)
        let startTime = fields.text(8)
        let headerBytes = try fields.integer(8, "number of bytes in header record")
        let reserved = fields.text(44)
        let variant: Variant = reserved.hasPrefix("EDF+D") ? .discontinuous : reserved.hasPrefix("EDF+C") ? .continuous : .edf
        let countOffset = fields.offset
        let count = try fields.integer(8, "number of data records")
        guard count >= -1 else {
            throw ECGError(file: file, location: .byte(countOffset), "number of data records: expected −1 or more, found \(count)")
        }
        let durationOffset = fields.offset
        let duration = try fields.number(8, "duration of a data record")
        guard duration >= 0 else {
            throw ECGError(file: file, location: .byte(durationOffset), "duration of a data record: expected 0 or more seconds, found \(duration)")
        }
        let signalCountOffset = fields.offset
        let signalCount = try fields.integer(4, "number of signals")
        guard (1...maximumSignals).contains(signalCount) else {
            throw ECGError(file: file, location: .byte(signalCountOffset),
                           "number of signals: expected 1 to \(maximumSignals), found \(signalCount)")
        }
        let expectedHeader = fixedBytes + perSignalBytes * signalCount
        guard headerBytes == expectedHeader else {
            throw ECGError(file: file, location: .byte(184),
                           "number of bytes in header record: \(signalCount) signals need \(expectedHeader), the header says \(headerBytes)")
        }
        guard bytes.count >= expectedHeader else {
            throw ECGError(file: file, location: .byte(bytes.count),
                           "header too short: \(bytes.count) bytes, \(signalCount) signals need \(expectedHeader)")
        }

        // the signal headers, field by field across all signals
        let labels = fields.texts(16, signalCount)
        let transducers = fields.texts(80, signalCount)
        let units = fields.texts(8, signalCount)
        let physicalMinimum = try fields.numbers(8, signalCount, "physical minimum", labels)
        let physicalMaximum = try fields.numbers(8, signalCount, "physical maximum", labels)
        let digitalMinimumOffset = fields.offset
        let digitalMinimum = try fields.integers(8, signalCount, "digital minimum", labels)
        let digitalMaximum = try fields.integers(8, signalCount, "digital maximum", labels)
        let prefiltering = fields.texts(80, signalCount)
        let samplesOffset = fields.offset
        let samples = try fields.integers(8, signalCount, "number of samples in each data record", labels)

        var signals: [EDFSignalHeader] = []
        for index in 0..<signalCount {
            func fail(_ field: String, _ base: Int, _ detail: String) -> ECGError {
                ECGError(file: file, location: .byte(base + 8 * index), "\(field) of signal \(index) (\(labels[index])): \(detail)")
            }
            let isAnnotation = labels[index] == annotationLabel
            guard (Int(Int16.min)...Int(Int16.max)).contains(digitalMinimum[index]),
                  (Int(Int16.min)...Int(Int16.max)).contains(digitalMaximum[index]) else {
                throw fail("digital minimum", digitalMinimumOffset,
                           "\(digitalMinimum[index])…\(digitalMaximum[index]) does not fit 16 bits")
            }
            if !isAnnotation {
                guard digitalMinimum[index] < digitalMaximum[index] else {
                    throw fail("digital minimum", digitalMinimumOffset,
                               "must be below the digital maximum (\(digitalMinimum[index]), \(digitalMaximum[index]))")
                }
                guard physicalMinimum[index] != physicalMaximum[index] else {
                    throw fail("physical minimum", digitalMinimumOffset - 16 * signalCount,
                               "equals the physical maximum (\(physicalMinimum[index])): no scale")
                }
            }
            guard (1...maximumSamplesPerRecord).contains(samples[index]) else {
                throw fail("number of samples in each data record", samplesOffset,
                           "expected 1 to \(maximumSamplesPerRecord), found \(samples[index])")
            }
            signals.append(EDFSignalHeader(
                label: labels[index], transducer: transducers[index], units: units[index],
                physicalMinimum: physicalMinimum[index], physicalMaximum: physicalMaximum[index],
                digitalMinimum: digitalMinimum[index], digitalMaximum: digitalMaximum[index],
                prefiltering: prefiltering[index], samplesPerRecord: samples[index]))
        }
        if duration > 0, let fastest = signals.filter({ !$0.isAnnotation }).map(\.samplesPerRecord).max(),
           !(Double(fastest) / duration <= maximumSampleRate) {
            throw ECGError(file: file, location: .byte(durationOffset),
                           "duration of a data record: \(duration) s gives \(Double(fastest) / duration) samples per second, more than \(Int(maximumSampleRate))")
        }
        if duration > EDFAnnotationParser.maximumSeconds {
            throw ECGError(file: file, location: .byte(durationOffset), "duration of a data record: \(duration) s is beyond 10^9 s")
        }
        if duration == 0, signals.contains(where: { !$0.isAnnotation }) {
            throw ECGError(file: file, location: .byte(durationOffset),
                           "duration of a data record: 0 s is only allowed when every signal is an annotation signal")
        }
        return EDFHeader(variant: variant, patient: patient, recording: recording, startDate: startDate,
                         startTime: startTime, headerBytes: headerBytes, recordCount: count == -1 ? nil : count,
                         recordDuration: duration, signals: signals)
    }
}

/// One signal's part of an EDF header.
public struct EDFSignalHeader: Sendable, Equatable {
    public var label: String
    public var transducer: String
    /// physical dimension, e.g. "uV", "mV"
    public var units: String
    public var physicalMinimum: Double
    public var physicalMaximum: Double
    public var digitalMinimum: Int
    public var digitalMaximum: Int
    public var prefiltering: String
    public var samplesPerRecord: Int

    public init(label: String, transducer: String, units: String, physicalMinimum: Double, physicalMaximum: Double,
                digitalMinimum: Int, digitalMaximum: Int, prefiltering: String, samplesPerRecord: Int) {
        self.label = label
        self.transducer = transducer
        self.units = units
        self.physicalMinimum = physicalMinimum
        self.physicalMaximum = physicalMaximum
        self.digitalMinimum = digitalMinimum
        self.digitalMaximum = digitalMaximum
        self.prefiltering = prefiltering
        self.samplesPerRecord = samplesPerRecord
    }

    public var isAnnotation: Bool { label == EDFHeader.annotationLabel }

    /// digital units per physical unit: (dmax − dmin) / (pmax − pmin); negative when pmax < pmin
    public var gain: Double {
        Double(digitalMaximum - digitalMinimum) / (physicalMaximum - physicalMinimum)
    }

    /// digital value of 0 physical units: physical = pmin + (d − dmin) / gain
    public var baseline: Double {
        Double(digitalMinimum) - physicalMinimum * gain
    }
}

/// Reads fixed-width ASCII fields one after another.
private struct FieldReader {
    let bytes: UnsafeRawBufferPointer
    let file: String
    var offset = 0

    init(bytes: UnsafeRawBufferPointer, file: String) {
        self.bytes = bytes
        self.file = file
    }

    /// the next `width` bytes as text without surrounding spaces
    mutating func text(_ width: Int) -> String {
        let end = min(offset + width, bytes.count)
        let field = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[min(offset, end)..<end]), as: UTF8.self)
        offset += width
        return field.trimmingSpaces()
    }

    mutating func texts(_ width: Int, _ count: Int) -> [String] {
        (0..<count).map { _ in text(width) }
    }

    mutating func integer(_ width: Int, _ field: String, signal: String = "") throws -> Int {
        let start = offset
        let value = text(width)
        guard let number = Int(value) else {
            throw ECGError(file: file, location: .byte(start), "\(field)\(signal): expected an integer, found \"\(value)\"")
        }
        return number
    }

    mutating func number(_ width: Int, _ field: String, signal: String = "") throws -> Double {
        let start = offset
        let value = text(width)
        // EDF numbers are plain decimals; Double() would also take "nan" and "inf"
        guard value.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }),
              let number = Double(value), number.isFinite else {
            throw ECGError(file: file, location: .byte(start), "\(field)\(signal): expected a number, found \"\(value)\"")
        }
        return number
    }

    mutating func integers(_ width: Int, _ count: Int, _ field: String, _ labels: [String]) throws -> [Int] {
        try (0..<count).map { try integer(width, field, signal: " of signal \($0) (\(labels[$0]))") }
    }

    mutating func numbers(_ width: Int, _ count: Int, _ field: String, _ labels: [String]) throws -> [Double] {
        try (0..<count).map { try number(width, field, signal: " of signal \($0) (\(labels[$0]))") }
    }
}
