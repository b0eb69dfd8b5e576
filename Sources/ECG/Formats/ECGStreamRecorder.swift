import Foundation

/// Writes a live ECG stream to a file as it arrives (`--record FILE`): EDF+
/// when the path ends in `.edf`, else a WFDB record (format 16 `.dat`, `.hea`,
/// gaps in `.atr`). The file is readable at every moment, so a run killed
/// with SIGKILL leaves a record that every reader takes:
///
/// - EDF+: the header says −1 data records (EDF+'s "unknown, still being
///   written") until `finish`; each 1 s data record (or the shortest that
///   holds whole samples) is written the moment its last sample comes.
/// - WFDB: the header leaves out the sample count (readers take the length
///   of the `.dat`), and the samples are written as each chunk comes.
///
/// A gap (a dropped link) is marked, not filled: the samples stay contiguous
/// and an annotation says where and how long the stream was lost — an EDF+
/// TAL in the "EDF Annotations" signal, a NOTE with the text in a WFDB `.atr`
/// (EDFbrowser and PhysioNet's rdann show both). `finish` writes the final
/// header: the record or sample count, the checksums and the labels.
public final class ECGStreamRecorder {
    public enum Format: Sendable, Equatable { case edf, wfdb }

    public let path: String
    public let format: Format
    public let sampleRate: Double
    public let leadNames: [String]
    /// samples written per lead
    public private(set) var sampleCount = 0
    /// the gaps marked: their onset [s] in the recording and length [s]
    public private(set) var gaps: [(onset: Double, seconds: Double)] = []

    /// adu per mV of the 16-bit samples: 1 µV steps, ±32.767 mV
    static let gain = 1000.0
    /// bytes of the EDF+ annotation signal in each data record (the time-keeping TAL and a gap's)
    static let annotationBytes = 120

    private var descriptor: Int32
    private let base: String
    private var finished = false
    // EDF+
    private var recordDuration = 1.0
    private var perRecord = 1
    private var recordsWritten = 0
    private var pending: [[Int16]] = []
    private var pendingTALs: [[UInt8]] = []
    // WFDB
    private var checksums: [UInt16] = []
    private var firstValues: [Int16]?
    /// per-chunk scratch, reused: each lead's digital samples, and the bytes of a WFDB chunk or an EDF record
    private var digital: [[Int16]] = []
    private var bytes: [UInt8] = []

    /// The format a path asks for, or nil when its extension is neither `.edf` nor `.hea`/`.dat`.
    public static func format(of path: String) -> Format? {
        switch (path as NSString).pathExtension.lowercased() {
        case "edf": .edf
        case "hea", "dat": .wfdb
        default: nil
        }
    }

    /// Creates (or empties) the files `path` needs, before any stream is opened,
    /// so a path that cannot be written fails at once.
    public static func checkWritable(_ path: String) throws {
        guard let format = format(of: path) else {
            throw ECGError(file: path, "--record: expected a file ending in .edf (EDF+) or .hea/.dat (WFDB)")
        }
        let base = WFDBRecordReader.recordBase(path)
        for file in format == .edf ? [path] : [base + ".hea", base + ".dat"] {
            let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard descriptor >= 0 else {
                throw ECGError(file: file, "cannot write: \(String(cString: strerror(errno)))")
            }
            close(descriptor)
        }
    }

    /// Opens the recording and writes its header (still open-ended).
    public init(path: String, sampleRate: Double, leadNames: [String], start: Date = Date()) throws {
        try Self.checkWritable(path)
        self.path = path
        format = Self.format(of: path) ?? .edf
        self.sampleRate = sampleRate
        self.leadNames = leadNames.isEmpty ? ["ECG"] : leadNames
        base = WFDBRecordReader.recordBase(path)
        self.start = start
        let dataPath = format == .edf ? path : base + ".dat"
        descriptor = open(dataPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw ECGError(file: dataPath, "cannot write: \(String(cString: strerror(errno)))") }
        pending = Array(repeating: [], count: self.leadNames.count)
        checksums = Array(repeating: 0, count: self.leadNames.count)
        switch format {
        case .edf:
            guard let duration = EDFWriter.recordDurations.first(where: { EDFWriter.isWhole(sampleRate * $0) }) else {
                close(descriptor)
                throw ECGError(file: path, "no EDF data record length holds a whole number of samples at \(ECGRecording.format(sampleRate)) Hz; record to .hea (WFDB)")
            }
            recordDuration = duration
            perRecord = Int((sampleRate * duration).rounded())
            try write(edfHeader(recordCount: -1, start: start), at: nil)
        case .wfdb:
            try writeWFDBHeader(final: false)
        }
    }

