import Foundation
import Testing

/// The real rtl_power capture the Capture tests use (Tests/CaptureTests/Fixtures, provenance there).
let osakaCapture = Paths.packageRoot.appendingPathComponent("Tests/CaptureTests/Fixtures/rtl_power-fm-osaka/nhkfm3.csv").path

@Suite(.serialized) struct ConvertCommandTests {
    @Test func rtlPowerRoundTripsThroughEveryWritableFormatWithItsValues() throws {
        let directory = try Paths.temporaryDirectory("convert")
        defer { try? FileManager.default.removeItem(at: directory) }
        let env = ["TZ": "UTC"]
        let chain = [("a.csv", "hackrf_sweep"), ("b.bin", nil), ("c.sdrff", nil)] as [(String, String?)]
        var previous = osakaCapture
        for (name, format) in chain {
            let out = directory.appendingPathComponent(name).path
            var arguments = ["convert", previous, out]
            if let format { arguments += ["--format", format] }
            let result = try run(Paths.tscope, arguments, environment: env)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("299 frames"))
            previous = out
        }
        let table = directory.appendingPathComponent("t.csv").path
        let result = try run(Paths.tscope, ["convert", previous, table, "--format", "csv"], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        // the values after four conversions are the file's own
        let original = try String(contentsOfFile: osakaCapture, encoding: .utf8).split(separator: "\n")
        let converted = try String(contentsOfFile: table, encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(converted.count == original.count)
        for (a, b) in zip(original, converted) {
            let expected = a.components(separatedBy: ", ").dropFirst(6).dropLast().map { Float($0)! }
            let actual = b.split(separator: ",").dropFirst().map { Float($0)! }
            #expect(actual == expected)
        }
    }

    @Test func damagedLinesAreSkippedWithAWarningOrFatalWithStrict() throws {
        let directory = try Paths.temporaryDirectory("convert-bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        var lines = try String(contentsOfFile: osakaCapture, encoding: .utf8).components(separatedBy: "\n")
        lines[41] = lines[41].replacingOccurrences(of: "-2", with: "x2")
        let input = directory.appendingPathComponent("bad.csv").path
        try lines.joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("o.csv").path
        let lenient = try run(Paths.tscope, ["convert", input, out, "--format", "csv"])
        #expect(lenient.status == 0)
        #expect(lenient.stderr.contains("skipped 1 damaged"))
        #expect(lenient.stderr.contains("bad.csv:42:"))
        let strict = try run(Paths.tscope, ["convert", input, out, "--format", "csv", "--strict"])
        #expect(strict.status != 0)
        let errorLines = strict.stderr.split(separator: "\n")
        #expect(errorLines.count == 1)
        #expect(strict.stderr.contains("bad.csv:42: column"))
    }

    @Test func badInputsGiveOneLineAndANonZeroExit() throws {
        let directory = try Paths.temporaryDirectory("convert-err")
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty.csv").path
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let sigmfMeta = directory.appendingPathComponent("r.sigmf-meta").path
        try #"{"global": {"core:datatype": "ci8", "core:version": "1"}, "captures": []}"#.write(toFile: sigmfMeta, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("r.sigmf-data").path, contents: Data([1, 2]))
        let truncated = directory.appendingPathComponent("t.bin").path
        _ = FileManager.default.createFile(atPath: truncated, contents: Data([200, 0, 0, 0, 1, 2, 3]))
        for (input, expected) in [(empty, "empty"), (sigmfMeta, "core:sample_rate"), (truncated, "byte 0"),
                                  ("/nonexistent/x.csv", "cannot open")] {
            let result = try run(Paths.tscope, ["convert", input, directory.appendingPathComponent("o.sdrff").path])
            #expect(result.status != 0)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains(expected), "\(result.stderr)")
        }
    }

    @Test func theProgressBarAppearsOnlyOnATerminal() throws {
        let directory = try Paths.temporaryDirectory("convert-pipe")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try run(Paths.tscope, ["convert", osakaCapture, directory.appendingPathComponent("n").path, "--format", "null"])
        #expect(result.status == 0)
        #expect(!result.stderr.contains("["))
        #expect(!result.stderr.contains("\r"))
    }

    /// Excerpts of real files (provenance in Tests/CaptureTests/Fixtures/README.md) and their formats.
    static let realSweepFiles = [
        ("rtl_power-fm-osaka/cocolo3.csv", "rtl_power", "csv"),
        ("excerpts/rtl_power-test5-excerpt.csv", "rtl_power", "csv"),
        ("excerpts/rtl_power-fm_stations-excerpt.csv", "rtl_power", "csv"),
        ("excerpts/rtl_power-filename_jackie-excerpt.csv", "rtl_power", "csv"),
        ("excerpts/hackrf_sweep-html-sdr-sweep-head64.csv", "hackrf_sweep", "csv"),
        ("excerpts/hackrf_sweep-tst-excerpt.bin", "hackrf_sweep_binary", "bin"),
    ]

    @Test(arguments: realSweepFiles)
    func aSweepFileConvertsBackToTheSameBytes(_ file: (String, String, String)) throws {
        let directory = try Paths.temporaryDirectory("convert-back")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Paths.packageRoot.appendingPathComponent("Tests/CaptureTests/Fixtures/\(file.0)").path
        let store = directory.appendingPathComponent("x.tscope").path
        let back = directory.appendingPathComponent("y.\(file.2)").path
        let direct = directory.appendingPathComponent("z.\(file.2)").path
        // a machine in another zone prints the same local times it reads
        let env = ["TZ": "America/New_York"]
        for arguments in [["convert", input, store], ["convert", store, back, "--format", file.1],
                          ["convert", input, direct, "--format", file.1]] {
            let result = try run(Paths.tscope, arguments, environment: env)
            #expect(result.status == 0, "\(result.stderr)")
        }
        let original = try Data(contentsOf: URL(fileURLWithPath: input))
        #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == original)
        #expect(try Data(contentsOf: URL(fileURLWithPath: direct)) == original)
    }

    @Test func nanValuesAreCountedOnStderrAndKept() throws {
        let directory = try Paths.temporaryDirectory("convert-nan")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Paths.packageRoot.appendingPathComponent("Tests/CaptureTests/Fixtures/excerpts/rtl_power-test5-excerpt.csv").path
        let table = directory.appendingPathComponent("t.csv").path
        let result = try run(Paths.tscope, ["convert", input, table, "--format", "csv"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("11 value(s) were nan"), "\(result.stderr)")
        #expect(result.stderr.contains("2 frames"))
        #expect(!result.stderr.contains("skipped"))
    }
}
