import Foundation

/// A frequency-dependent correction added to every level: a cable's loss, a
/// preamplifier's gain, an antenna's factor. The file is a CSV of
/// `frequency_hz,correction_db` rows in increasing frequency (a header row
/// naming those columns and `#` comment lines may come before), as EMC
/// pre-compliance tools import them. Between two rows the correction is
/// linear in dB against frequency, beyond the ends held at the nearest row:
/// the interpolation the calibration uses.
///
/// Signs: the correction is added to the reading, so a cable's 2 dB of loss
/// is +2, a preamplifier's 20 dB of gain −20, and an antenna factor
/// (dB/m) is its published value, positive.
public struct LevelCorrectionTable: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        public var frequencyHz: Double
        public var correctionDB: Double

        public init(frequencyHz: Double, correctionDB: Double) {
            self.frequencyHz = frequencyHz
            self.correctionDB = correctionDB
        }
    }

    /// the file it was read from, for the status line and errors
    public var name: String
    /// increasing frequencies; at least one
    public var points: [Point]

    public init(name: String, points: [Point]) {
        self.name = name
        self.points = points
    }

    /// The correction at `frequencyHz` [dB]: linear between the neighbouring rows, the nearest row's beyond them.
    public func correctionDB(atHz frequencyHz: Double) -> Double {
        PiecewiseLinear.value(at: frequencyHz, count: points.count, x: { points[$0].frequencyHz },
                              y: { points[$0].correctionDB }) ?? 0
    }

    /// Reads a table; a problem is one `InputError` naming the line.
    public static func parse(_ text: String, file: String) throws(InputError) -> LevelCorrectionTable {
        var points: [Point] = []
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r\u{FEFF}")))
            let number = index + 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            let separator: Character = line.contains(";") ? ";" : ","
            let fields = line.split(separator: separator, omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if points.isEmpty, fields.count >= 2, Double(fields[0]) == nil, !fields[0].isEmpty,
               fields[0].first.map({ !$0.isNumber && $0 != "-" && $0 != "+" && $0 != "." }) ?? false {
                continue  // a header row
            }
            guard fields.count == 2, let hz = Double(fields[0]), let correction = Double(fields[1]),
                  hz.isFinite, hz >= 0, correction.isFinite, abs(correction) <= 200 else {
                throw InputError(file: file, location: .line(number),
                                 "expected frequency_hz,correction_db as numbers (the correction within ±200 dB), found '\(line)'")
            }
            if let last = points.last, hz <= last.frequencyHz {
                throw InputError(file: file, location: .line(number),
                                 "frequency \(hz) Hz is not above the row before (\(last.frequencyHz) Hz): rows must increase")
            }
            points.append(Point(frequencyHz: hz, correctionDB: correction))
        }
        guard !points.isEmpty else {
            throw InputError(file: file, "no frequency_hz,correction_db rows")
        }
        return LevelCorrectionTable(name: (file as NSString).lastPathComponent, points: points)
    }

    /// Reads the file at `path`.
    public static func read(path: String) throws(InputError) -> LevelCorrectionTable {
        try parse(InputError.readText(path), file: path)
    }
}
