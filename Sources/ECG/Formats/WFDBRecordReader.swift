import Foundation

/// Reads a WFDB record (header, signal files, annotations) from disk.
public enum WFDBRecordReader {
    /// Loads the record whose header is `path` (with or without `.hea`): the
    /// signals at the rate of `lead` (nil: `ECGRecording.defaultLead`), in mV.
    /// `strict`: refuse a record cut short instead of reading its complete frames.
    public static func read(path: String, lead: LeadSelector? = nil, strict: Bool = false) throws -> ECGRecord {
        try readRecording(path: path, strict: strict).record(lead: lead, file: recordBase(path) + ".hea").record
    }

    /// Loads every signal at its own rate in digital units, with the beats and
    /// notes of `<record>.<annotator>` when that file exists.
    /// - Parameter strict: refuse a record whose signal file ends before the header's sample count (else
    ///   its complete frames are used and a note says what was missing)
    public static func readRecording(path: String, annotator: String = "atr", strict: Bool = false) throws -> ECGRecording {
        let base = recordBase(path)
        let headerPath = base + ".hea"
        let header = try WFDBHeader.parse(String(decoding: try contents(of: headerPath), as: UTF8.self), file: headerPath)
        let directory = (headerPath as NSString).deletingLastPathComponent
        var recording = try decodeRecording(header: header, strict: strict) { name in
            let dataPath = directory.isEmpty ? name : directory + "/" + name
            return (dataPath, try contents(of: dataPath))
        }
        if FileManager.default.fileExists(atPath: base + "." + annotator) {
            recording.annotations = try readAnnotationTimes(recordPath: path, annotator: annotator, frameRate: header.sampleRate)
        }
        return recording
    }

    /// Loads the annotations `<record>.<annotator>` next to the record, e.g. `100.atr`,
    /// times in the file's own ticks (see `readAnnotationTimes` for seconds).
    public static func readAnnotations(recordPath: String, annotator: String = "atr") throws -> [WFDBAnnotation] {
        let path = recordBase(recordPath) + "." + annotator
        let bytes = try contents(of: path)
        return try WFDBAnnotationReader.read(contents: bytes, file: path)
    }

    /// Loads `<record>.<annotator>` with times in seconds. An annotation file
    /// counts in ticks of its `## time resolution: F` note when it opens with
    /// one (written by WFDB's high-resolution mode and other tools), else in
    /// frames of the record (`frameRate`; read from the header when nil).
    public static func readAnnotationTimes(recordPath: String, annotator: String = "atr",
                                           frameRate: Double? = nil) throws -> [ECGAnnotation] {
        let annotations = try readAnnotations(recordPath: recordPath, annotator: annotator)
        let headerPath = recordBase(recordPath) + ".hea"
        let ticksPerSecond = try WFDBAnnotationReader.timeResolution(annotations, file: recordBase(recordPath) + "." + annotator) ?? frameRate
            ?? WFDBHeader.parse(String(decoding: try contents(of: headerPath), as: UTF8.self), file: headerPath).sampleRate
        return annotations.filter { !WFDBAnnotationReader.isTimeResolutionNote($0) }.map {
            ECGAnnotation(onset: Double($0.sample) / ticksPerSecond, text: $0.text, isBeat: $0.isBeat)
        }
    }

    /// Decodes the signals a header describes at their rates, in digital units;
    /// `load` returns a data file's path and bytes.
    /// A signal file that ends before the header's sample count (a copy made
    /// while it was written, a partial download) gives the frames every file
    /// holds and a note saying how many the header declares and where the
    /// data ends; `strict` refuses it.
    package static func decodeRecording(header: WFDBHeader, strict: Bool = false,
                                        load: (String) throws -> (path: String, bytes: [UInt8])) throws -> ECGRecording {
        var adu = Array(repeating: [Int16](), count: header.signals.count)
        var frameCount = header.sampleCount
        let groups = fileGroups(header.signals)
        let files = try groups.map { try load(header.signals[$0[0]].fileName) }
        var cutShort: String?
        var checksumNotes: [String] = []
        if !strict, let declared = frameCount {
            let held = zip(groups, files).map { group, file in
                (file, WFDBSignalDecoder.availableFrames(byteCount: file.bytes.count, format: header.signals[group[0]].format,
                                                         samplesPerFrame: group.map { header.signals[$0].samplesPerFrame },
                                                         byteOffset: header.signals[group[0]].byteOffset))
            }
            if let shortest = held.min(by: { $0.1 < $1.1 }), shortest.1 < declared {
                frameCount = shortest.1
                cutShort = "cut short: \(shortest.0.path) ends at byte \(shortest.0.bytes.count), after \(shortest.1) of the "
                    + "\(declared) frames the header declares; the \(shortest.1) complete frames are used (--strict refuses the record)"
            }
        }
        for (group, file) in zip(groups, files) {
            let first = header.signals[group[0]]
            let (path, bytes) = file
            for index in group where header.signals[index].format != first.format {
                throw ECGError(file: path, "signals in one file must share a format (found \(first.format) and \(header.signals[index].format))")
            }
            let perFrame = group.map { header.signals[$0].samplesPerFrame }
            let decoded = try bytes.withUnsafeBytes {
                try WFDBSignalDecoder.decode($0, format: first.format, samplesPerFrame: perFrame,
                                            byteOffset: first.byteOffset, frameCount: frameCount, file: path)
            }
            let frames = decoded[0].count / perFrame[0]
            if let known = frameCount, frames != known {
                throw ECGError(file: path, "data holds \(frames) frames, other files of the record hold \(known)")
            }
            frameCount = frames
            for (position, index) in group.enumerated() {
                let spec = header.signals[index]
                if let mismatch = try checksumMismatch(decoded[position], spec: spec, signal: index,
                                                       complete: header.sampleCount != nil && cutShort == nil,
                                                       strict: strict, file: path) {
                    checksumNotes.append(mismatch)
                }
                adu[index] = deskewed(decoded[position], spec: spec)
            }
        }
        let signals = header.signals.enumerated().map { index, spec in
            ECGSignal(label: spec.description.isEmpty ? "signal \(index)" : spec.description,
                      sampleRate: spec.sampleRate(frameRate: header.sampleRate), units: spec.units,
                      gain: spec.gain, baseline: Double(spec.baseline), digitalRange: digitalRange(spec),
                      missingValue: WFDBSignalDecoder.invalidSample(format: spec.format), digital: adu[index])
        }
        var recording = ECGRecording(name: header.recordName, signals: signals)
        recording.start = ECGStartTime(wfdbTime: header.baseTime, date: header.baseDate)
        if let cutShort { recording.notes.append(cutShort) }
        recording.notes.append(contentsOf: checksumNotes)
        return recording
    }

