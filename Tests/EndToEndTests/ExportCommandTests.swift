import Foundation
import Testing

@Suite(.serialized) struct ExportCommandTests {
    @Test func pngExportWritesAPictureAndSaysWhatItDrew() throws {
        let directory = try Paths.temporaryDirectory("export")
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = directory.appendingPathComponent("w.png").path
        let result = try run(Paths.tscope, ["export", "--png", png, osakaCapture, "--start", "+30", "--end", "+89",
                                            "--low", "88.07M", "--high", "88.13M"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("60 frames"))
        #expect(result.stderr.contains("88.07 MHz–88.13 MHz"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    @Test func csvExportInBothLayouts() throws {
        let directory = try Paths.temporaryDirectory("export-csv")
        defer { try? FileManager.default.removeItem(at: directory) }
        let wide = directory.appendingPathComponent("w.csv").path
        let long = directory.appendingPathComponent("l.csv").path
        #expect(try run(Paths.tscope, ["export", "--csv", wide, osakaCapture, "--utc-offset", "9"]).status == 0)
        #expect(try run(Paths.tscope, ["export", "--csv", long, "--layout", "long", osakaCapture, "--utc-offset", "9"]).status == 0)
        let wideLines = try String(contentsOfFile: wide, encoding: .utf8).split(separator: "\n")
        let longLines = try String(contentsOfFile: long, encoding: .utf8).split(separator: "\n")
        #expect(wideLines.count == 300)
        #expect(longLines.count == 1 + 299 * 128)
        // rtl_power wrote Japan's local time: 12:31:45 JST = 03:31:45 UTC
        #expect(wideLines[1].hasPrefix("2018-11-18T03:31:45.000000Z,-28.67,"))
        // the first value's frequency is rtl_power's "Hz low" (the centre of that value's bin)
        #expect(longLines[1] == "2018-11-18T03:31:45.000000Z,88050000,-28.67")
    }

    @Test func exportNeedsExactlyOneOutput() throws {
        let result = try run(Paths.tscope, ["export", osakaCapture])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--png"))
    }
}
