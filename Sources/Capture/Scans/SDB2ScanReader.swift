import Foundation
import Signals

/// Reads Shure Wireless Workbench's native scan file, `.sdb2` (XML), and its
/// older values-only form `.sdb`. The layout, from a scan WWB 6 saved from a
/// ULXD4Q receiver (the coordination fixture `wwb6-ulxd4q-572-636.sdb2`) and
/// the `.sdb` scan embedded in a WWB 7.2 show file:
///
///     <scan_data_source name="ULXD4Q" date="Wed Jul 1 2015" time="12:32:25.612" …>
///         <data_sets count="1" no_data_value="-140">
///             <freq_set><f>572000</f>…</freq_set>            (.sdb2 only)
///             <data_set index="0" freq_units="KHz" ampl_units="dBm" start_freq="572000.0"
///                       stop_freq="636000.0" step_freq="50.000" scale_factor="1" date_time="1435771945612" …>
///                 <v>-56.0</v>…
///
/// Every data set is one frame, at the frequencies of the `freq_set` when it
/// has as many as the set has values, else at start + k × step. A level equal
/// to `no_data_value` is a point without data (NaN); a level is the number
/// divided by `scale_factor`. The time is `date_time` (Unix ms, UTC), else
/// `date` and `time` as local wall-clock time (`CaptureReadOptions.timeZone`).
/// Attributes are read by name, in any order.
package enum SDB2ScanReader: ScanFileFormat {
    package static func read(_ file: ScanText, options: CaptureReadOptions) throws -> ScanFileReader {
        let path = file.path
        var tokens = ScanXMLTokens(file.text)
        func fail(_ offset: Int, _ detail: String) -> CaptureError {
            CaptureError(file: path, location: .byte(offset), detail)
        }
        var metadata = scanMetadata(format: "sdb2")
        var noDataValue = -140.0
        var frequencies: [Double] = []
        var frames: [SpectrumFrame] = []
        var element: [Substring] = []
        var set: DataSet?
        do {
            while true {
                let offset = tokens.offset
                guard let token = try tokens.next() else { break }
                switch token {
                case .open(let name, let attributes, let selfClosing):
                    if element.isEmpty && name != "scan_data_source" {
                        throw fail(offset, "expected <scan_data_source>, the root of a Wireless Workbench scan, found <\(name)>")
                    }
                    switch name {
                    case "scan_data_source":
                        metadata.device = attributes["name"].flatMap { $0.isEmpty ? nil : $0 }
                        metadata.label = attributes["description"].flatMap { $0.isEmpty ? nil : $0 }
                    case "data_sets":
                        if let text = attributes["no_data_value"] {
                            guard let value = Double(text) else {
                                throw fail(offset, "expected a number in no_data_value, found '\(text)'")
                            }
                            noDataValue = value
                        }
                    case "freq_set": frequencies = []
                    case "data_set":
                        set = try DataSet(attributes: attributes, offset: offset, path: path, options: options)
                    default: break
                    }
                    if !selfClosing { element.append(name) }
                case .close(let name):
                    guard element.last == name else {
                        throw fail(offset, "expected </\(element.last.map(String.init) ?? "")>, found </\(name)>")
                    }
                    element.removeLast()
                    if name == "data_set", let done = set {
                        frames.append(try done.frame(frequencies: frequencies, noData: noDataValue, offset: offset,
                                                     index: frames.count, path: path))
                        set = nil
                    }
                case .text(let text):
                    switch element.last {
                    case "f":
                        guard let number = ScanNumber(text) else { throw fail(offset, "expected a frequency in <f>, found '\(text)'") }
                        frequencies.append(number.value)
                    case "v":
                        guard let number = ScanNumber(text), set != nil else {
                            throw fail(offset, "expected a level in <v> inside <data_set>, found '\(text)'")
                        }
                        set?.values.append(number.value)
                    default:
                        throw fail(offset, "expected only elements inside <\(element.last.map(String.init) ?? "")>, found text '\(text.prefix(20))'")
                    }
                }
            }
        } catch let malformed as ScanXMLTokens.Malformed {
            throw fail(malformed.offset, malformed.detail)
        }
        if let open = element.last {
            throw fail(file.text.utf8.count, "expected </\(open)> before the end of the file (cut short?)")
        }
        guard !frames.isEmpty else {
            throw CaptureError(file: path, "no <data_set> with levels: expected a Wireless Workbench scan")
        }
        metadata.span = frames[0].range
        metadata.binWidthHz = frames[0].binWidthHz
        return ScanFileReader(metadata: metadata, frames: frames, totalBytes: file.text.utf8.count)
    }

    /// One `<data_set>`: its attributes and the levels read so far.
    private struct DataSet {
        var unitHz: Double
        var start: Double?
        var stop: Double?
        var step: Double?
        var scale: Double
        var timestamp: Double
        var offset: Int
        var values: [Double] = []

        init(attributes: [Substring: String], offset: Int, path: String, options: CaptureReadOptions) throws {
            func fail(_ detail: String) -> CaptureError { CaptureError(file: path, location: .byte(offset), detail) }
            let units = attributes["freq_units"] ?? "KHz"
            guard let unitHz = ["hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9][units.lowercased()] else {
                throw fail("expected freq_units Hz, KHz, MHz or GHz, found '\(units)'")
            }
            let amplitude = attributes["ampl_units"] ?? "dBm"
            guard amplitude.lowercased() == "dbm" else {
                throw fail("expected ampl_units dBm (the unit Wireless Workbench scans are in), found '\(amplitude)'")
            }
            func number(_ key: Substring) throws -> Double? {
                guard let text = attributes[key] else { return nil }
                guard let value = Double(text), value.isFinite else { throw fail("expected a number in \(key), found '\(text)'") }
                return value
            }
            self.unitHz = unitHz
            self.offset = offset
            start = try number("start_freq")
            stop = try number("stop_freq")
            step = try number("step_freq")
            scale = try number("scale_factor") ?? 1
            guard scale != 0 else { throw fail("expected a scale_factor other than 0") }
            if let milliseconds = try number("date_time") {
                timestamp = milliseconds / 1000
            } else if let date = attributes["date"], let time = attributes["time"] {
                guard let parsed = WWBDateTime.parse(date: date, time: time, zone: options.timeZone) else {
                    throw fail("expected date like 'Wed Jul 1 2015' and time like '12:32:25.612', found '\(date)' '\(time)'")
                }
                timestamp = parsed
            } else {
                timestamp = 0
            }
        }

        /// the set's frame, at the freq_set's frequencies or its start/step
        func frame(frequencies: [Double], noData: Double, offset closeOffset: Int, index: Int, path: String) throws -> SpectrumFrame {
            var trace = ScanTrace()
            trace.timestamp = timestamp
            trace.levels = values.map { $0 == noData ? .nan : Float($0 / scale) }
            if frequencies.count == values.count {
                trace.frequenciesHz = frequencies.map { $0 * unitHz }
                trace.resolutionHz = unitHz
            } else if let start, let step, step > 0 {
                trace.frequenciesHz = values.indices.map { (start + Double($0) * step) * unitHz }
                trace.resolutionHz = step * unitHz / 1000
                if let stop, abs(start + Double(values.count - 1) * step - stop) > step / 2 {
                    throw CaptureError(file: path, location: .byte(closeOffset),
                        "data set \(index) holds \(values.count) levels, but start_freq \(start), stop_freq \(stop) and "
                        + "step_freq \(step) make \(Int(((stop - start) / step).rounded()) + 1) points")
                }
            } else {
                throw CaptureError(file: path, location: .byte(offset),
                    "data set \(index) holds \(values.count) levels and the <freq_set> \(frequencies.count) frequencies, "
                    + "and it has no start_freq and step_freq: expected one frequency per level")
            }
            guard !values.isEmpty else {
                throw CaptureError(file: path, location: .byte(closeOffset), "data set \(index) holds no <v> levels")
            }
            for (k, pair) in zip(trace.frequenciesHz.dropFirst(), trace.frequenciesHz).enumerated() where pair.0 <= pair.1 {
                throw CaptureError(file: path, location: .byte(offset),
                    "data set \(index): frequency \(k + 1) is not above the one before; expected increasing frequencies")
            }
            do { return try trace.frame() } catch {
                throw CaptureError(file: path, location: .byte(offset), "data set \(index): \(error.detail)")
            }
        }
    }
}

