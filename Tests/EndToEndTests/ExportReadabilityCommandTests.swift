import Foundation
import Testing

/// `tscope export --png` of a real one-sweep file is a readable picture
/// (issue 10 point 7); the layout itself is checked in PNGReadabilityTests.
@Suite struct ExportReadabilityCommandTests {
    /// width and height from a PNG's IHDR chunk
    func size(ofPNG path: String) throws -> (width: Int, height: Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(24))
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let word = { (offset: Int) in bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    @Test func aOneSweepHackRFSweepFileGivesAPlotAtLeast256PixelsTall() throws {
        let directory = try Paths.temporaryDirectory("export-one")
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = directory.appendingPathComponent("one.png").path
        let result = try run(Paths.tscope, ["export", RealFiles.sweepCSV, "--png", png], environment: ["TZ": "UTC"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("1 frames, 0 Hz–320 MHz"), "\(result.stderr)")
        let picture = try size(ofPNG: png)
        // 30 px of labels above, 256 of plot, 6 below
        #expect(picture.height == 30 + 256 + 6, "\(picture)")
        #expect(result.stderr.contains("×\(picture.height) px"))
    }
}
