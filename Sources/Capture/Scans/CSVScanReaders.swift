import Foundation
import Signals

/// Reads a two-column scan, one `MHz<separator>dBm` point per line and no
/// header: the CSV Shure Wireless Workbench imports (`571.0500,-77.2`, the
/// coordination fixture `wwb-style-572-636-head.csv`) and RF Explorer's
/// "Export Single Signal CSV" (`1388.800,-102.08`,
/// `rfexplorer-simple-format-cw-1400mhz.csv`; RF Explorer for Windows,
/// MainForm.cs `SaveSimpleCSV`), whose separator is the user's choice of
/// `,` `;` `|` space or tab. LF or CRLF, a last line with or without its
/// terminator. The file states no time: the frame is stamped with the
/// file's modification time.
package enum TwoColumnScanReader: ScanFileFormat {
    static let separators: [Character] = [",", ";", "|", "\t", " "]

    package static func read(_ file: ScanText, options: CaptureReadOptions) throws -> ScanFileReader {
        let path = file.path
        let lines = file.lines
        guard let first = lines.first(where: { !$0.text.isEmpty }) else {
            throw CaptureError(file: path, "empty: expected 'MHz,dBm' lines")
        }
        // the first separator character on the first line, after the frequency
        guard let separator = first.text.first(where: { separators.contains($0) }) else {
            throw file.error(first, "expected 'MHz,dBm' (two numbers, separated by , ; | tab or space), found '\(first.text.prefix(40))'")
        }
        var trace = ScanTrace()
        var decimals = 0
        for line in lines where !line.text.trimmingCharacters(in: .whitespaces).isEmpty {
            let fields = line.text.split(separator: separator, omittingEmptySubsequences: separator == " ")
            guard fields.count == 2, let mhz = ScanNumber(fields[0]),
                  let level = ScanNumber(fields[1], decimalComma: separator != ",") else {
                throw file.error(line, "expected 'MHz\(separator == "\t" ? "<tab>" : String(separator))dBm', found '\(line.text.prefix(40))'")
            }
            let hz = mhz.value * 1e6
            if let previous = trace.frequenciesHz.last, hz <= previous {
                throw file.error(line, "\(fields[0]) MHz is not above the line before's: expected increasing frequencies")
            }
            guard hz > 0 else { throw file.error(line, "expected a frequency above 0 MHz, found \(fields[0])") }
            decimals = max(decimals, mhz.decimals)
            trace.frequenciesHz.append(hz)
            trace.levels.append(Float(level.value))
        }
        trace.resolutionHz = 1e6 * pow(10, -Double(decimals))
        trace.timestamp = fileModificationTime(path)
        return try scanReader(trace, format: "wwb", file: file)
    }
}

