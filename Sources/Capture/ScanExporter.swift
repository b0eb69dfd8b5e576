import DSP
import Foundation
import Signals

/// `tscope export --scan-format wwb|wsm|sdb2`: a capture's held trace (max by
/// default, as a coordinator's scan is) as a scan file that Shure Wireless
/// Workbench or Sennheiser Wireless Systems Manager opens as it is.
///
/// What the programs take every number for, the file gets:
/// - levels in dBm (`ScanLevelUnit`): a dBµV or dBmV capture converted, an
///   uncalibrated analyzer's dB refused unless the user says they are dBm;
/// - one point per frequency, on one regular grid at least `stepHz` apart
///   (`ScanGrid`), the same whole kHz in every layout;
/// - points without data as the layout's no-data level (.sdb2's -140) or
///   left out where it has none (the CSVs), and counted.
///
/// The layouts follow real files (the coordination fixtures in
/// Tests/CaptureTests/Fixtures/coordination, whose PROVENANCE.md names their
/// origins): `ScanFileLayouts`.
public enum ScanExporter {
    public enum Layout: String, Sendable, CaseIterable {
        /// Wireless Workbench's two-column CSV import
        case wwb
        /// Wireless Systems Manager's scan import
        case wsm
        /// Wireless Workbench's native scan file (XML)
        case sdb2
    }

    /// What the user chose.
    public struct Settings: Sendable {
        /// the hold over the capture's sweeps
        public var kind: TraceHold.Kind
        /// closest two points may be [Hz]: a whole number of kHz
        public var stepHz: Int
        /// most points written (the step widened to a multiple of itself until they fit); nil: no limit
        public var maxPoints: Int?
        /// take an uncalibrated analyzer's dB as dBm (the user knows they are)
        public var assumeDBm: Bool

        public init(kind: TraceHold.Kind = .max, stepHz: Int = ScanGrid.defaultStepHz, maxPoints: Int? = nil,
                    assumeDBm: Bool = false) {
            self.kind = kind
            self.stepHz = stepHz
            self.maxPoints = maxPoints
            self.assumeDBm = assumeDBm
        }
    }

    /// the level a .sdb2 holds for a point without data [dBm] (`no_data_value="-140"` in WWB's own files)
    public static let noDataValue = -140

    public struct Summary: Sendable {
        public var sweeps: Int
        /// points on the grid, with and without data
        public var points: Int
        /// points without data: written as the layout's no-data level, or left out
        public var withoutData: Int
        /// whether the layout wrote the points without data (as its no-data level) or left them out
        public var noDataWritten: Bool
        /// the grid's step [Hz]
        public var stepHz: Int
        /// the capture's unit, and what was added to make dBm [dB]
        public var unit: PowerUnit
        public var offsetDB: Double
    }

    public static func export(_ reader: SpectrumFrameReader, layout: Layout, settings: Settings = Settings(),
                              to target: String, input: String) throws -> Summary {
        let unit = reader.metadata.levelUnit
        let offset = try ScanLevelUnit.offsetToDBm(from: unit, assumeDBm: settings.assumeDBm, input: input)
        var hold = TraceHold(kind: settings.kind)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var firstTime: Double?
        while try reader.next(into: &frame) {
            firstTime = firstTime ?? frame.timestamp
            hold.add(startHz: frame.startHz, binWidthHz: frame.binWidthHz, decibels: frame.powerDB)
        }
        guard hold.sweeps > 0 else { throw CaptureError(file: input, "no frames to make a scan of") }
        let grid = ScanGrid(hold: hold, stepHz: settings.stepHz, maxPoints: settings.maxPoints, offsetDB: offset)
        guard grid.points.contains(where: { $0.dBm != nil }) else {
            throw CaptureError(file: input, "every bin is without data (nan or -inf): no scan to write")
        }
        let scan = ScanFileLayouts.Scan(grid: grid, time: firstTime ?? 0, name: URL(fileURLWithPath: input).lastPathComponent,
                                        device: reader.metadata.device)
        let text: String
        switch layout {
        case .wwb: text = ScanFileLayouts.wwb(scan)
        case .wsm: text = ScanFileLayouts.wsm(scan)
        case .sdb2: text = ScanFileLayouts.sdb2(scan, id: UUID(), utcOffsetSeconds: localOffsetSeconds(at: scan.time))
        }
        let output = AtomicOutput(target: target)
        do {
            let sink = target == "-" ? OutputSink(fd: STDOUT_FILENO, name: "stdout") : try OutputSink.file(path: output.path)
            try sink.write(text)
            try sink.flush()
            try output.commit()
        } catch {
            throw output.naming(error)
        }
        let withoutData = grid.points.filter { $0.dBm == nil }.count
        return Summary(sweeps: hold.sweeps, points: grid.points.count, withoutData: withoutData,
                       noDataWritten: layout == .sdb2, stepHz: grid.stepHz, unit: unit, offsetDB: offset)
    }

