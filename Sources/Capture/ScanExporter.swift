import DSP
import Foundation
import Signals

/// `tscope export --scan-format wwb|wsm`: a capture's held trace (max by
/// default, as a coordinator's scan is) in the CSV layouts that wireless
/// microphone coordination software imports. Neither vendor publishes a
/// specification; the layouts are those the tools are known to import:
///
/// - **wwb**, Shure Wireless Workbench: no header, one `MHz,dBm` row per
///   point, the frequency with three decimals and no digit grouping
///   (`560.000,-61.00`: tinySA issue #19; berkon/wireless-microphone-analyzer
///   issue #40, where grouped thousands were refused; the tinySA-Ultra scan
///   tool's README: "frequency_in_MHz,amplitude_in_dBm");
/// - **wsm**, Sennheiser Wireless Systems Manager: `;`-separated, a header
///   block (`Receiver`, `Date/Time`, `RFUnit;dBm`, owner and scan fields,
///   `Frequency Range [kHz];first;last;points`, then the column names
///   `Frequency;RF level (%);RF level`), and one `kHz;;level` row per point
///   (QtTinySA's WSM exporter, pull request #89), levels with a decimal comma
///   as WSM's users ask (berkon/wireless-microphone-analyzer issue #43).
///
/// Neither states a point limit; `maxPoints` merges neighbouring bins by
/// their maximum (a coordinator must not lose a carrier) when asked.
public enum ScanExporter {
    public enum Layout: String, Sendable, CaseIterable {
        case wwb, wsm
    }

    public struct Summary: Sendable {
        public var sweeps: Int
        /// points written (bins without data left out)
        public var points: Int
        public var unit: PowerUnit
    }

    public static func export(_ reader: SpectrumFrameReader, layout: Layout, kind: TraceHold.Kind = .max,
                              maxPoints: Int? = nil, to target: String, input: String) throws -> Summary {
        var hold = TraceHold(kind: kind)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var firstTime: Double?
        while try reader.next(into: &frame) {
            firstTime = firstTime ?? frame.timestamp
            hold.add(startHz: frame.startHz, binWidthHz: frame.binWidthHz, decibels: frame.powerDB)
        }
        guard hold.sweeps > 0 else { throw CaptureError(file: input, "no frames to make a scan of") }
        let points = Self.points(hold, maxPoints: maxPoints)
        guard !points.isEmpty else { throw CaptureError(file: input, "every bin is without data (nan): no scan to write") }
        let text = layout == .wwb ? wwb(points)
            : wsm(points, time: firstTime ?? 0, name: URL(fileURLWithPath: input).lastPathComponent)
        let output = AtomicOutput(target: target)
        do {
            let sink = target == "-" ? OutputSink(fd: STDOUT_FILENO, name: "stdout") : try OutputSink.file(path: output.path)
            try sink.write(text)
            try sink.flush()
            try output.commit()
        } catch {
            throw output.naming(error)
        }
        return Summary(sweeps: hold.sweeps, points: points.count, unit: reader.metadata.levelUnit)
    }

    /// (bin centre [Hz], level [dB]) of every bin with data, merged to at
    /// most `maxPoints` by taking each group's loudest bin
    static func points(_ hold: TraceHold, maxPoints: Int?) -> [(hz: Double, db: Float)] {
        let values = hold.decibels
        let group = maxPoints.map { max(1, (values.count + $0 - 1) / max(1, $0)) } ?? 1
        var points: [(hz: Double, db: Float)] = []
        points.reserveCapacity(values.count / group + 1)
        var start = 0
        while start < values.count {
            let end = min(values.count, start + group)
            var loudest: Int?
            for i in start..<end where !values[i].isNaN && (loudest.map { values[i] > values[$0] } ?? true) { loudest = i }
            if let loudest { points.append((hold.binCenterHz(loudest), values[loudest])) }
            start = end
        }
        return points
    }

    static func wwb(_ points: [(hz: Double, db: Float)]) -> String {
        points.map { String(format: "%.3f,%.2f\n", $0.hz / 1e6, level($0.db)) }.joined()
    }

    static func wsm(_ points: [(hz: Double, db: Float)], time: Double, name: String) -> String {
        func kHz(_ hz: Double) -> Int { Int((hz / 1000).rounded()) }
        var lines = [
            "Receiver;", "Date/Time;\(dateTime(time))", "RFUnit;dBm", "Owner;", "ScanCity;", "ScanComment;",
            "ScanCountry;", "ScanDescription;", "ScanInteriorExterior;", "ScanLatitude;", "ScanLongitude;",
            "ScanName;\(name.replacingOccurrences(of: ";", with: ","))", "ScanPostalCode;",
            "Frequency Range [kHz];\(kHz(points.first!.hz));\(kHz(points.last!.hz));\(points.count)",
            "Frequency;RF level (%);RF level",
        ]
        for point in points {
            lines.append("\(kHz(point.hz));;" + String(format: "%.2f", level(point.db)).replacingOccurrences(of: ".", with: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// a level as the tools read it: −inf (nothing measured above the floor) as a very low level
    static func level(_ db: Float) -> Double { db.isFinite ? Double(db) : -200 }

    /// "2026-11-27 16:00:00" UTC
    static func dateTime(_ time: Double) -> String {
        UTCDateTime(unixSeconds: time).iso8601(separator: " ", zone: "")
    }
}
