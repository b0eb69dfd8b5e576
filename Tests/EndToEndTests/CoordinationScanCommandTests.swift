import Foundation
import Testing

/// The coordination workflow through the `tscope` binary: a demo venue scan
/// exported for Wireless Workbench and WSM and read back, the real files of
/// Tests/CaptureTests/Fixtures/coordination read as captures, and the option
/// checks.
@Suite struct CoordinationScanCommandTests {
    static let fixtures = Paths.packageRoot.appendingPathComponent("Tests/CaptureTests/Fixtures/coordination")

    /// (frequency [Hz], level) of every bin with data, from `export --csv - --trace max`
    func trace(_ path: String) throws -> [(hz: Double, dB: Double)] {
        let result = try run(Paths.tscope, ["export", path, "--csv", "-", "--trace", "max", "--utc-offset", "0"])
        #expect(result.status == 0, "\(path): \(result.stderr)")
        return result.stdoutText.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: ",")
            guard fields.count == 2, let hz = Double(fields[0]), let dB = Double(fields[1]), dB.isFinite else { return nil }
            return (hz, dB)
        }
    }

    @Test func aDemoVenueScanIsExportedForEachToolAndReadBack() throws {
        let directory = try Paths.temporaryDirectory("coordination")
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("venue.tscope").path
        // 5 kHz bins: five and more to a 25 kHz point, merged by their maximum
        let recorded = try run(Paths.tscope, ["record", "--device", "demo", "--band", "470:480", "--bin-width", "5000",
                                              "--duration", "1", "--output", capture], timeoutSeconds: 60)
        try #require(recorded.status == 0, "\(recorded.stderr)")
        let held = try trace(capture)

        // the demo's levels are dB full scale: refused unless the user says they are dBm
        let wwb = directory.appendingPathComponent("venue-wwb.csv").path
        let refused = try run(Paths.tscope, ["export", capture, "--csv", wwb, "--scan-format", "wwb"])
        #expect(refused.status != 0 && refused.stderr.contains("tscope calibrate"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: wwb))

        for (layout, name) in [("wwb", "venue-wwb.csv"), ("wsm", "venue-wsm.csv"), ("sdb2", "venue.sdb2")] {
            let path = directory.appendingPathComponent(name).path
            let exported = try run(Paths.tscope, ["export", capture, "--csv", path, "--scan-format", layout, "--assume-dbm"])
            #expect(exported.status == 0, "\(layout): \(exported.stderr)")
            #expect(exported.stderr.contains("points 25 kHz apart"), "\(layout): \(exported.stderr)")
            let points = try trace(path)
            #expect(points.count >= 390 && points.count <= 401, "\(layout): \(points.count) points over 10 MHz")
            for (a, b) in zip(points, points.dropFirst()) { #expect(b.hz - a.hz >= 25_000 - 1e-6, "\(layout): \(a) \(b)") }
            for point in points {
                // each point is the loudest bin whose centre is nearest it, printed to 0.1 dB
                let near = held.filter { abs($0.hz - point.hz) <= 12_500 }.map(\.dB).max()
                let loudest = try #require(near, "\(layout): no bin near \(point.hz)")
                #expect(abs(loudest - point.dB) <= 0.05 + 1e-3, "\(layout) at \(point.hz): \(point.dB) vs \(loudest)")
            }
        }
    }

    @Test func aColleaguesWWBScanIsReadAsACapture() throws {
        let sdb2 = Self.fixtures.appendingPathComponent("wwb6-ulxd4q-572-636.sdb2").path
        let text = try String(contentsOfFile: sdb2, encoding: .utf8)
        let levels = text.components(separatedBy: "<v>").dropFirst().map { Double($0.components(separatedBy: "</v>")[0])! }
        let points = try trace(sdb2)
        #expect(points.count == levels.count && points.map(\.dB) == levels)
        #expect(points.first?.hz == 572e6 && points.last?.hz == 636e6)

        // and as rtl_power's CSV, the other programs' way in
        let directory = try Paths.temporaryDirectory("coordination-convert")
        defer { try? FileManager.default.removeItem(at: directory) }
        let converted = directory.appendingPathComponent("scan.csv").path
        let result = try run(Paths.tscope, ["convert", sdb2, converted, "--format", "rtl_power", "--utc-offset", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try String(contentsOfFile: converted, encoding: .utf8)
        #expect(line.hasPrefix("2015-07-01, 17:32:25, "), "\(line.prefix(40))")
    }

    @Test func scanOptionsAreCheckedWithTheirRanges() throws {
        let directory = try Paths.temporaryDirectory("coordination-options")
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("scan.csv").path
        let sdb2 = Self.fixtures.appendingPathComponent("wwb6-ulxd4q-572-636.sdb2").path
        for (arguments, message) in [(["--max-points", "-5"], "--max-points: expected 2…1000000"),
                                     (["--scan-step", "500"], "--scan-step: expected 1k…10M"),
                                     (["--scan-step", "12.5k"], "whole number of kHz"),
                                     (["--scan-format", "ias"], "--scan-format")] {
            let result = try run(Paths.tscope, ["export", sdb2, "--csv", out, "--scan-format", "wwb"] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let unknown = directory.appendingPathComponent("levels.csv")
        try Data("Frequency [MHz] Level\n470,-80\n".utf8).write(to: unknown)
        let result = try run(Paths.tscope, ["export", unknown.path, "--csv", out, "--trace", "max"])
        #expect(result.status != 0 && result.stderr.contains("levels.csv:1:") && result.stderr.contains("wsm"), "\(result.stderr)")
        #expect(!result.stderr.contains("cu8"), "\(result.stderr)")
    }
}