    /// this machine's offset from UTC at `time` [s east], for the wall-clock date WWB writes
    static func localOffsetSeconds(at time: Double) -> Int {
        var seconds = time_t(time.rounded(.down))
        var parts = tm()
        localtime_r(&seconds, &parts)
        return Int(parts.tm_gmtoff)
    }
}

/// What makes a capture's levels dBm, the only unit the coordination
/// programs know (they compute intermodulation-free frequencies from it).
public enum ScanLevelUnit {
    /// [dB] to add to levels in `unit` for dBm; throws where there is no such number
    public static func offsetToDBm(from unit: PowerUnit, assumeDBm: Bool, input: String) throws -> Double {
        switch unit {
        case .dBm: return 0
        // a voltage across 50 Ω: P = V²/R (LevelUnits)
        case .dBuV: return -LevelUnits.dBuVAbovedBm
        case .dBmV: return -LevelUnits.dBmVAbovedBm
        case .dBuVPerMetre:
            throw CaptureError(file: input, "levels are field strength (dBuV/m), not a power at the input: "
                + "record the scan in dBm (without --unit and --antenna-factor)")
        case .dB:
            if assumeDBm { return 0 }
            throw CaptureError(file: input, "levels are dB relative to the analyzer's full scale, not dBm: calibrate "
                + "the analyzer (tscope calibrate) and record the scan again, or give --assume-dbm if these dB are dBm")
        }
    }
}

/// The points of a scan file: the held trace on one regular grid of whole
/// kHz, each point at least `stepHz` from the next.
///
/// - Bins narrower than the step are merged onto the multiples of the step
///   (470.000, 470.025 … MHz for 25 kHz), each point the loudest of the bins
///   whose centres are nearest it: a coordinator must not lose a carrier.
/// - Bins as wide as the step or wider stay one point each, at their centres
///   rounded to the nearest kHz (the finest every layout prints: WSM and the
///   .sdb2 `<f>` list whole kHz).
/// - `maxPoints` widens the step to a multiple of itself until the points fit.
public struct ScanGrid: Sendable {
    /// Wireless Workbench's import guidance: points at least 25 kHz apart
    public static let defaultStepHz = 25_000
    /// --scan-step's range [Hz]
    public static let stepRangeHz = 1_000...10_000_000
    /// --max-points' range
    public static let maxPointsRange = 2...1_000_000

    /// a point: its frequency [kHz] and level [dBm]; nil: no bin with data (NaN or −inf)
    public var points: [(kHz: Int, dBm: Double?)]
    /// the spacing of the points [Hz] (bins wider than the step: their width, rounded to whole Hz)
    public var stepHz: Int

    init(hold: TraceHold, stepHz: Int, maxPoints: Int?, offsetDB: Double) {
        self.init(levels: hold.decibels, firstCentreHz: hold.binCenterHz(0), binWidthHz: hold.binWidthHz,
                  stepHz: stepHz, maxPoints: maxPoints, offsetDB: offsetDB)
    }

    init(levels: [Float], firstCentreHz: Double, binWidthHz: Double, stepHz: Int, maxPoints: Int?, offsetDB: Double) {
        func level(_ value: Float) -> Double? { value.isFinite ? Double(value) + offsetDB : nil }
        let centre = { (i: Int) in firstCentreHz + Double(i) * binWidthHz }
        if binWidthHz >= Double(stepHz) && maxPoints.map({ levels.count <= $0 }) != false {
            points = levels.indices.map { (Int((centre($0) / 1000).rounded()), level(levels[$0])) }
            self.stepHz = Int(binWidthHz.rounded())
            return
        }
        // whole steps, wider than the bins (else points between bins would have none)
        var multiple = binWidthHz >= Double(stepHz) ? Int(binWidthHz / Double(stepHz)) + 1 : 1
        while true {
            let step = stepHz * multiple
            let first = Int((centre(0) / Double(step)).rounded())
            let last = Int((centre(levels.count - 1) / Double(step)).rounded())
            if let maxPoints, last - first + 1 > maxPoints {
                multiple += 1
                continue
            }
            var loudest = [Double?](repeating: nil, count: last - first + 1)
            for (i, value) in levels.enumerated() {
                guard let dBm = level(value) else { continue }
                let k = Int((centre(i) / Double(step)).rounded()) - first
                loudest[k] = max(loudest[k] ?? -.infinity, dBm)
            }
            points = loudest.enumerated().map { ((first + $0.offset) * step / 1000, $0.element) }
            self.stepHz = step
            return
        }
    }
}

/// The three layouts, byte for byte as the programs' own files and the files
/// they are known to import are.
enum ScanFileLayouts {
    struct Scan {
        var grid: ScanGrid
        /// when the scan was taken: the capture's first frame [Unix s]
        var time: Double
        /// the scan's name: the capture's file name
        var name: String
        var device: String?
    }

