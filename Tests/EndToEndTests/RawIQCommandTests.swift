import Foundation
import Testing

/// Raw I/Q through the built binary: bins labelled as numpy's fftshift/fftfreq
/// (issue 10 point 3), on the real HackRF capture in Tests/CaptureTests/Fixtures.
@Suite struct RawIQCommandTests {
    @Test func binCentresRunFromCentreMinusHalfTheRateInStepsOfRateOverN() throws {
        let directory = try Paths.temporaryDirectory("raw-iq")
        defer { try? FileManager.default.removeItem(at: directory) }
        let table = directory.appendingPathComponent("light.csv").path
        let result = try run(Paths.tscope, ["convert", RealFiles.lightCS8, table, "--format", "csv", "--in-format", "cs8",
                                            "--rate", "2M", "--center", "2.475G", "--fft-size", "256"])
        #expect(result.status == 0, "\(result.stderr)")
        let header = try #require(try String(contentsOfFile: table, encoding: .utf8).split(separator: "\n").first)
        let centres = header.split(separator: ",").dropFirst().compactMap { Double($0) }
        #expect(centres.count == 256)
        // bin k at 2.475 GHz − 1 MHz + k · 7812.5 Hz; bin 128 on the centre
        for (k, hertz) in centres.enumerated() {
            #expect(abs(hertz - (2.475e9 - 1e6 + Double(k) * 7812.5)) < 1e-3, "bin \(k): \(hertz)")
        }
        #expect(centres[128] == 2.475e9)
    }
}
