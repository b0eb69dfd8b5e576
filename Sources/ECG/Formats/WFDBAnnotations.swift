import Foundation

/// One annotation of a WFDB annotation file.
public struct WFDBAnnotation: Sendable, Equatable {
    /// sample index from the start of the record
    public var sample: Int
    /// annotation code (1 = N normal beat, 5 = V, 8 = A, 28 = rhythm change, …)
    public var code: Int
    public var subtype: Int
    public var channel: Int
    public var number: Int
    /// auxiliary text, e.g. "(N" for a rhythm annotation
    public var aux: String?

    public init(sample: Int, code: Int, subtype: Int = 0, channel: Int = 0, number: Int = 0, aux: String? = nil) {
        self.sample = sample
        self.code = code
        self.subtype = subtype
        self.channel = channel
        self.number = number
        self.aux = aux
    }

    /// Beat annotation codes (WFDB ecgcodes.h, `isqrs`): NORMAL…UNKNOWN (1–13),
    /// BBB (25), LEARN (30), AESC (34), SVESC (35), PFUS (38), RONT (41).
    public static let beatCodes: Set<Int> = Set(1...13).union([25, 30, 34, 35, 38, 41])

    public var isBeat: Bool { Self.beatCodes.contains(code) }

    /// NOTE, the code of free-text notes such as `## time resolution: 500`
    public static let noteCode = 22
    /// rhythm change: the aux text names the rhythm ("(AFIB")
    public static let rhythmCode = 28

    /// Mnemonics of codes 1–41 (WFDB ecgcodes.h / annot(5)), "" for unused codes.
    static let mnemonics: [String] = [
        "", "N", "L", "R", "a", "V", "F", "J", "A", "S", "E", "j", "/", "Q", "~", "", "|", "", "s", "T", "*",
        "D", "\"", "=", "p", "B", "^", "t", "+", "u", "?", "!", "[", "]", "e", "n", "@", "x", "f", "(", ")", "r",
    ]

    /// the annotation as text: the aux text of a rhythm change or note, else the code's mnemonic
    public var text: String {
        if let aux, !aux.isEmpty, code == Self.rhythmCode || code == Self.noteCode { return aux }
        return code < Self.mnemonics.count && !Self.mnemonics[code].isEmpty ? Self.mnemonics[code] : "code \(code)"
    }
}

/// Reads MIT-format annotation files (`.atr`).
///
/// The file is a sequence of 16-bit little-endian words: the top 6 bits are a
/// code, the low 10 bits a time increment [samples] or a length. Codes 1–49 are
/// annotations; pseudo-codes modify the annotation before them or the clock
/// (WFDB annot(5) specification): 59 SKIP (the next two words hold a 32-bit
/// increment, high word first), 60 NUM, 61 SUB, 62 CHN (the 10 bits are the
/// value), 63 AUX (the 10 bits are a byte count; the text follows, padded to
/// an even length). A zero word ends the file.
public enum WFDBAnnotationReader {
    static let skip = 59, num = 60, sub = 61, chn = 62, aux = 63
    static let timeResolutionPrefix = "## time resolution: "

    /// whether the annotation is the `## time resolution: F` note at time 0 that
    /// declares the file's ticks per second (file metadata, not an event)
    public static func isTimeResolutionNote(_ annotation: WFDBAnnotation) -> Bool {
        annotation.sample == 0 && annotation.code == WFDBAnnotation.noteCode
            && annotation.aux?.hasPrefix(timeResolutionPrefix) == true
    }

    /// The ticks per second the file's `## time resolution: F` note declares,
    /// nil when it has none; an unreadable or non-positive F is an error.
    public static func timeResolution(_ annotations: [WFDBAnnotation], file: String) throws -> Double? {
        guard let note = annotations.first(where: isTimeResolutionNote), let aux = note.aux else { return nil }
        let text = aux.dropFirst(timeResolutionPrefix.count).trimmingCharacters(in: .whitespaces)
        guard let value = Double(text), value.isFinite, value > 0 else {
            throw ECGError(file: file, "expected a positive rate after \"\(timeResolutionPrefix)\", found \"\(text)\"")
        }
        return value
    }

    public static func read(_ bytes: UnsafeRawBufferPointer, file: String) throws -> [WFDBAnnotation] {
        var annotations: [WFDBAnnotation] = []
        var offset = 0
        var time = 0
        // NUM and CHN persist from one annotation to the next; SUB does not
        var number = 0
        var channel = 0

        func word(at position: Int) throws -> Int {
            guard position + 2 <= bytes.count else {
                throw ECGError(file: file, location: .byte(position), "annotation file ends inside a 16-bit word")
            }
            return Int(bytes[position]) | Int(bytes[position + 1]) << 8
        }

        while offset < bytes.count {
            let current = try word(at: offset)
            let code = current >> 10
            let value = current & 0x3FF
            let start = offset
            offset += 2
            switch code {
            case 0 where value == 0:
                return annotations
            case skip:
                let high = try word(at: offset)
                let low = try word(at: offset + 2)
                offset += 4
                time += Int(Int32(bitPattern: UInt32(high << 16 | low)))
            case num:
                number = value
                annotations.updateLast { $0.number = value }
            case sub:
                annotations.updateLast { $0.subtype = value }
            case chn:
                channel = value
                annotations.updateLast { $0.channel = value }
            case aux:
                guard offset + value <= bytes.count else {
                    throw ECGError(file: file, location: .byte(start),
                                   "auxiliary text of \(value) bytes runs past the end of the file")
                }
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + value]), as: UTF8.self)
                annotations.updateLast { $0.aux = text.split(separator: "\0", omittingEmptySubsequences: false).first.map(String.init) ?? "" }
                offset += value + value % 2
            case 0:
                // a code-0 word with an increment only advances the clock (NOTQRS)
                time += value
            default:
                time += value
                guard time >= 0 else {
                    throw ECGError(file: file, location: .byte(start), "annotation time \(time) is before the record start")
                }
                annotations.append(WFDBAnnotation(sample: time, code: code, channel: channel, number: number))
            }
        }
        return annotations
    }
}

extension Array {
    /// applies `change` to the last element, if any
    mutating func updateLast(_ change: (inout Element) -> Void) {
        guard !isEmpty else { return }
        change(&self[count - 1])
    }
}