/// WWB's `date` and `time` attributes: "Wed Jul 1 2015" (weekday, month,
/// day not zero-padded, year) and "12:32:25.612" (24 h, milliseconds
/// optional), the local wall-clock time of the machine that scanned.
enum WWBDateTime {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// Unix time [s]; nil unless both are well-formed
    static func parse(date: String, time: String, zone: CaptureReadOptions.TimeZoneRule) -> Double? {
        let parts = date.split(separator: " ")
        guard parts.count == 4, let month = months.firstIndex(of: String(parts[1])),
              let day = Int(parts[2]), let year = Int(parts[3]), (1...31).contains(day), (1000...9999).contains(year)
        else { return nil }
        let clock = time.split(separator: ".", maxSplits: 1)
        guard clock[0].count == 8 else { return nil }
        let iso = String(format: "%04d-%02d-%02d", year, month + 1, day)
        let fraction = clock.count == 2 ? "." + clock[1] : ""
        return wallClock(date: iso, time: String(clock[0]) + fraction, zone: zone)
    }

    /// "Wed Jul 1 2015" and "12:32:25.612" of `unixSeconds` in the zone `offsetSeconds` east of UTC
    static func format(unixSeconds: Double, offsetSeconds: Int) -> (date: String, time: String) {
        let milliseconds = Int((unixSeconds * 1000).rounded(.down)) + offsetSeconds * 1000
        let seconds = Int((Double(milliseconds) / 1000).rounded(.down))
        let civil = UTCDateTime(unixSeconds: Double(seconds))
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let weekday = weekdays[((days % 7) + 11) % 7]  // 1970-01-01 was a Thursday
        let date = "\(weekday) \(months[civil.month - 1]) \(civil.day) \(civil.year)"
        let time = String(format: "%02d:%02d:%02d.%03d", civil.hour, civil.minute, civil.second,
                          milliseconds - seconds * 1000)
        return (date, time)
    }
}

/// `date` ("2015-07-01") and `time` ("12:32:25[.612]") written without a zone, read with `zone` [Unix s]
func wallClock(date: String, time: String, zone: CaptureReadOptions.TimeZoneRule) -> Double? {
    var parser = WallClockParser(rule: zone)
    var date = date, time = time
    return date.withUTF8 { d in time.withUTF8 { t in parser.parse(date: d, time: t) } }
}
