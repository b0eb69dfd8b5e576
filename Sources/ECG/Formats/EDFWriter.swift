import Foundation

/// Writes an `ECGRecording` as EDF+C: the digital samples as they are, each
/// signal's digital and physical range from its gain and baseline, and the
/// annotations in an "EDF Annotations" signal.
public enum EDFWriter {
    /// record durations tried, shortest data record first that holds a whole
    /// number of samples of every signal [s]
    static let recordDurations: [Double] = [1, 0.5, 0.25, 0.2, 0.1, 0.05, 0.04, 0.02, 0.01, 2, 4, 5, 8, 10, 16, 20, 30, 60, 64, 128, 256, 1024]
    /// text of the annotation that marks where the data ends inside a padded last record
    public static let endText = "Recording ends"

    public static func write(_ recording: ECGRecording, to path: String) throws {
        let bytes = try encode(recording, file: path)
        guard OutputFile.write(Data(bytes), to: path) else {
            throw ECGError(file: path, "cannot write")
        }
    }

    /// The file's bytes.
    public static func encode(_ recording: ECGRecording, file: String) throws -> [UInt8] {
        let signals = recording.signals
        guard !signals.isEmpty else { throw ECGError(file: file, "no signals to write") }
        guard let duration = recordDurations.first(where: { duration in
            signals.allSatisfy { isWhole($0.sampleRate * duration) }
        }) else {
            throw ECGError(file: file, "no EDF data record length holds a whole number of samples at every rate (\(signals.map { ECGRecording.format($0.sampleRate) }.joined(separator: ", ")) Hz)")
        }
        let perRecord = signals.map { Int(($0.sampleRate * duration).rounded()) }
        let recordCount = max(1, zip(signals, perRecord).map { ($0.digital.count + $1 - 1) / $1 }.max() ?? 1)
        let length = signals.map { Double($0.digital.count) / $0.sampleRate }.max() ?? 0
        let padded = zip(signals, perRecord).contains { $0.digital.count != recordCount * $1 }

        // annotations: TALs per record, the time-keeping TAL first; each record's share ends up in its own bytes
        var talsPerRecord = Array(repeating: [UInt8](), count: recordCount)
        var annotations = recording.annotations.filter { !(padded && $0.text == endText) }
        if padded { annotations.append(ECGAnnotation(onset: length, text: endText, isBeat: false)) }
        for annotation in annotations {
            let record = Int(min(Double(recordCount - 1), max(0, annotation.onset / duration)))
            talsPerRecord[record] += tal(onset: annotation.onset, duration: annotation.duration, texts: [annotation.text])
        }
        let keeping = (0..<recordCount).map { tal(onset: Double($0) * duration, duration: nil, texts: [""]) }
        let annotationBytes = zip(keeping, talsPerRecord).map { $0.count + $1.count }.max() ?? 0
        // an even byte count, room for the longest record's TALs
        let annotationSamples = max(1, (annotationBytes + 1) / 2)

        var header = [UInt8]()
        let signalCount = signals.count + 1
        func field(_ text: String, _ width: Int) {
            var bytes = Array(text.utf8.prefix(width))
            bytes += Array(repeating: UInt8(ascii: " "), count: width - bytes.count)
            header += bytes
        }
        field("0", 8)
        // EDF+ patient and recording fields, X for unknown; the date in both header fields when known
        let start = recording.start
        let months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
        field("X X X X", 80)
        field("Startdate " + (start?.date.map { String(format: "%02d-", $0.day) + months[$0.month - 1] + String(format: "-%04d", $0.year) } ?? "X") + " X X X", 80)
        field(start?.date.map { String(format: "%02d.%02d.%02d", $0.day, $0.month, $0.year % 100) } ?? "01.01.85", 8)
        field(start.map { String(format: "%02d.%02d.%02d", $0.hour, $0.minute, $0.second) } ?? "00.00.00", 8)
        field(String(256 * (signalCount + 1)), 8)
        field("EDF+C", 44)
        field(String(recordCount), 8)
        field(try number(duration, file: file), 8)
        field(String(signalCount), 4)
        let ranges = signals.map { physicalRange($0) }
        for signal in signals { field(signal.label, 16) }
        field(EDFHeader.annotationLabel, 16)
        for _ in 0..<signalCount { field("", 80) }
        for signal in signals { field(signal.units, 8) }
        field("", 8)
        for range in ranges { field(try number(range.physical.lowerBound, file: file), 8) }
        field("-1", 8)
        for range in ranges { field(try number(range.physical.upperBound, file: file), 8) }
        field("1", 8)
        for signal in signals { field(String(signal.digitalRange.lowerBound), 8) }
        field("-32768", 8)
        for signal in signals { field(String(signal.digitalRange.upperBound), 8) }
        field("32767", 8)
        for _ in 0..<signalCount { field("", 80) }
        for count in perRecord { field(String(count), 8) }
        field(String(annotationSamples), 8)
        for _ in 0..<signalCount { field("", 32) }

        var output = header
        output.reserveCapacity(header.count + recordCount * 2 * (perRecord.reduce(0, +) + annotationSamples))
        for record in 0..<recordCount {
            for (signal, count) in zip(signals, perRecord) {
                let start = record * count
                for index in start..<start + count {
                    // padding after the data holds the last sample (the end annotation says where data ends)
                    let value = index < signal.digital.count ? signal.digital[index] : signal.digital.last ?? 0
                    output.append(UInt8(truncatingIfNeeded: value))
                    output.append(UInt8(truncatingIfNeeded: value >> 8))
                }
            }
            let tals = keeping[record] + talsPerRecord[record]
            output += tals
            output += Array(repeating: 0, count: 2 * annotationSamples - tals.count)
        }
        return output
    }