    /// "572.0000,-56.0" CRLF per point with data, no header. Four decimals of
    /// MHz and one of dB as in the coordination fixture
    /// `wwb-style-572-636-head.csv` (`571.0500,-77.2`), CRLF as there and in
    /// RF Explorer's export; no digit grouping (WWB refuses `500.250.000`:
    /// berkon/wireless-microphone-analyzer issue 40).
    static func wwb(_ scan: Scan) -> String {
        var text = ""
        for point in scan.grid.points {
            guard let dBm = point.dBm else { continue }
            text += "\(megahertz(point.kHz)),\(decibels(dBm))\r\n"
        }
        return text
    }

    /// The layout of the WSM import file (the coordination fixture
    /// `wsm-import-from-sheets-converter.csv`, which WSM imports; the same
    /// keys in qspectrum_csv_converter's and QtTinySA's WSM writers): 13
    /// `key;value` lines, an empty line, `Frequency Range [kHz];first;last;step`,
    /// the column line, then `kHz;;dBm` per point with data (the `RF level (%)`
    /// column empty). CRLF after every line as in the fixture; a decimal point
    /// as every WSM file found has (no sample has a decimal comma). Values are
    /// kept on their line: `;` and control characters become spaces.
    static func wsm(_ scan: Scan) -> String {
        func value(_ text: String) -> String {
            String(text.unicodeScalars.map { $0 == ";" || $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        }
        let withData = scan.grid.points.filter { $0.dBm != nil }
        let firstKHz = withData.first?.kHz ?? 0, lastKHz = withData.last?.kHz ?? 0
        var lines = [
            "Receiver;\(value(scan.device ?? ""))",
            "Date/Time;\(UTCDateTime(unixSeconds: scan.time).iso8601(separator: " ", zone: ""))",
            "RFUnit;dBm", "Owner;", "ScanCity;", "ScanComment;", "ScanCountry;", "ScanDescription;",
            "ScanInteriorExterior;", "ScanLatitude;", "ScanLongitude;",
            "ScanName;\(value(scan.name))", "ScanPostalCode;",
            "",
            "Frequency Range [kHz];\(firstKHz);\(lastKHz);\(max(1, Int((Double(scan.grid.stepHz) / 1000).rounded())))",
            "Frequency;RF level (%);RF level",
        ]
        for point in withData { lines.append("\(point.kHz);;\(decibels(point.dBm!))") }
        return lines.map { $0 + "\r\n" }.joined()
    }

    /// WWB's native scan, as WWB 6 saved the coordination fixture
    /// `wwb6-ulxd4q-572-636.sdb2`: the XML prolog, 4-space indentation, LF,
    /// no line end after the last tag; a `freq_set` of whole kHz, one
    /// `data_set` of one-decimal dBm with `no_data_value` (-140) where a
    /// point has no data; `date`/`time` the wall-clock time of this machine,
    /// `date_time` Unix ms (UTC). `model` and `res_bandwidth` are "TODO" as
    /// WWB writes them.
    static func sdb2(_ scan: Scan, id: UUID, utcOffsetSeconds: Int) -> String {
        let points = scan.grid.points
        let (date, time) = WWBDateTime.format(unixSeconds: scan.time, offsetSeconds: utcOffsetSeconds)
        let milliseconds = Int((scan.time * 1000).rounded())
        let name = ScanXMLTokens.escaped(scan.name)
        let step = String(format: "%.3f", Double(scan.grid.stepHz) / 1000)
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<scan_data_source ver="0.0.0.1" id="{\#(id.uuidString.lowercased())}" model="TODO" name="\#(name)" "#
                + ##"date="\##(date)" time="\##(time)" color="#ffffff">"##,
            #"    <data_sets count="1" no_data_value="\#(noDataValue)">"#,
            "        <freq_set>",
        ]
        for point in points { lines.append("            <f>\(point.kHz)</f>") }
        lines.append("        </freq_set>")
        lines.append(#"        <data_set index="0" freq_units="KHz" ampl_units="dBm" "#
            + #"start_freq="\#(points[0].kHz).0" stop_freq="\#(points[points.count - 1].kHz).0" step_freq="\#(step)" "#
            + #"res_bandwidth="TODO" scale_factor="1" date="\#(date)" time="\#(time)" date_time="\#(milliseconds)">"#)
        for point in points { lines.append("            <v>\(point.dBm.map(decibels) ?? String(noDataValue))</v>") }
        lines += ["        </data_set>", "    </data_sets>", "    <markers/>", "</scan_data_source>"]
        return lines.joined(separator: "\n")
    }

    static let noDataValue = ScanExporter.noDataValue

    /// "572.0000" for 572000 kHz
    static func megahertz(_ kHz: Int) -> String {
        let sign = kHz < 0 ? "-" : ""
        let magnitude = abs(kHz)
        return sign + "\(magnitude / 1000)." + String(format: "%03d", magnitude % 1000) + "0"
    }

    /// one decimal, as WWB's own files print levels; never "-0.0"
    static func decibels(_ dBm: Double) -> String {
        let text = String(format: "%.1f", dBm)
        return text == "-0.0" ? "0.0" : text
    }
}