    /// Decodes the signals a header describes, at the rate of the default lead.
    package static func decode(header: WFDBHeader, load: (String) throws -> (path: String, bytes: [UInt8])) throws -> ECGRecord {
        try decodeRecording(header: header, load: load).record(lead: nil, file: header.recordName).record
    }

    /// A skewed signal's sample t sits in frame t + skew: shift it back and
    /// mark the frames after the data ends missing.
    static func deskewed(_ values: [Int16], spec: WFDBSignalSpec) -> [Int16] {
        let shift = min(values.count, spec.skew * spec.samplesPerFrame)
        guard shift > 0 else { return values }
        return Array(values[shift...]) + Array(repeating: WFDBSignalDecoder.invalidSample(format: spec.format), count: shift)
    }

    /// the digital values the signal's ADC resolution allows, around its ADC zero
    static func digitalRange(_ spec: WFDBSignalSpec) -> ClosedRange<Int> {
        let bits = min(spec.adcResolution, spec.format == 212 ? 12 : 16)
        let half = 1 << (bits - 1)
        let low = max(spec.adcZero - half, spec.format == 212 ? -2048 : Int(Int16.min))
        let high = min(spec.adcZero + half - 1, spec.format == 212 ? 2047 : Int(Int16.max))
        return low <= high ? low...high : (spec.format == 212 ? -2048...2047 : Int(Int16.min)...Int(Int16.max))
    }

    /// Signal indices grouped by data file, in header order.
    static func fileGroups(_ signals: [WFDBSignalSpec]) -> [[Int]] {
        var groups: [[Int]] = []
        var groupOfFile: [String: Int] = [:]
        for (index, spec) in signals.enumerated() {
            if let group = groupOfFile[spec.fileName] {
                groups[group].append(index)
            } else {
                groupOfFile[spec.fileName] = groups.count
                groups.append([index])
            }
        }
        return groups
    }

    /// The header's checksum is the sum of all samples modulo 2^16; a mismatch
    /// means the wrong format, damaged data, or a placeholder: PhysioNet ships
    /// the CinC 2017 headers with checksum 0 whatever the data holds, and its
    /// own readers only warn. So a mismatch is a note naming the data file (returned; the caller prefixes the record),
    /// and `strict` refuses it.
    static func checksumMismatch(_ values: [Int16], spec: WFDBSignalSpec, signal: Int, complete: Bool,
                                 strict: Bool, file: String) throws -> String? {
        guard complete, let expected = spec.checksum else { return nil }
        var sum: UInt16 = 0
        for value in values { sum &+= UInt16(bitPattern: value) }
        guard sum != UInt16(truncatingIfNeeded: expected) else { return nil }
        let found = "checksum of signal \(signal) (\(spec.description)) in \(spec.fileName) is \(Int16(bitPattern: sum)), the header says \(expected)"
        if strict {
            throw ECGError(file: file, found + ": damaged data or wrong format in the header (--strict)")
        }
        return found + "; read anyway (a placeholder such as PhysioNet's 0, or damaged data; --strict refuses it)"
    }

    /// the record path without a `.hea` extension
    public static func recordBase(_ path: String) -> String {
        path.hasSuffix(".hea") ? String(path.dropLast(4)) : path
    }

    package static func contents(of path: String) throws -> [UInt8] {
        guard let bytes = wholeFile(path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot read (permission?)" : "no such file"
            throw ECGError(file: path, reason)
        }
        return bytes
    }

    /// A file's bytes read with open/fstat/read straight into the array (nil if it cannot be opened or
    /// read, or is a directory), as `FileManager.contents(atPath:)` gave them: that call, then copying its
    /// `Data` into an array, was about a hundredth of `ecg classify`'s time for a CinC record's two small
    /// files. Reads until the end, so a file whose size `fstat` does not know (a pipe) is read whole too.
    static func wholeFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT != S_IFDIR else { return nil }
        // one byte more than the size, so a regular file's end shows in the first read's count
        var capacity = max(0, Int(status.st_size)) + 1
        var bytes = [UInt8]()
        while true {
            if bytes.count == capacity { capacity *= 2 }
            var failed = false
            let before = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: capacity - before))
            let count = bytes.withUnsafeMutableBufferPointer { buffer -> Int in
                while true {
                    let count = Glibc.read(descriptor, buffer.baseAddress! + before, capacity - before)
                    if count < 0, errno == EINTR { continue }
                    if count < 0 { failed = true }
                    return max(count, 0)
                }
            }
            bytes.removeLast(capacity - before - count)
            if failed { return nil }
            if count == 0 { return bytes }
        }
    }
}
