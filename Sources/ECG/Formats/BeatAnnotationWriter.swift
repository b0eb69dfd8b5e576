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
        wfdb(beats: beats.map { ($0, code) })
    }

    /// Classified beats, each with its class's MIT code (N 1, S 9, V 5, Q 13).
    public static func wfdb(beats: [ClassifiedBeat]) -> [UInt8] {
        wfdb(beats: beats.map { ($0.sample, $0.beatClass.mitCode) })
    }

    static func wfdb(beats unsorted: [(sample: Int, code: Int)]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(unsorted.count * 2 + 8)
        func word(_ value: Int) {
            bytes.append(UInt8(value & 0xFF))
            bytes.append(UInt8((value >> 8) & 0xFF))
        }
        var time = 0
        for (beat, code) in unsorted.sorted(by: { $0.sample < $1.sample }) where beat >= 0 {
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
        csv(beats: beats.map { ClassifiedBeat(sample: $0, beatClass: .normal) }, sampleRate: sampleRate)
    }

    /// `sample,time,type` with each beat's class (N, S, V, Q) as its type.
    public static func csv(beats: [ClassifiedBeat], sampleRate: Double) -> String {
        var text = "sample,time,type\n"
        for beat in beats.sorted(by: { $0.sample < $1.sample }) {
            text += "\(beat.sample),\(String(format: "%.4f", Double(beat.sample) / sampleRate)),\(beat.beatClass.rawValue)\n"
        }
        return text
    }
}
