import Foundation
import Testing

/// `export --csv OUT --trace max|min|avg` on real captures, checked against a
/// per-bin summary computed here from the file's text, without tscope's readers.
@Suite struct TraceExportTests {
    /// (frequency [Hz] → every value the file gives there). rtl_power: value k of
    /// a line at "Hz low" + k·step, the repeated last value dropped;
    /// hackrf_sweep: value k at hz_low + (k + ½)·bin width.
    static func valuesByFrequency(_ path: String, rtlPower: Bool) throws -> [Double: [Float]] {
        var table: [Double: [Float]] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count > 6, let low = Double(fields[2]), let step = Double(fields[4]) else { continue }
            var values = fields[6...].map { Float($0)! }
            if rtlPower { values.removeLast() }
            for (k, value) in values.enumerated() {
                let hz = rtlPower ? low + Double(k) * step : low + (Double(k) + 0.5) * step
                table[hz, default: []].append(value)
            }
        }
        return table
    }

    static func exported(_ input: String, trace: String) throws -> [(hz: Double, db: Float)] {
        let directory = try Paths.temporaryDirectory("trace")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("t.csv").path
        let result = try run(Paths.tscope, ["export", "--csv", output, "--trace", trace, input])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "frequency_hz,power_db")
        return lines.dropFirst().map { line in
            let parts = line.split(separator: ",", omittingEmptySubsequences: false)
            return (Double(parts[0])!, Float(parts[1]) ?? .nan)
        }
    }

    @Test(arguments: [("Tests/CaptureTests/Fixtures/rtl_power-fm-osaka/nhkfm3.csv", true),
                      ("Tests/CaptureTests/Fixtures/excerpts/hackrf_sweep-html-sdr-sweep-head64.csv", false)])
    func maxMinAndAverageEqualThePerBinSummaryOfTheFile(_ file: String, rtlPower: Bool) throws {
        let path = Paths.packageRoot.appendingPathComponent(file).path
        let table = try Self.valuesByFrequency(path, rtlPower: rtlPower)
        for trace in ["max", "min", "avg"] {
            let rows = try Self.exported(path, trace: trace)
            #expect(rows.count == table.count, "\(trace): \(rows.count) rows, the file has \(table.count) frequencies")
            for row in rows {
                let values = try #require(table[row.hz], "\(trace): no bin of the file at \(row.hz) Hz")
                switch trace {
                case "max": #expect(row.db == values.max()!, "\(row.hz) Hz")
                case "min": #expect(row.db == values.min()!, "\(row.hz) Hz")
                default:
                    let mean = values.map { pow(10, Double($0) / 10) }.reduce(0, +) / Double(values.count)
                    #expect(abs(Double(row.db) - 10 * log10(mean)) < 1e-3, "\(row.hz) Hz: \(row.db) vs \(10 * log10(mean))")
                }
            }
        }
    }

    @Test func aTraceNeedsACSVOutput() throws {
        let result = try run(Paths.tscope, ["export", "--png", "/tmp/x.png", "--trace", "max", osakaCapture])
        #expect(result.status == 64 && result.stderr.contains("--trace writes a CSV"), "\(result.stderr)")
    }
}
