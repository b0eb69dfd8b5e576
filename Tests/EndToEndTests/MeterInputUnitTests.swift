import Foundation
import Testing

/// `meter --input` says the unit the capture's levels are in: a tinySA's
/// recording is in dBm (it was labelled dB before).
@Suite struct MeterInputUnitTests {
    @Test func aDBmRecordingIsReadInDBm() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("meter-unit-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("tinysa.tscope").path
        let recorded = try run(Paths.tscope, ["record", "--device", "demo-tinysa", "-f", "433:435", "--duration", "2s",
                                              "--output", capture])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let live = try run(Paths.tscope, ["meter", "--device", "demo-tinysa", "--band", "433:435", "-n", "1", "--json"])
        #expect(live.stdoutText.contains("\"unit\":\"dBm\""), "\(live.stdoutText)")
        let replayed = try run(Paths.tscope, ["meter", "--input", capture, "--band", "433:435", "--json"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        let lines = replayed.stdoutText.split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.contains("\"unit\":\"dBm\"") }, "\(replayed.stdoutText)")
        let plain = try run(Paths.tscope, ["meter", "--input", capture, "--band", "433:435"])
        #expect(plain.stdoutText.split(separator: "\n").allSatisfy { $0.hasSuffix(" dBm") }, "\(plain.stdoutText)")
    }
}
