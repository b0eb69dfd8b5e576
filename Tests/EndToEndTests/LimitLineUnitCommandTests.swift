import Foundation
import Testing

/// A --mask whose header states its unit is evaluated in the levels' unit:
/// on the emulated tinySA (dBm; carriers at 433.92 MHz ≈ −30 dBm and 915 MHz
/// ≈ −36.5 dBm), a field-strength mask with an antenna factor trips on the
/// 433.92 MHz tone and not on 915 MHz, and a dBµV mask on a dBm display is
/// moved by 106.99 dB. Levels expected are worked out here from P = V²/R and
/// the tables, not read from tscope.
@Suite(.serialized) struct LimitLineUnitCommandTests {
    static func events(_ arguments: [String]) throws -> (status: Int32, peaks: [Double], units: [String], stderr: String) {
        let result = try run(Paths.tscope, ["events", "--device", "demo-tinysa", "--band", "400:950", "--json",
                                            "--duration", "3"] + arguments)
        let objects = result.stdoutText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return (result.status, objects.compactMap { $0["peak_hz"] as? Double }, objects.compactMap { $0["unit"] as? String },
                result.stderr)
    }

    @Test func aFieldStrengthMaskWithAnAntennaFactorTripsOnTheRightTone() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("limit-units-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // a flat 15 dB/m antenna: 433.92 MHz reads −30 + 106.99 + 15 ≈ 92 dBuV/m, 915 MHz ≈ 85.5 dBuV/m
        let factor = directory.appendingPathComponent("af.csv").path
        try "frequency_hz,antenna_factor_db_per_m\n300000000,15\n1000000000,15\n".write(toFile: factor, atomically: true, encoding: .utf8)
        // the limit: 80 dBuV/m up to 600 MHz (the 433.92 MHz tone is 12 dB over), 95 above (915 MHz is 9.5 dB under)
        let mask = directory.appendingPathComponent("limit.csv").path
        try "frequency_hz,level_dbuv_m\n400000000,80\n600000000,80\n600000001,95\n950000000,95\n"
            .write(toFile: mask, atomically: true, encoding: .utf8)
        let field = try Self.events(["--mask", mask, "--antenna-factor", factor])
        #expect(field.status == 0, "\(field.stderr)")
        #expect(!field.peaks.isEmpty, "the 433.92 MHz tone is over the limit: \(field.stderr)")
        #expect(field.peaks.allSatisfy { abs($0 - 433.92e6) < 2e6 }, "\(field.peaks)")
        #expect(field.units.allSatisfy { $0 == "dBuV/m" }, "\(field.units)")

        // the same mask on levels in dBm (no antenna factor): no constant converts, one line and a failure
        let refused = try Self.events(["--mask", mask])
        #expect(refused.status != 0)
        let lines = refused.stderr.split(separator: "\n").filter { !$0.isEmpty }
        #expect(lines.count == 1 && lines[0].contains("dBuV/m") && lines[0].contains("dBm"), "\(refused.stderr)")

        // a dBuV mask on a dBm display: 70 dBuV is −37 dBm, under the 433.92 MHz tone and over 915 MHz's
        // −36.5 dBm only by the 95 dBuV (−12 dBm) above 600 MHz; read as dBm (unconverted) nothing would trip
        let volts = directory.appendingPathComponent("volts.csv").path
        try "frequency_hz,level_dbuv\n400000000,70\n600000000,70\n600000001,95\n950000000,95\n"
            .write(toFile: volts, atomically: true, encoding: .utf8)
        let converted = try Self.events(["--mask", volts])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(!converted.peaks.isEmpty && converted.peaks.allSatisfy { abs($0 - 433.92e6) < 2e6 }, "\(converted.peaks)")
        #expect(converted.units.allSatisfy { $0 == "dBm" }, "\(converted.units)")

        // a header naming no unit tscope knows is one line naming the file
        let bad = directory.appendingPathComponent("bad.csv").path
        try "frequency_hz,level_dbw\n400000000,1\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let badResult = try Self.events(["--mask", bad])
        #expect(badResult.status != 0 && badResult.stderr.contains("bad.csv:1"), "\(badResult.stderr)")
    }
}
