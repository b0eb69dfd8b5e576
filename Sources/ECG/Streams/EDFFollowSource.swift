import Foundation

/// Plays an EDF/EDF+ file that a recorder is still appending data records
/// to: each read delivers what has not been delivered yet, and when that is
/// used up it looks at the file's size and decodes only the complete records
/// added since (the file is never read again from the start). A header record
/// count of −1, or one the data has outgrown, does not stop it; a record still
/// being written is waited for. The leads are the ordinary signals at the
/// chosen lead's rate; the source never ends (`.waiting` when nothing is new).
public final class EDFFollowSource: ECGSource {
    public let path: String
    public let header: EDFHeader
    public let leadNames: [String]
    public let sampleRate: Double
    /// index in `leadNames` of the lead asked for (or the default lead)
    public let lead: Int
    private let handle: FileHandle
    private var decoder: EDFRecordDecoder
    /// positions among the decoder's ordinary signals of the played leads
    private let played: [Int]
    /// per played lead: mV per adu and the baseline [adu]
    private let scales: [(scale: Double, baseline: Double)]
    /// decoded, not yet delivered samples per played lead [mV]
    private var pending: [[Float]]
    private var pendingStart = 0
    private var delivered = 0

    /// most data records decoded per look at the file, so a long file already
    /// on disk is taken in steps [bytes]
    static let maximumBytesPerRead = 1 << 22

    public init(path: String, lead selector: LeadSelector?) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ECGError(file: path, FileManager.default.fileExists(atPath: path) ? "cannot read (permission?)" : "no such file")
        }
        self.handle = handle
        self.path = path
        let fixed = try handle.read(upToCount: EDFHeader.fixedBytes) ?? Data()
        // the header's size is in bytes 184..<192; read that much, or fail on the fixed part
        let declared = Int(String(decoding: fixed.dropFirst(184).prefix(8), as: UTF8.self).trimmingSpaces()) ?? fixed.count
        try handle.seek(toOffset: 0)
        let bytes = try handle.read(upToCount: max(EDFHeader.fixedBytes, min(declared, EDFHeader.fixedBytes * (EDFHeader.maximumSignals + 1)))) ?? Data()
        let header = try bytes.withUnsafeBytes { try EDFHeader.parse($0, file: path) }
        self.header = header
        decoder = EDFRecordDecoder(header: header, file: path)
        let ordinary = decoder.dataSignals
        let labels = ordinary.map { header.signals[$0].label }
        guard !labels.isEmpty else { throw ECGError(file: path, "no signals: only annotations") }
        let chosen = try selector?.resolve(in: labels, file: path) ?? ECGRecording.defaultLead(labels: labels)
        let rate = { (position: Int) in Double(header.signals[ordinary[position]].samplesPerRecord) / header.recordDuration }
        let played = ordinary.indices.filter { rate($0) == rate(chosen) }
        self.played = played
        leadNames = played.map { labels[$0] }
        sampleRate = rate(chosen)
        lead = played.firstIndex(of: chosen) ?? 0
        scales = played.map { position in
            let signal = header.signals[ordinary[position]]
            return (ECGSignal.millivoltsPerUnit(signal.units) / signal.gain, signal.baseline)
        }
        pending = Array(repeating: [], count: played.count)
    }

    deinit {
        try? handle.close()
    }

    /// annotations of the records decoded so far, onsets from the first sample [s]
    public var annotations: [ECGAnnotation] { decoder.annotations }
    /// data records decoded so far
    public var recordsRead: Int { decoder.recordsRead }

    public func read(into chunk: inout ECGChunk) throws -> ECGReadResult {
        if pendingStart >= (pending.first?.count ?? 0) {
            try poll()
        }
        let available = (pending.first?.count ?? 0) - pendingStart
        let count = min(chunk.capacity, available)
        guard count > 0 else { return .waiting }
        for lead in 0..<min(chunk.leads.count, pending.count) {
            chunk.leads[lead].withUnsafeMutableBufferPointer { destination in
                pending[lead].withUnsafeBufferPointer { source in
                    _ = UnsafeMutableBufferPointer(rebasing: destination[0..<count])
                        .update(fromContentsOf: UnsafeBufferPointer(rebasing: source[pendingStart..<pendingStart + count]))
                }
            }
        }
        chunk.count = count
        chunk.firstSampleIndex = delivered
        pendingStart += count
        delivered += count
        return .samples(count)
    }

    /// Decodes the complete data records the file gained since the last look.
    public func poll() throws {
        let recordBytes = header.recordBytes
        let size = Int(try handle.seekToEnd())
        let complete = max(0, (size - header.headerBytes) / recordBytes)
        let new = min(complete - decoder.recordsRead, max(1, Self.maximumBytesPerRead / recordBytes))
        guard new > 0 else { return }
        let first = decoder.recordsRead
        try handle.seek(toOffset: UInt64(header.headerBytes + first * recordBytes))
        let bytes = try handle.read(upToCount: new * recordBytes) ?? Data()
        // a file cut shorter meanwhile: take the records that did arrive
        let records = bytes.count / recordBytes
        guard records > 0 else { return }
        try bytes.withUnsafeBytes { try decoder.append($0, records: first..<first + records, at: 0) }
        let samples = decoder.takeSamples()
        for (lead, position) in played.enumerated() {
            // drop what was delivered before appending, so the buffer holds only what is pending
            pending[lead].removeFirst(pendingStart)
            let (scale, baseline) = scales[lead]
            pending[lead].append(contentsOf: samples[position].map {
                decoder.isGap($0, position: position) ? .nan : Float((Double($0) - baseline) * scale)
            })
        }
        pendingStart = 0
    }
}
