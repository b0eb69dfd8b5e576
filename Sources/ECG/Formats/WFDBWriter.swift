import Foundation

/// Writes an `ECGRecording` as a WFDB record: `<name>.hea`, one format-16
/// `<name>.dat` holding every signal (several samples per frame where a
/// signal runs faster than the frame rate) and, when there are annotations,
/// `<name>.atr`.
public enum WFDBWriter {
    /// Writes the record whose header is `path` (with or without `.hea`).
    public static func write(_ recording: ECGRecording, to path: String) throws {
        let base = WFDBRecordReader.recordBase(path)
        let name = (base as NSString).lastPathComponent
        let files = try encode(recording, name: name, file: base + ".hea")
        try save(files.header, to: base + ".hea")
        try save(files.data, to: base + ".dat")
        if let annotations = files.annotations { try save(annotations, to: base + ".atr") }
    }

    static func save(_ bytes: [UInt8], to path: String) throws {
        guard OutputFile.write(Data(bytes), to: path) else {
            throw ECGError(file: path, "cannot write")
        }
    }

    /// The header, data and annotation files' bytes.
    public static func encode(_ recording: ECGRecording, name: String, file: String) throws
        -> (header: [UInt8], data: [UInt8], annotations: [UInt8]?) {
        let signals = recording.signals
        guard !signals.isEmpty else { throw ECGError(file: file, "no signals to write") }
        let (frameRate, perFrame) = try frames(signals.map(\.sampleRate), file: file)
        let frameCount = zip(signals, perFrame).map { ($0.digital.count + $1 - 1) / $1 }.max() ?? 0
        if zip(signals, perFrame).contains(where: { $0.digital.count != frameCount * $1 }) {
            throw ECGError(file: file, "signals end at different times (\(signals.map { "\($0.label) \($0.digital.count)" }.joined(separator: ", ")) samples): WFDB frames need them equally long")
        }
        var data = [UInt8]()
        data.reserveCapacity(2 * frameCount * perFrame.reduce(0, +))
        // format 16 marks a missing sample with −32768
        let missing = WFDBSignalDecoder.invalidSample(format: 16)
        for frame in 0..<frameCount {
            for (signal, count) in zip(signals, perFrame) {
                for stored in signal.digital[frame * count..<(frame + 1) * count] {
                    let value = stored == signal.missingValue ? missing : stored
                    data.append(UInt8(truncatingIfNeeded: value))
                    data.append(UInt8(truncatingIfNeeded: value >> 8))
                }
            }
        }
        var text = "\(name) \(signals.count) \(ECGRecording.format(frameRate)) \(frameCount)"
        if let start = recording.start {
            text += " " + start.wfdb.time + (start.wfdb.date.map { " " + $0 } ?? "")
        }
        text += "\n"
        for (signal, count) in zip(signals, perFrame) {
            var checksum: UInt16 = 0
            for value in signal.digital { checksum &+= UInt16(bitPattern: value) }
            // WFDB baselines are integers; an EDF baseline between two adu values rounds to the nearer
            let baseline = Int(signal.baseline.rounded())
            let units = signal.units.isEmpty ? "" : "/" + signal.units.replacingOccurrences(of: " ", with: "_")
            let format = count == 1 ? "16" : "16x\(count)"
            // ADC resolution and zero that give back the digital range (212's −2048…2047: 12 bits around 0)
            let range = signal.digitalRange
            let bits = max(1, min(16, Int(ceil(log2(Double(range.upperBound - range.lowerBound + 1))))))
            let zero = range.lowerBound + (1 << (bits - 1))
            text += "\(name).dat \(format) \(gainText(signal.gain))(\(baseline))\(units) \(bits) \(zero) \(signal.digital.first ?? 0) \(Int16(bitPattern: checksum)) 0 \(signal.label)\n"
        }
        // annotations count in ticks of the fastest signal, so a 500 Hz lead in 125 Hz frames keeps its beat times;
        // the file then says so with WFDB's `## time resolution: F` note
        let fastest = signals.map(\.sampleRate).max() ?? frameRate
        let annotations = recording.annotations.isEmpty ? nil
            : annotationBytes(recording.annotations, ticksPerSecond: fastest, declareResolution: fastest != frameRate)
        return (Array(text.utf8), data, annotations)
    }

    /// The frame rate and each signal's samples per frame: the slowest rate
    /// when every other is a whole multiple of it.
    static func frames(_ rates: [Double], file: String) throws -> (Double, [Int]) {
        let slowest = rates.min() ?? 1
        let multiples = rates.map { $0 / slowest }
        guard multiples.allSatisfy({ abs($0 - $0.rounded()) < 1e-9 }) else {
            throw ECGError(file: file, "rates \(rates.map { ECGRecording.format($0) }.joined(separator: ", ")) Hz are not whole multiples of the slowest: no WFDB frame holds them; choose leads with --lead")
        }
        return (slowest, multiples.map { Int($0.rounded()) })
    }

    /// gain text: integer when whole, else 9 significant digits (more than an
    /// EDF header's 8-character physical range carries)
    static func gainText(_ gain: Double) -> String {
        gain == gain.rounded() && abs(gain) < 1e15 ? String(Int(gain)) : String(format: "%.9g", gain)
    }

    /// MIT-format annotations in ticks of `ticksPerSecond` (see `WFDBAnnotationReader`):
    /// beats by their mnemonic's code, other texts as notes with the text as AUX.
    static func annotationBytes(_ annotations: [ECGAnnotation], ticksPerSecond: Double, declareResolution: Bool = false) -> [UInt8] {
        var bytes = [UInt8]()
        func word(_ code: Int, _ value: Int) {
            let word = UInt16(code << 10 | (value & 0x3FF))
            bytes += [UInt8(word & 0xFF), UInt8(word >> 8)]
        }
        var time = 0
        var all = annotations.sorted { $0.onset < $1.onset }
        if declareResolution {
            all.insert(ECGAnnotation(onset: 0, text: WFDBAnnotationReader.timeResolutionPrefix + ECGRecording.format(ticksPerSecond),
                                     isBeat: false), at: 0)
        }
        for annotation in all {
            // ticks fit the 32-bit SKIP; onsets outside the record clamp to its ends
            let tick = Int(min(Double(Int32.max), max(0, (annotation.onset * ticksPerSecond).rounded())))
            let delta = tick - time
            // a beat's mnemonic gives its code; "(AFIB" is a rhythm change, any other text a note
            let code = WFDBAnnotation.mnemonics.firstIndex(of: annotation.text).flatMap { $0 > 0 ? $0 : nil }
                ?? (annotation.text.hasPrefix("(") ? WFDBAnnotation.rhythmCode : WFDBAnnotation.noteCode)
            if delta > 0x3FF {
                // SKIP: the 32-bit increment follows, high word first
                word(WFDBAnnotationReader.skip, 0)
                let increment = UInt32(truncatingIfNeeded: delta)
                bytes += [UInt8((increment >> 16) & 0xFF), UInt8(increment >> 24), UInt8(increment & 0xFF), UInt8((increment >> 8) & 0xFF)]
                word(code, 0)
            } else {
                word(code, delta)
            }
            time = tick
            if code == WFDBAnnotation.noteCode || code == WFDBAnnotation.rhythmCode {
                let text = Array(annotation.text.utf8.prefix(0x3FF))
                word(WFDBAnnotationReader.aux, text.count)
                bytes += text
                if text.count % 2 == 1 { bytes.append(0) }
            }
        }
        word(0, 0)
        return bytes
    }
}