/// Reads a Sennheiser Wireless Systems Manager scan: `;`-separated
/// `key;value` lines (`Receiver`, `Date/Time`, `RFUnit;dBm`, `ScanName` …),
/// `Frequency Range [kHz];start;stop;step`, the column line
/// `Frequency;RF level (%);RF level[;…]`, then one `kHz;%;dBm` row per point
/// (the coordination fixture `wsm-import-from-sheets-converter.csv`, a file
/// WSM imports; QtTinySA's and qspectrum_csv_converter's WSM writers). The
/// rows are read as they are: the range line need not describe them (in the
/// fixture it says 25 kHz steps; its rows step by 1150 and 1175 kHz).
/// A file with levels in percent only (WSM's own export) is refused: no
/// Sennheiser source relates its percent to dBm. Non-data lines after the
/// rows end the scan.
package enum WSMScanReader: ScanFileFormat {
    static let columnLine = "Frequency;RF level (%);RF level"

    package static func read(_ file: ScanText, options: CaptureReadOptions) throws -> ScanFileReader {
        let path = file.path
        let lines = file.lines
        var metadata = scanMetadata(format: "wsm")
        var trace = ScanTrace()
        trace.timestamp = fileModificationTime(path)
        guard let header = lines.firstIndex(where: { $0.text.hasPrefix(columnLine) }) else {
            throw CaptureError(file: path, location: .line(min(lines.count, 1)),
                               "no column line '\(columnLine)': expected a Sennheiser WSM scan")
        }
        for line in lines[..<header] {
            let fields = line.text.split(separator: ";", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let value = fields.count > 1 ? fields[1] : ""
            switch fields[0] {
            case "RFUnit" where !value.isEmpty && value != "dBm":
                throw file.error(line, "expected RFUnit dBm, found '\(value)'")
            case "Receiver" where !value.isEmpty: metadata.device = value
            case "ScanName" where !value.isEmpty: metadata.label = value
            case "Date/Time" where !value.isEmpty:
                let parts = value.split(separator: " ")
                if parts.count == 2, let time = wallClock(date: String(parts[0]), time: String(parts[1]), zone: options.timeZone) {
                    trace.timestamp = time
                }
            default: break
            }
        }
        var ended: ScanText.Line?
        var decimals = 0
        for line in lines[(header + 1)...] {
            let fields = line.text.split(separator: ";", omittingEmptySubsequences: false)
            guard let khz = fields.first.flatMap({ ScanNumber($0, decimalComma: true) }) else {
                ended = ended ?? line
                continue
            }
            if let end = ended {
                throw file.error(line, "a data row after the non-data line \(end.number): expected the rows together")
            }
            let dBm = fields.count > 2 ? fields[2].trimmingCharacters(in: .whitespaces) : ""
            guard let level = ScanNumber(Substring(dBm), decimalComma: true) else {
                let percent = fields.count > 1 ? fields[1].trimmingCharacters(in: .whitespaces) : ""
                if !percent.isEmpty && dBm.isEmpty {
                    throw file.error(line, "RF level only in % (\(percent)), no dBm: export the scan from WSM with "
                        + "RF level in dBm; no Sennheiser source relates its % to dBm")
                }
                throw file.error(line, "expected 'kHz;%;dBm' with a level in dBm, found '\(line.text.prefix(40))'")
            }
            let hz = khz.value * 1000
            if let previous = trace.frequenciesHz.last, hz <= previous {
                throw file.error(line, "\(fields[0]) kHz is not above the row before's: expected increasing frequencies")
            }
            guard hz > 0 else { throw file.error(line, "expected a frequency above 0 kHz, found \(fields[0])") }
            decimals = max(decimals, khz.decimals)
            trace.frequenciesHz.append(hz)
            trace.levels.append(Float(level.value))
        }
        trace.resolutionHz = 1000 * pow(10, -Double(decimals))
        guard !trace.frequenciesHz.isEmpty else {
            throw CaptureError(file: path, location: .line(lines[header].number + 1),
                               "no 'kHz;%;dBm' rows after the column line")
        }
        return try scanReader(trace, format: "wsm", file: file, metadata: metadata)
    }
}

/// Reads RF Explorer for Windows' "Export Cumulative CSV" (RFExplorer for
/// Windows, RFESweepDataCollection.cs `SaveFileCSV`; the coordination
/// fixture `rfexplorer-cumulative-v002-head.csv`):
///
///     RF Explorer CSV data file: RFExplorer PC Client - Format v002
///     Start Frequency: 1388.80004882813MHZ
///     Step Frequency: 200.000002980232KHZ
///     Total data entries: 236
///     Steps per entry: 112                  ("Data points per entry:" from v005)
///     Sweep,Date,Time,Milliseconds,1388.800,1389.000,…
///     0,2013-07-23,17:42:34,.282,-109.5,-110,…
///
/// One frame per sweep row, at the column line's frequencies [MHz], levels
/// in dBm; the separator is the character after `Sweep` (`,` `;` `|` space
/// or tab). The date is the writer's culture's short date (`2013-07-23`,
/// `5/23/2022`, `23.05.2022`), the time local wall-clock time
/// (`CaptureReadOptions.timeZone`). The client ends the file with a row of
/// only the four leading fields when a sweep's settings changed; that row is
/// left out. Before v005 a culture's decimal comma may appear where the
/// separator is not a comma.
package enum RFExplorerScanReader: ScanFileFormat {
    static let signature = "RF Explorer CSV data file"

    package static func read(_ file: ScanText, options: CaptureReadOptions) throws -> ScanFileReader {
        let path = file.path
        let lines = file.lines
        guard let first = lines.first, first.text.hasPrefix(signature) else {
            throw CaptureError(file: path, location: .line(1), "expected '\(signature): …' on the first line")
        }
        guard let columns = lines.first(where: { $0.text.hasPrefix("Sweep") }), columns.text.count > 5 else {
            throw CaptureError(file: path, location: .line(lines.count), "no column line 'Sweep,Date,Time,Milliseconds,MHz…'")
        }
        let separator = columns.text[columns.text.index(columns.text.startIndex, offsetBy: 5)]
        let decimalComma = separator != ","
        let names = columns.text.split(separator: separator, omittingEmptySubsequences: false)
        guard names.count > 4, names[1] == "Date", names[2] == "Time", names[3] == "Milliseconds" else {
            throw file.error(columns, "expected 'Sweep\(separator)Date\(separator)Time\(separator)Milliseconds\(separator)MHz…'")
        }
        var frequencies: [Double] = []
        var decimals = 0
        for name in names.dropFirst(4) {
            guard let mhz = ScanNumber(name, decimalComma: decimalComma), mhz.value > 0 else {
                throw file.error(columns, "expected a frequency in MHz for every column after Milliseconds, found '\(name)'")
            }
            if let previous = frequencies.last, mhz.value * 1e6 <= previous {
                throw file.error(columns, "column \(name) MHz is not above the one before: expected increasing frequencies")
            }
            frequencies.append(mhz.value * 1e6)
            decimals = max(decimals, mhz.decimals)
        }
        var frames: [SpectrumFrame] = []
        for line in lines where line.number > columns.number && !line.text.isEmpty {
            let fields = line.text.split(separator: separator, omittingEmptySubsequences: false)
            // the row the client writes when a sweep's settings changed: four fields, each followed by the separator
            if fields.count == 5 && fields[4].isEmpty { continue }
            guard fields.count == names.count else {
                throw file.error(line, "expected \(names.count) fields (sweep, date, time, ms and \(frequencies.count) "
                    + "levels), found \(fields.count)")
            }
            guard let timestamp = time(date: fields[1], time: fields[2], milliseconds: fields[3], zone: options.timeZone) else {
                throw file.error(line, "expected a date (2013-07-23 or 7/23/2013), a time (17:42:34) and milliseconds "
                    + "(.282), found '\(fields[1])', '\(fields[2])', '\(fields[3])'")
            }
            var trace = ScanTrace(frequenciesHz: frequencies, resolutionHz: 1e6 * pow(10, -Double(decimals)), timestamp: timestamp)
            for (k, field) in fields.dropFirst(4).enumerated() {
                guard let level = ScanNumber(field, decimalComma: decimalComma) else {
                    throw file.error(line, "expected a level in dBm for \(names[4 + k]) MHz, found '\(field)'")
                }
                trace.levels.append(Float(level.value))
            }
            do { frames.append(try trace.frame()) } catch { throw file.error(line, error.detail) }
        }
        guard !frames.isEmpty else {
            throw CaptureError(file: path, location: .line(columns.number + 1), "no sweep rows after the column line")
        }
        var metadata = scanMetadata(format: "rfexplorer")
        metadata.device = "RF Explorer"
        metadata.span = frames[0].range
        metadata.binWidthHz = frames[0].binWidthHz
        return ScanFileReader(metadata: metadata, frames: frames, totalBytes: file.text.utf8.count)
    }

    /// Unix time of a row's date, time and ".fff" milliseconds; nil unless well-formed
    static func time(date: Substring, time: Substring, milliseconds: Substring,
                     zone: CaptureReadOptions.TimeZoneRule) -> Double? {
        let parts = date.split(whereSeparator: { $0 == "-" || $0 == "/" || $0 == "." }).compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        let (year, month, day): (Int, Int, Int)
        if date.contains("-") {
            (year, month, day) = (parts[0], parts[1], parts[2])
        } else if date.contains(".") || parts[0] > 12 {
            (day, month, year) = (parts[0], parts[1], parts[2])  // 23.05.2022, 23/05/2022
        } else {
            (month, day, year) = (parts[0], parts[1], parts[2])  // en-US 5/23/2022
        }
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (1000...9999).contains(year) else { return nil }
        let fraction = milliseconds.hasPrefix(".") ? milliseconds : "." + milliseconds
        guard fraction.dropFirst().allSatisfy(\.isNumber) else { return nil }
        return wallClock(date: String(format: "%04d-%02d-%02d", year, month, day),
                         time: String(format: "%02d:%02d:%02d", clock[0], clock[1], clock[2]) + (fraction.count > 1 ? fraction : ""),
                         zone: zone)
    }
}

/// Reads the CSV trace a Rigol DSA800 analyzer saves
/// (`MMEMory:STORe:TRACe TRACE1,C:\name.csv`, e.g. a DSA815's): `Trace1,`,
/// `Freq,,Amp,,`, then one fixed-width row per point,
/// `           495012563,Hz,              -30.56, dBm,` — the frequency in Hz,
/// the level in the unit the row names (dBm, dBmV or dBuV). Layout from real
/// DSA815 files in the public repository DarioAlaniz/DSA815 (no licence, so
/// not among the fixtures). The file states no time: the frame is stamped
/// with the file's modification time.
package enum RigolTraceScanReader: ScanFileFormat {
    package static func read(_ file: ScanText, options: CaptureReadOptions) throws -> ScanFileReader {
        let path = file.path
        let lines = file.lines
        guard let first = lines.first, first.text.hasPrefix("Trace") else {
            throw CaptureError(file: path, location: .line(1), "expected 'Trace1,' on the first line of a Rigol trace")
        }
        guard lines.count > 1, lines[1].text.replacingOccurrences(of: " ", with: "").hasPrefix("Freq,,Amp") else {
            throw CaptureError(file: path, location: .line(2), "expected 'Freq,,Amp,,' on the second line of a Rigol trace")
        }
        var trace = ScanTrace()
        var unit: PowerUnit?
        for line in lines.dropFirst(2) where !line.text.isEmpty {
            let fields = line.text.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count >= 4, fields[1] == "Hz", let hz = ScanNumber(Substring(fields[0])), hz.value > 0,
                  let level = ScanNumber(Substring(fields[2])) else {
                throw file.error(line, "expected 'Hz,Hz,level,unit,' (e.g. '495012563,Hz,-30.56, dBm,'), found '\(line.text.prefix(50))'")
            }
            guard let rowUnit = ["dBm": PowerUnit.dBm, "dBmV": .dBmV, "dBuV": .dBuV][fields[3]] else {
                throw file.error(line, "expected the unit dBm, dBmV or dBuV, found '\(fields[3])'")
            }
            guard unit == nil || unit == rowUnit else {
                throw file.error(line, "unit \(fields[3]) differs from the rows before (\(unit!))")
            }
            unit = rowUnit
            if let previous = trace.frequenciesHz.last, hz.value <= previous {
                throw file.error(line, "\(fields[0]) Hz is not above the row before's: expected increasing frequencies")
            }
            trace.frequenciesHz.append(hz.value)
            trace.levels.append(Float(level.value))
        }
        trace.timestamp = fileModificationTime(path)
        return try scanReader(trace, format: "rigol_dsa", file: file,
                              metadata: scanMetadata(format: "rigol_dsa", unit: unit ?? .dBm))
    }
}

/// One trace read whole, as a reader of its one frame; `metadata` gets its span.
func scanReader(_ trace: ScanTrace, format: String, file: ScanText,
                metadata: CaptureMetadata? = nil) throws -> ScanFileReader {
    guard !trace.frequenciesHz.isEmpty else { throw CaptureError(file: file.path, "no points: expected a scan") }
    let frame: SpectrumFrame
    do { frame = try trace.frame() } catch { throw CaptureError(file: file.path, error.detail) }
    var metadata = metadata ?? scanMetadata(format: format)
    metadata.span = frame.range
    metadata.binWidthHz = frame.binWidthHz
    return ScanFileReader(metadata: metadata, frames: [frame], totalBytes: file.text.utf8.count)
}
