import Foundation

/// Writes detected beats where other tools read them: a WFDB (MIT-format)
/// annotation file, readable by PhysioNet's `rdann`/`bxb` and wfdb-python's
/// `rdann`, or a CSV `sample,time,type`.
public enum BeatAnnotationWriter {
    /// WFDB code of a normal beat (N)
    public static let normalBeat = 1

    /// MIT-format annotation bytes (annot(5)): per beat one 16-bit little-endian
    /// word, code in the top 6 bits and the increment from the previous
    /// annotation [samples] in the low 10; an increment over 1023 goes first in
    /// a SKIP (code 59, then the 32-bit increment as two words, high first) and
    /// the beat follows with increment 0. A zero word ends the file.
    public static func wfdb(beats: [Int], code: Int = normalBeat) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(beats.count * 2 + 8)
        func word(_ value: Int) {
            bytes.append(UInt8(value & 0xFF))
            bytes.append(UInt8((value >> 8) & 0xFF))
        }
        var time = 0
        for beat in beats.sorted() where beat >= 0 {
            var increment = beat - time
            if increment > 1023 {
                let skip = UInt32(truncatingIfNeeded: increment)
                word(WFDBAnnotationReader.skip << 10)
                word(Int(skip >> 16))
                word(Int(skip & 0xFFFF))
                increment = 0
            }
            word(code << 10 | increment)
            time = beat
        }
        word(0)
        return bytes
    }

    /// `sample,time,type` with time in seconds from the record start, type `N`.
    public static func csv(beats: [Int], sampleRate: Double) -> String {
        var text = "sample,time,type\n"
        for beat in beats.sorted() {
            text += "\(beat),\(String(format: "%.4f", Double(beat) / sampleRate)),N\n"
        }
        return text
    }
}
