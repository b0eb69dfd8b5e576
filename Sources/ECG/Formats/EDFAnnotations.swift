/// One Time-stamped Annotations List (TAL) of an EDF+ "EDF Annotations" signal.
public struct EDFTAL: Sendable, Equatable {
    /// seconds from the file's start date and time (may be negative)
    public var onset: Double
    /// seconds, nil when not given
    public var duration: Double?
    /// the annotation texts; empty for the time-keeping TAL that opens each data record
    public var texts: [String]
}

/// Parses the TALs in the bytes of an "EDF Annotations" signal (EDF+ spec,
/// section 2.2): each TAL is `Onset [0x15 Duration] 0x14 [Text 0x14]* 0x00`,
/// the onset a sign (`+`/`-`) and a decimal number of seconds, the duration an
/// unsigned decimal; unused bytes after the last TAL are 0x00.
public enum EDFAnnotationParser {
    static let durationMark: UInt8 = 0x15
    static let textEnd: UInt8 = 0x14
    /// onsets and durations beyond this are damage, not time (about 31 years) [s]
    public static let maximumSeconds = 1e9

    /// - Parameters:
    ///   - bytes: one data record's bytes of the annotation signal
    ///   - fileOffset: the byte offset of `bytes` in the file, for errors
    public static func parse(_ bytes: UnsafeRawBufferPointer, file: String, fileOffset: Int) throws -> [EDFTAL] {
        var tals: [EDFTAL] = []
        var position = 0
        func fail(_ at: Int, _ detail: String) -> ECGError {
            ECGError(file: file, location: .byte(fileOffset + at), "EDF Annotations: TAL does not parse: \(detail)")
        }
        while position < bytes.count {
            if bytes[position] == 0 {
                position += 1
                continue
            }
            let start = position
            guard bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") else {
                throw fail(position, "expected \"+\" or \"-\" before the onset, found byte \(bytes[position])")
            }
            position += 1
            let onsetText = number(bytes, &position)
            guard let magnitude = Double(onsetText), magnitude <= maximumSeconds, !onsetText.isEmpty else {
                throw fail(start, "expected an onset in seconds (up to 10^9), found \"\(onsetText)\"")
            }
            let onset = bytes[start] == UInt8(ascii: "-") ? -magnitude : magnitude
            var duration: Double?
            if position < bytes.count && bytes[position] == durationMark {
                position += 1
                let durationStart = position
                let durationText = number(bytes, &position)
                guard let value = Double(durationText), value <= maximumSeconds, !durationText.isEmpty else {
                    throw fail(durationStart, "expected a duration in seconds (up to 10^9), found \"\(durationText)\"")
                }
                duration = value
            }
            guard position < bytes.count && bytes[position] == textEnd else {
                throw fail(position, "expected 0x14 after the onset\(duration == nil ? "" : " and duration")")
            }
            position += 1
            // texts, each ended by 0x14, until the 0x00 that ends the TAL
            var texts: [String] = []
            while true {
                guard position < bytes.count else { throw fail(position, "TAL runs past the end of the record without its closing 0x00") }
                if bytes[position] == 0 {
                    position += 1
                    break
                }
                let textStart = position
                while position < bytes.count && bytes[position] != textEnd && bytes[position] != 0 { position += 1 }
                guard position < bytes.count, bytes[position] == textEnd else {
                    throw fail(position, "annotation text must end with 0x14")
                }
                texts.append(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[textStart..<position]), as: UTF8.self))
                position += 1
            }
            tals.append(EDFTAL(onset: onset, duration: duration, texts: texts.filter { !$0.isEmpty }))
        }
        return tals
    }

    /// digits and at most one decimal point from `position` on
    private static func number(_ bytes: UnsafeRawBufferPointer, _ position: inout Int) -> String {
        var text = ""
        while position < bytes.count, bytes[position] == UInt8(ascii: ".") || (48...57).contains(bytes[position]) {
            text.append(Character(Unicode.Scalar(bytes[position])))
            position += 1
        }
        return text
    }
}
