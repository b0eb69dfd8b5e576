import Foundation

/// A calibration of one analyzer: per frequency the offset that turns its
/// relative level (dB full scale) into the power at its input [dBm], the
/// settings and total gain it was made at, whom it was made for, and how
/// repeatable each point was. `tscope calibrate` writes it; every command
/// applies it through `DSP.CalibrationCorrection`.
///
/// On disk (Firmware-Notes/calibration.md): `#` lines of `key: value`
/// metadata, then CSV with the header `frequency_hz,offset_db,uncertainty_db`,
/// one row per reference, frequencies strictly increasing.
public struct CalibrationTable: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        /// reference frequency [Hz]
        public var frequencyHz: Double
        /// dBm = reading [dB] + offset, at the table's gain
        public var offsetDB: Double
        /// one standard deviation of the reference's readings over the sweeps measured [dB]
        public var uncertaintyDB: Double

        public init(frequencyHz: Double, offsetDB: Double, uncertaintyDB: Double) {
            self.frequencyHz = frequencyHz
            self.offsetDB = offsetDB
            self.uncertaintyDB = uncertaintyDB
        }
    }

    /// "HackRF One"
    public var model: String
    /// USB serial number; "" when the analyzer has none (the demo device has one)
    public var serial: String
    /// firmware version the analyzer reported, or ""
    public var firmware: String
    /// the settings it was made at, as the status line shows them ("LNA 16 dB, VGA 20 dB, amp off")
    public var settings: String
    /// the analyzer's total gain at those settings [dB]; another gain is corrected by the difference.
    /// nil where the gain is not known (automatic gain): then only that setting is calibrated
    public var gainDB: Double?
    /// when it was made [s since the Unix epoch, UTC]
    public var madeAt: Double
    /// increasing frequencies
    public var points: [Point]

    public init(model: String, serial: String, firmware: String, settings: String, gainDB: Double?, madeAt: Double,
                points: [Point]) {
        self.model = model
        self.serial = serial
        self.firmware = firmware
        self.settings = settings
        self.gainDB = gainDB
        self.madeAt = madeAt
        self.points = points
    }

    /// the frequencies it covers [Hz]: first to last point (a single point covers just itself)
    public var coveredHz: ClosedRange<Double>? {
        guard let first = points.first, let last = points.last else { return nil }
        return first.frequencyHz...last.frequencyHz
    }

    /// the largest point uncertainty [dB]
    public var worstUncertaintyDB: Double { points.map(\.uncertaintyDB).max() ?? 0 }

    /// The offset at `frequencyHz` [dB], linear in dB between the two
    /// neighbouring points; nil outside the calibrated range.
    public func offsetDB(atHz frequencyHz: Double) -> Double? {
        guard let covered = coveredHz, covered.contains(frequencyHz) else { return nil }
        return PiecewiseLinear.value(at: frequencyHz, count: points.count, x: { points[$0].frequencyHz },
                                     y: { points[$0].offsetDB })
    }

    // MARK: the file

    static let header = "frequency_hz,offset_db,uncertainty_db"
    static let magic = "# tscope calibration 1"

    /// The table as its file holds it.
    public var fileText: String {
        var text = Self.magic + "\n"
        text += "# model: \(model)\n# serial: \(serial)\n# firmware: \(firmware)\n# settings: \(settings)\n"
        text += "# gain_db: \(gainDB.map { Self.number($0) } ?? "unknown")\n"
        text += "# made: \(Self.iso8601(madeAt))\n"
        text += "# uncertainty: one standard deviation of each reference's readings [dB]\n"
        text += Self.header + "\n"
        for point in points {
            text += "\(Self.number(point.frequencyHz)),\(String(format: "%.3f", point.offsetDB)),"
                + "\(String(format: "%.3f", point.uncertaintyDB))\n"
        }
        return text
    }

    /// Reads a table; a problem is one `InputError` naming the line.
    public static func parse(_ text: String, file: String) throws(InputError) -> CalibrationTable {
        var metadata: [String: String] = [:]
        var points: [Point] = []
        var sawHeader = false
        var sawMagic = false
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            let number = index + 1
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                if line == magic { sawMagic = true; continue }
                let body = line.dropFirst().trimmingCharacters(in: .whitespaces)
                if let colon = body.firstIndex(of: ":") {
                    metadata[String(body[..<colon])] = body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                continue
            }
            guard sawMagic else {
                throw InputError(file: file, location: .line(number), "expected '\(magic)' before the data: not a tscope calibration")
            }
            if !sawHeader {
                guard line == header else {
                    throw InputError(file: file, location: .line(number), "expected the header '\(header)', found '\(line)'")
                }
                sawHeader = true
                continue
            }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 3, let hz = Double(fields[0]), let offset = Double(fields[1]),
                  let uncertainty = Double(fields[2]), hz.isFinite, hz >= 0, offset.isFinite,
                  uncertainty.isFinite, uncertainty >= 0 else {
                throw InputError(file: file, location: .line(number),
                                 "expected frequency_hz,offset_db,uncertainty_db as numbers, found '\(line)'")
            }
            if let last = points.last, hz <= last.frequencyHz {
                throw InputError(file: file, location: .line(number),
                                 "frequency \(Self.number(hz)) Hz is not above the row before (\(Self.number(last.frequencyHz)) Hz)")
            }
            points.append(Point(frequencyHz: hz, offsetDB: offset, uncertaintyDB: uncertainty))
        }
        guard sawMagic else { throw InputError(file: file, "empty or not a tscope calibration (no '\(magic)' line)") }
        guard !points.isEmpty else { throw InputError(file: file, "no calibration points after the header") }
        let gain = metadata["gain_db"].flatMap(Double.init)
        return CalibrationTable(model: metadata["model"] ?? "", serial: metadata["serial"] ?? "",
                                firmware: metadata["firmware"] ?? "", settings: metadata["settings"] ?? "",
                                gainDB: gain, madeAt: metadata["made"].flatMap(parseISO8601) ?? 0, points: points)
    }

    /// Reads the file at `path`.
    public static func read(path: String) throws(InputError) -> CalibrationTable {
        try parse(try InputError.readText(path), file: path)
    }

    /// "1000000", "433920000.5"
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.3f", value)
    }

    static func iso8601(_ time: Double) -> String { UTCDateTime(unixSeconds: time).iso8601() }

    /// "2026-11-25T23:40:12Z" → seconds since the epoch
    static func parseISO8601(_ text: String) -> Double? {
        let fields = text.split(whereSeparator: { "-T:Z".contains($0) }).compactMap { Int32($0) }
        guard fields.count == 6, text.hasSuffix("Z") else { return nil }
        var parts = tm()
        parts.tm_year = fields[0] - 1900
        parts.tm_mon = fields[1] - 1
        parts.tm_mday = fields[2]
        parts.tm_hour = fields[3]
        parts.tm_min = fields[4]
        parts.tm_sec = fields[5]
        return Double(timegm(&parts))
    }

    /// "2026-11-25" — the date it was made, for the status line
    public var madeOn: String { String(Self.iso8601(madeAt).prefix(10)) }
}
