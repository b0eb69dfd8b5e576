import Foundation
import Signals

/// `occupancy --channels FILE`: a CSV of channels, one per line, either
/// `start_hz,stop_hz` or, under a header naming them, `centre_hz,width_hz`
/// (`center_hz` too). Frequencies in Hz (`1.5e6` is fine). Blank lines and
/// `#` comments are skipped; a header line is recognised by its words.
public enum OccupancyChannelsFile {
    public static func read(path: String) throws -> [FrequencyRange] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandError("\(path): cannot be read")
        }
        return try parse(String(decoding: data, as: UTF8.self), file: path)
    }

    public static func parse(_ text: String, file: String) throws -> [FrequencyRange] {
        var centreWidth = false
        var channels: [FrequencyRange] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            let where_ = "\(file):\(index + 1)"
            if channels.isEmpty, fields.first.map({ Double($0) == nil }) == true {
                guard fields.count >= 2 else { throw CommandError("\(where_): expected a header start_hz,stop_hz or centre_hz,width_hz") }
                switch (fields[0], fields[1]) {
                case ("start_hz", "stop_hz"): centreWidth = false
                case ("centre_hz", "width_hz"), ("center_hz", "width_hz"): centreWidth = true
                default: throw CommandError("\(where_): expected a header start_hz,stop_hz or centre_hz,width_hz, found '\(line)'")
                }
                continue
            }
            guard fields.count >= 2, let a = Double(fields[0]), let b = Double(fields[1]), a.isFinite, b.isFinite else {
                throw CommandError("\(where_): expected " + (centreWidth ? "centre_hz,width_hz" : "start_hz,stop_hz")
                    + " in Hz, found '\(line)'")
            }
            let range = centreWidth ? FrequencyRange(lowerHz: a - b / 2, upperHz: a + b / 2)
                : FrequencyRange(lowerHz: a, upperHz: b)
            guard let range, range.lowerHz >= 0 else {
                throw CommandError("\(where_): " + (centreWidth ? "expected a width above 0 Hz below the centre"
                    : "expected start_hz below stop_hz, both 0 Hz or more"))
            }
            channels.append(range)
        }
        guard !channels.isEmpty else { throw CommandError("\(file): no channel in it") }
        return channels
    }
}