    private let start: Date

    deinit { try? finish() }

    /// Appends one chunk: `leads[lead][0..<count]` in mV (missing leads write 0).
    public func append(_ leads: [[Float]], count: Int) throws {
        guard !finished, count > 0 else { return }
        if digital.count != leadNames.count { digital = Array(repeating: [], count: leadNames.count) }
        for lead in leadNames.indices {
            digital[lead].removeAll(keepingCapacity: true)
            for index in 0..<count {
                let value = lead < leads.count ? Double(leads[lead][index]) : 0
                let scaled = value.isFinite ? (value * Self.gain).rounded() : 0
                digital[lead].append(Int16(max(-32767, min(32767, scaled))))
            }
        }
        sampleCount += count
        switch format {
        case .edf:
            for lead in pending.indices { pending[lead] += digital[lead] }
            while pending[0].count >= perRecord { try writeRecord(padTo: nil) }
        case .wfdb:
            if firstValues == nil { firstValues = digital.map { $0.first ?? 0 } }
            bytes.removeAll(keepingCapacity: true)
            for index in 0..<count {
                for lead in digital.indices {
                    let value = digital[lead][index]
                    checksums[lead] &+= UInt16(bitPattern: value)
                    bytes.append(UInt8(truncatingIfNeeded: value))
                    bytes.append(UInt8(truncatingIfNeeded: value >> 8))
                }
            }
            try write(bytes, at: nil)
        }
    }

