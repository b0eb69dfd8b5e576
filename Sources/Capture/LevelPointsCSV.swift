import DSP
import Foundation
import Signals

/// A limit line or baseline as CSV: `frequency_hz,level_db` rows (the file
/// `export --trace` writes, or one written by hand), an optional header line,
/// `#` comments and blank lines skipped; rows with an empty level (no data)
/// are left out. Returns the points sorted by frequency.
///
/// A header may state the levels' unit in its second column: `level_dbm`,
/// `level_dbuv`, `level_dbmv` or `level_dbuv_m` (also `level_dbuv/m`);
/// `level_db`, or no header, states none (`unit(path:)`).
public enum LevelPointsCSV {
    /// The unit the file's header states for its levels; nil for none.
    public static func unit(path: String) throws -> PowerUnit? {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw CaptureError(file: path, "cannot read: \((error as NSError).localizedDescription)")
        }
        guard let first = text.split(separator: "\n").first(where: {
            let line = $0.trimmingCharacters(in: .whitespaces)
            return !line.isEmpty && !line.hasPrefix("#")
        }) else { return nil }
        let fields = first.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }
        guard fields.count == 2, Double(fields[0]) == nil, fields[1].hasPrefix("level_") else { return nil }
        switch fields[1].dropFirst("level_".count) {
        case "db": return nil
        case "dbm": return .dBm
        case "dbuv": return .dBuV
        case "dbmv": return .dBmV
        case "dbuv_m", "dbuv/m", "dbuv_per_m": return .dBuVPerMetre
        case let other:
            throw CaptureError(file: path, location: .line(1),
                               "level unit '\(other)' is not one of db, dbm, dbuv, dbmv, dbuv_m (as level_dbuv)")
        }
    }

    public static func read(path: String) throws -> [LevelPoint] {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw CaptureError(file: path, "cannot read: \((error as NSError).localizedDescription)")
        }
        var points: [LevelPoint] = []
        var sawData = false
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 2, let hz = Double(fields[0]), hz.isFinite else {
                // one header line before the data is fine
                if !sawData && points.isEmpty && index == 0 && Double(fields[0]) == nil { continue }
                throw CaptureError(file: path, location: .line(index + 1),
                                   "expected 'frequency_hz,level_db', found '\(line.prefix(60))'")
            }
            sawData = true
            if fields[1].isEmpty { continue }
            guard let level = Float(fields[1]), !level.isNaN else {
                throw CaptureError(file: path, location: .line(index + 1), "level '\(fields[1])' is not a number in dB")
            }
            points.append(LevelPoint(hz: hz, decibels: level))
        }
        guard !points.isEmpty else { throw CaptureError(file: path, "no 'frequency_hz,level_db' rows") }
        return points.sorted { $0.hz < $1.hz }
    }
}
