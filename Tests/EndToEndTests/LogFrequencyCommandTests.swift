import Foundation
import Testing

/// `--log-frequency` through the executable: a band from 0 Hz is refused in
/// one line (watch, export), a band above it draws (export), and the option
/// is offered where it is documented.
@Suite(.serialized) struct LogFrequencyCommandTests {
    static let sweep = Paths.packageRoot.appendingPathComponent(
        "Tests/CaptureTests/Fixtures/excerpts/hackrf_sweep-html-sdr-sweep-head64.csv").path

    static func oneErrorLine(_ stderr: String) -> String? {
        let lines = stderr.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        return lines.first { $0.hasPrefix("Error") }.map(String.init)
    }

    @Test func aBandFromZeroIsRefusedInOneLine() throws {
        let directory = try Paths.temporaryDirectory("log-frequency")
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = directory.appendingPathComponent("log.png").path
        // the hackrf_sweep capture starts at 0 Hz
        let export = try run(Paths.tscope, ["export", "--png", png, Self.sweep, "--log-frequency"])
        #expect(export.status != 0)
        let line = try #require(Self.oneErrorLine(export.stderr), "\(export.stderr)")
        #expect(line.contains("--log-frequency") && line.contains("0 Hz"), "\(export.stderr)")
        #expect(!FileManager.default.fileExists(atPath: png))
        // watch refuses before it needs a terminal
        let watch = try run(Paths.tscope, ["watch", "--device", "demo", "--band", "0:30", "--log-frequency"])
        #expect(watch.status != 0 && watch.stderr.contains("--log-frequency needs a band above 0 Hz"), "\(watch.stderr)")
        // a CSV has no frequency axis
        let csv = try run(Paths.tscope, ["export", "--csv", "-", Self.sweep, "--log-frequency"])
        #expect(csv.status != 0 && csv.stderr.contains("--png"), "\(csv.stderr)")
    }

    @Test func aBandAboveZeroDrawsAndDiffersFromTheLinearPicture() throws {
        let directory = try Paths.temporaryDirectory("log-frequency-png")
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("log.png").path
        let linear = directory.appendingPathComponent("linear.png").path
        let logged = try run(Paths.tscope, ["export", "--png", log, Self.sweep, "--low", "1M", "--log-frequency"])
        #expect(logged.status == 0, "\(logged.stderr)")
        #expect(try run(Paths.tscope, ["export", "--png", linear, Self.sweep, "--low", "1M"]).status == 0)
        let a = try Data(contentsOf: URL(fileURLWithPath: log)), b = try Data(contentsOf: URL(fileURLWithPath: linear))
        #expect(Array(a.prefix(4)) == [0x89, 0x50, 0x4E, 0x47] && a != b)
        let help = try run(Paths.tscope, ["replay", "--help"])
        #expect(help.stdoutText.contains("--log-frequency"))
    }
}