    /// Marks a gap of `seconds` after sample `atSample` (nil: the current end of the recording), "link lost 4.2 s".
    public func markGap(seconds: Double, atSample: Int? = nil) throws {
        guard !finished else { return }
        let onset = Double(atSample ?? sampleCount) / sampleRate
        gaps.append((onset, seconds))
        let text = Self.gapText(seconds)
        switch format {
        case .edf:
            pendingTALs.append(EDFWriter.tal(onset: onset, duration: seconds, texts: [text]))
        case .wfdb:
            let annotations = gaps.map { ECGAnnotation(onset: $0.onset, text: Self.gapText($0.seconds), isBeat: false) }
            let bytes = WFDBWriter.annotationBytes(annotations, ticksPerSecond: sampleRate)
            let annotationPath = base + ".atr"
            let temporary = annotationPath + ".part"
            guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)),
                  rename(temporary, annotationPath) == 0 else {
                throw ECGError(file: annotationPath, "cannot write")
            }
        }
    }

    /// The text of a gap's annotation.
    public static func gapText(_ seconds: Double) -> String {
        "link lost " + String(format: "%.1f", seconds) + " s"
    }

    /// Writes what is left (an EDF+ partial record padded, with a "Recording ends" mark) and the final header.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        defer { close(descriptor) }
        switch format {
        case .edf:
            if !pending[0].isEmpty {
                let end = Double(sampleCount) / sampleRate
                pendingTALs.append(EDFWriter.tal(onset: end, duration: nil, texts: [EDFWriter.endText]))
                try writeRecord(padTo: perRecord)
            }
            while !pendingTALs.isEmpty { try writeRecord(padTo: perRecord) }
            try write(edfHeader(recordCount: recordsWritten, start: start), at: 0)
        case .wfdb:
            try writeWFDBHeader(final: true)
        }
    }

    // MARK: EDF+

    /// One data record: `perRecord` samples of each lead, then the TALs that fit.
    private func writeRecord(padTo: Int?) throws {
        bytes.removeAll(keepingCapacity: true)
        for lead in pending.indices {
            let available = min(perRecord, pending[lead].count)
            let last = pending[lead].last ?? 0
            for index in 0..<perRecord {
                let value = index < available ? pending[lead][index] : last
                bytes.append(UInt8(truncatingIfNeeded: value))
                bytes.append(UInt8(truncatingIfNeeded: value >> 8))
            }
            pending[lead].removeFirst(available)
        }
        var tals = EDFWriter.tal(onset: Double(recordsWritten) * recordDuration, duration: nil, texts: [""])
        while let next = pendingTALs.first, tals.count + next.count <= Self.annotationBytes {
            tals += next
            pendingTALs.removeFirst()
        }
        bytes += tals + Array(repeating: 0, count: Self.annotationBytes - tals.count)
        try write(bytes, at: nil)
        recordsWritten += 1
    }

    private func edfHeader(recordCount: Int, start: Date) throws -> [UInt8] {
        var header = [UInt8]()
        func field(_ text: String, _ width: Int) {
            var bytes = Array(text.utf8.prefix(width))
            bytes += Array(repeating: UInt8(ascii: " "), count: width - bytes.count)
            header += bytes
        }
        let calendar = Calendar(identifier: .gregorian)
        let parts = calendar.dateComponents(in: TimeZone.current, from: start)
        let (day, month, year) = (parts.day ?? 1, parts.month ?? 1, parts.year ?? 1985)
        let months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
        let signalCount = leadNames.count + 1
        field("0", 8)
        field("X X X X", 80)
        field("Startdate " + String(format: "%02d-", day) + months[month - 1] + String(format: "-%04d", year) + " X X X", 80)
        field(String(format: "%02d.%02d.%02d", day, month, year % 100), 8)
        field(String(format: "%02d.%02d.%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0), 8)
        field(String(256 * (signalCount + 1)), 8)
        field("EDF+C", 44)
        field(String(recordCount), 8)
        field(try EDFWriter.number(recordDuration, file: path), 8)
        field(String(signalCount), 4)
        for name in leadNames { field(name, 16) }
        field(EDFHeader.annotationLabel, 16)
        for _ in 0..<signalCount { field("", 80) }
        for _ in leadNames { field("mV", 8) }
        field("", 8)
        for _ in leadNames { field("-32.767", 8) }
        field("-1", 8)
        for _ in leadNames { field("32.767", 8) }
        field("1", 8)
        for _ in leadNames { field("-32767", 8) }
        field("-32768", 8)
        for _ in leadNames { field("32767", 8) }
        field("32767", 8)
        for _ in 0..<signalCount { field("", 80) }
        for _ in leadNames { field(String(perRecord), 8) }
        field(String(Self.annotationBytes / 2), 8)
        for _ in 0..<signalCount { field("", 32) }
        return header
    }

    // MARK: WFDB

    /// The header: while writing without the sample count, checksums or labels (a reader takes the `.dat`'s length).
    private func writeWFDBHeader(final: Bool) throws {
        let name = (base as NSString).lastPathComponent
        var text = "\(name) \(leadNames.count) \(ECGRecording.format(sampleRate))"
        if final { text += " \(sampleCount)" }
        text += "\n"
        for (lead, label) in leadNames.enumerated() {
            text += "\(name).dat 16 \(Int(Self.gain))(0)/mV 16 0"
            if final {
                text += " \(firstValues?[lead] ?? 0) \(Int16(bitPattern: checksums[lead])) 0 \(label)"
            }
            text += "\n"
        }
        for gap in gaps where final {
            text += "# " + Self.gapText(gap.seconds) + " at " + String(format: "%.3f", gap.onset) + " s\n"
        }
        let headerPath = base + ".hea"
        let temporary = headerPath + ".part"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)),
              rename(temporary, headerPath) == 0 else {
            throw ECGError(file: headerPath, "cannot write")
        }
    }

    /// Writes all of `bytes` at `offset` (nil: at the end), straight to the file.
    private func write(_ bytes: [UInt8], at offset: off_t?) throws {
        var done = 0
        while done < bytes.count {
            let result = bytes.withUnsafeBytes { buffer -> Int in
                let pointer = buffer.baseAddress! + done
                if let offset { return pwrite(descriptor, pointer, buffer.count - done, offset + off_t(done)) }
                return Foundation.write(descriptor, pointer, buffer.count - done)
            }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { throw ECGError(file: path, "cannot write: \(String(cString: strerror(errno)))") }
            done += result
        }
    }
}
