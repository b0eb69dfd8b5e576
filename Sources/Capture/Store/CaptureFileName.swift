import Foundation
import Signals

/// Capture file names from operator, label and UTC start:
/// `bench2_fm-survey_20261121T101500Z.tscope`. Parts are separated by `_`;
/// inside a part anything but letters, digits, `.` and `-` becomes `-`, so a
/// name never needs quoting and splits back into its parts.
public enum CaptureFileName {
    /// The file name for a recording started at `startedAt` [s since the Unix epoch, UTC].
    public static func make(operatorName: String?, label: String?, startedAt: Double,
                            extension fileExtension: String = "tscope") -> String {
        let parts = [operatorName, label].compactMap { $0.map(sanitized) }.filter { !$0.isEmpty }
        return (parts + [utcStamp(startedAt)]).joined(separator: "_") + "." + fileExtension
    }

    /// `name` inside `directory`, with `-2`, `-3`, … before the extension if
    /// that file exists already (two sessions started in the same second).
    public static func unused(_ name: String, in directory: String) -> String {
        let base = URL(fileURLWithPath: directory)
        let first = base.appendingPathComponent(name).path
        guard FileManager.default.fileExists(atPath: first) else { return first }
        let stem = (name as NSString).deletingPathExtension
        let ext = (name as NSString).pathExtension
        var index = 2
        while true {
            let candidate = base.appendingPathComponent("\(stem)-\(index).\(ext)").path
            if !FileManager.default.fileExists(atPath: candidate) { return candidate }
            index += 1
        }
    }

    /// `YYYYMMDDTHHMMSSZ` (ISO 8601 basic format, UTC, whole seconds rounded down)
    static func utcStamp(_ time: Double) -> String { UTCDateTime(unixSeconds: time).iso8601(basic: true) }

    static func sanitized(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            let keep = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "-")
            let next: Character = keep ? Character(scalar) : "-"
            if next == "-", out.last == "-" { continue }
            out.append(next)
        }
        return String(out.drop { $0 == "-" || $0 == "." }.reversed().drop { $0 == "-" || $0 == "." }.reversed())
    }
}