    /// The physical range that gives back the signal's gain and baseline:
    /// physical = (digital − baseline) / gain at both ends of the digital range.
    /// Both ends print in 8 characters, so gain and baseline come back to about 7 digits.
    static func physicalRange(_ signal: ECGSignal) -> (physical: ClosedRange<Double>, inverted: Bool) {
        let low = (Double(signal.digitalRange.lowerBound) - signal.baseline) / signal.gain
        let high = (Double(signal.digitalRange.upperBound) - signal.baseline) / signal.gain
        // a negative gain maps the digital minimum to the larger physical value; EDF writes it as min > max
        return signal.gain >= 0 ? (low...high, false) : (high...low, true)
    }

    /// One TAL: `+onset[0x15 duration]0x14text0x14…0x00`.
    static func tal(onset: Double, duration: Double?, texts: [String]) -> [UInt8] {
        var bytes = Array((onset < 0 ? "-" : "+").utf8) + Array(decimal(abs(onset)).utf8)
        if let duration { bytes += [0x15] + Array(decimal(duration).utf8) }
        bytes.append(0x14)
        for text in texts {
            // the separators cannot appear inside a text
            bytes += text.utf8.filter { $0 != 0x14 && $0 != 0x15 && $0 != 0 }
            bytes.append(0x14)
        }
        bytes.append(0)
        return bytes
    }

    /// a decimal without exponent, up to 7 fractional digits, trailing zeros dropped
    static func decimal(_ value: Double) -> String {
        var text = String(format: "%.7f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// a number in at most 8 characters, as many significant digits as fit
    static func number(_ value: Double, file: String) throws -> String {
        for digits in stride(from: 8, through: 1, by: -1) {
            var text = String(format: "%.\(digits)g", value)
            if text.contains("e") { continue }
            if text.contains(".") {
                while text.hasSuffix("0") { text.removeLast() }
                if text.hasSuffix(".") { text.removeLast() }
            }
            if text.count <= 8 { return text }
        }
        throw ECGError(file: file, "\(value) does not fit the 8 characters of an EDF header field")
    }

    static func isWhole(_ value: Double) -> Bool {
        value >= 1 && abs(value - value.rounded()) < 1e-6
    }
}
