import Foundation

/// Reads WFDB annotations printed as text by PhysioNet's `rdann` (the form annotations are often
/// shared in: a dump beside a database, an export of a Holter program):
///
///     Elapsed time  Sample #  Type  Sub Chan  Num	Aux
///         0:00.120       30     +    0    0    0	(N
///        12:04.188   181047     N    0    0    0
///
/// Each line: the time (`m:ss.sss`, `h:mm:ss.sss`, or `[hh:mm:ss.sss dd/mm/yyyy]` for absolute times;
/// not used, the sample number is the annotation's time), the sample number, the mnemonic (WFDB annot(5):
/// N, V, A, + for a rhythm change, " for a note…), subtype, channel and number, then after a tab the aux
/// text where there is one. A header line (`Elapsed time …`, `Time …`) is skipped.
public enum WFDBAnnotationText {
    /// Whether `bytes` are rdann text rather than a binary annotation file: the first line is rdann's
    /// header or an annotation line. A binary file's first bytes are 16-bit words that do not make one.
    public static func isText(_ bytes: [UInt8]) -> Bool {
        let prefix = bytes.prefix(512)
        guard let newline = prefix.firstIndex(of: 0x0A),
              prefix[..<newline].allSatisfy({ $0 == 0x09 || $0 == 0x0D || (0x20...0x7E).contains($0) }) else { return false }
        let firstLine = String(decoding: prefix[..<newline], as: UTF8.self)
        return isHeader(firstLine) || (try? parseLine(Substring(firstLine), lineNumber: 1, file: "")) != nil
    }

    static func isHeader(_ line: String) -> Bool {
        let trimmed = line.drop { $0 == " " }
        return (trimmed.hasPrefix("Elapsed time") || trimmed.hasPrefix("Time")) && line.contains("Sample")
    }

    public static func parse(_ bytes: [UInt8], file: String) throws -> [WFDBAnnotation] {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ECGError(file: file, "expected rdann text in UTF-8")
        }
        var annotations: [WFDBAnnotation] = []
        var lineNumber = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            var line = Substring(rawLine)
            if line.last == "\r" { line = line.dropLast() }
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            if lineNumber == 1, isHeader(String(line)) { continue }
            let annotation = try parseLine(line, lineNumber: lineNumber, file: file)
            if let last = annotations.last, annotation.sample < last.sample {
                throw ECGError(file: file, location: .line(lineNumber),
                               "sample \(annotation.sample) comes after \(last.sample): expected times in order")
            }
            annotations.append(annotation)
        }
        return annotations
    }

    /// One rdann line: time, sample, mnemonic, subtype, channel, number, tab, aux.
    static func parseLine(_ line: Substring, lineNumber: Int, file: String) throws -> WFDBAnnotation {
        // the aux text follows the first tab; it may hold spaces
        let tab = line.firstIndex(of: "\t")
        let fieldsPart = tab.map { line[..<$0] } ?? line
        let aux = tab.map { String(line[line.index(after: $0)...]) }
        var rest = fieldsPart.drop { $0 == " " }
        // an absolute time is bracketed and holds a space: [12:00:00.000 01/01/2000]
        if rest.first == "[" {
            guard let close = rest.firstIndex(of: "]") else {
                throw ECGError(file: file, location: .line(lineNumber), "expected a time in brackets ending with ], found \"\(line)\"")
            }
            rest = rest[rest.index(after: close)...]
        } else {
            rest = rest.drop { $0 != " " }
        }
        let fields = rest.split(separator: " ")
        guard fields.count == 5 else {
            throw ECGError(file: file, location: .line(lineNumber),
                           "expected rdann's time, sample, type, sub, chan, num and aux, found \"\(line)\"")
        }
        guard let sample = Int(fields[0]), sample >= 0 else {
            throw ECGError(file: file, location: .line(lineNumber), "expected a sample number, found \"\(fields[0])\"")
        }
        let mnemonic = String(fields[1])
        guard let code = WFDBAnnotation.mnemonics.firstIndex(of: mnemonic), code > 0 else {
            throw ECGError(file: file, location: .line(lineNumber), "expected an annotation mnemonic (N, V, A, +, …), found \"\(mnemonic)\"")
        }
        guard let subtype = Int(fields[2]), let channel = Int(fields[3]), let number = Int(fields[4]) else {
            throw ECGError(file: file, location: .line(lineNumber), "expected sub, chan and num as integers, found \"\(fields[2...].joined(separator: " "))\"")
        }
        return WFDBAnnotation(sample: sample, code: code, subtype: subtype, channel: channel, number: number,
                              aux: aux.flatMap { $0.isEmpty ? nil : $0 })
    }
}

extension WFDBAnnotationReader {
    /// An annotation file's annotations, from its binary form or from `rdann` text.
    public static func read(contents bytes: [UInt8], file: String) throws -> [WFDBAnnotation] {
        if WFDBAnnotationText.isText(bytes) { return try WFDBAnnotationText.parse(bytes, file: file) }
        return try bytes.withUnsafeBytes { try read($0, file: file) }
    }
}
