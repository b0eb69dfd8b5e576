import Foundation
import Testing

/// `--unit`, `--correction` and `--antenna-factor` end to end on the emulated
/// tinySA (levels in dBm, as the device reports them) and the demo HackRF
/// (uncalibrated dB): each reading moves by what P = V²/R and the tables say,
/// computed here, and the recording keeps the unit.
@Suite(.serialized) struct LevelUnitsCommandTests {
    static func reading(_ extra: [String]) throws -> (power: Double, unit: String, line: String) {
        let result = try run(Paths.tscope, ["meter", "--device", "demo-tinysa", "--band", "433:435", "-n", "1", "--json"] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        let line = result.stdoutText.split(separator: "\n").first.map(String.init) ?? ""
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        return (try #require(object["power_db"] as? Double), try #require(object["unit"] as? String), line)
    }

    @Test func voltsFieldStrengthAndTablesMoveTheReadingByTheirAmount() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("level-units-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let factor = directory.appendingPathComponent("antenna.csv").path
        try "frequency_hz,antenna_factor_db_per_m\n400000000,10\n500000000,20\n".write(toFile: factor, atomically: true, encoding: .utf8)
        let cable = directory.appendingPathComponent("cable.csv").path
        try "# 10 m of RG-58\n433000000,2.5\n".write(toFile: cable, atomically: true, encoding: .utf8)

        let dBm = try Self.reading([])
        #expect(dBm.unit == "dBm")
        // the emulated scene's noise moves a 2 MHz channel's power by a few hundredths of a dB between runs
        let dBuV = try Self.reading(["--unit", "dBuV"])
        let microvolts = 20 * log10((pow(10, dBm.power / 10) / 1000 * 50).squareRoot() / 1e-6)
        #expect(dBuV.unit == "dBuV" && abs(dBuV.power - microvolts) < 0.3, "\(dBm.line) → \(dBuV.line)")
        let dBmV = try Self.reading(["--unit", "dBmV"])
        #expect(dBmV.unit == "dBmV" && abs(dBmV.power - (microvolts - 60)) < 0.3, "\(dBmV.line)")
        // field strength: + the factor at 434 MHz (10 + 10 × 34/100 = 13.4 dB/m) + the cable's 2.5 dB
        let field = try Self.reading(["--antenna-factor", factor, "--correction", cable])
        #expect(field.unit == "dBuV/m" && abs(field.power - (microvolts + 13.4 + 2.5)) < 0.3, "\(field.line)")
        // watts beside the dBm
        let watts = try Self.reading(["--unit", "W"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(watts.line.utf8)) as? [String: Any])
        let power = try #require(object["power_w"] as? Double)
        #expect(abs(10 * log10(power * 1000) - dBm.power) < 0.3, "\(watts.line)")
        let text = try run(Paths.tscope, ["meter", "--device", "demo-tinysa", "--band", "433:435", "-n", "1", "--unit", "W"])
        #expect(text.stdoutText.range(of: #"[0-9.]+ [munpfa]W$"#, options: .regularExpression) != nil, "\(text.stdoutText)")

        // the recording keeps the unit; reading it back says dBuV/m
        let capture = directory.appendingPathComponent("field.tscope").path
        let recorded = try run(Paths.tscope, ["record", "--device", "demo-tinysa", "-f", "433:435", "--duration", "2s",
                                              "--antenna-factor", factor, "--output", capture])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let replayed = try run(Paths.tscope, ["meter", "--input", capture, "--band", "433:435", "--json"])
        let lines = replayed.stdoutText.split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.contains("\"unit\":\"dBuV/m\"") }, "\(replayed.stdoutText) \(replayed.stderr)")
    }

    @Test func anUncalibratedSDRStaysInDBAndBadInputIsOneLine() throws {
        let sdr = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "100:101", "-n", "1", "--json", "--unit", "dBuV"])
        #expect(sdr.status == 0 && sdr.stdoutText.contains("\"unit\":\"dB\""), "\(sdr.stdoutText) \(sdr.stderr)")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("level-units-bad-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bad = directory.appendingPathComponent("bad.csv").path
        try "100000000,1\n90000000,2\n".write(toFile: bad, atomically: true, encoding: .utf8)
        for arguments in [["meter", "--device", "demo-tinysa", "--band", "433:435", "-n", "1", "--correction", bad],
                          ["meter", "--device", "demo-tinysa", "--band", "433:435", "-n", "1", "--correction", directory.path + "/none.csv"],
                          ["meter", "--device", "demo-tinysa", "--band", "433:435", "-n", "1", "--antenna-factor", bad, "--unit", "dBm"],
                          ["meter", "--device", "demo-tinysa", "--band", "433:435", "-n", "1", "--unit", "dBW"],
                          ["sweep", "-f", "2400:2420", "-N", "1", "--unit", "dBuV"]] {
            let result = try run(Paths.tscope, arguments)
            #expect(result.status != 0, "\(arguments)")
            let errorLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error") || $0.contains("error") }
            #expect(!errorLines.isEmpty, "\(arguments): \(result.stderr)")
        }
        let named = try run(Paths.tscope, ["meter", "--device", "demo-tinysa", "--band", "433:435", "-n", "1", "--correction", bad])
        #expect(named.stderr.contains("bad.csv:2:"), "\(named.stderr)")
    }
}
