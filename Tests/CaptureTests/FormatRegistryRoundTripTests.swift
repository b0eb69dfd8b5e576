import Foundation
import Signals
import Testing
@testable import Capture

/// The registry opens the capture store and rtl_power as outputs too: a real
/// rtl_power file survives conversion into each and back.
@Suite struct FormatRegistryRoundTripTests {
    private func convert(_ input: String, to output: String, format: CaptureFormat,
                         metadata: CaptureMetadata? = nil) throws {
        let reader = try CaptureFormat.rtlPower.openReader(path: input, options: utc)
        let writer = try format.openWriter(path: output, metadata: metadata ?? reader.metadata)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        while try reader.next(into: &frame) { try writer.write(frame) }
        try writer.finish()
    }

    @Test func realRTLPowerFileIntoTheStoreAndBackExactly() throws {
        let directory = try TemporaryDirectory("registry-store")
        defer { directory.remove() }
        let input = Fixtures.path(Fixtures.osakaFiles[0])
        let output = directory.path("osaka.tscope")
        try convert(input, to: output, format: .tscope)
        #expect(try CaptureFormat.detect(path: output) == .tscope)
        let original = try readAll(RTLPowerCSVReader(path: input, options: utc))
        let stored = try readAll(try CaptureFormat.tscope.openReader(path: output, options: utc))
        #expect(stored.count == original.count && original.count > 200)
        #expect(zip(stored, original).allSatisfy(identical))

        // converting again appends a session instead of overwriting what is there
        try convert(input, to: output, format: .tscope)
        let reader = try CaptureStoreReader(path: output)
        #expect(reader.sessions.count == 2 && reader.frameCount == 2 * original.count)
    }

    @Test func realRTLPowerFileThroughTheRTLPowerWriterKeepsItsValues() throws {
        let directory = try TemporaryDirectory("registry-rtl")
        defer { directory.remove() }
        let input = Fixtures.path(Fixtures.osakaFiles[1])
        let output = directory.path("again.csv")
        try convert(input, to: output, format: .rtlPower)
        let original = try readAll(RTLPowerCSVReader(path: input, options: utc))
        let again = try readAll(RTLPowerCSVReader(path: output, options: utc))
        #expect(again.count == original.count)
        for (a, b) in zip(again, original) {
            #expect(a.timestamp == b.timestamp && a.binWidthHz == b.binWidthHz && a.powerDB == b.powerDB)
            #expect(abs(a.startHz - b.startHz) <= 0.5)  // rtl_power prints hop edges as whole Hz
        }
    }

    @Test func rtlPowerWriterSplitsWideFramesAndSkipsUnmeasuredHops() throws {
        let directory = try TemporaryDirectory("registry-split")
        defer { directory.remove() }
        let path = directory.path("wide.csv")
        let bins = RTLPowerFrameWriter.maxBinsPerHop * 2 + 10
        var power = (0..<bins).map { Float($0 % 97) * -0.5 }
        for index in RTLPowerFrameWriter.maxBinsPerHop..<(2 * RTLPowerFrameWriter.maxBinsPerHop) { power[index] = .nan }
        let writer = try CaptureFormat.rtlPower.openWriter(path: path)
        try writer.write(SpectrumFrame(startHz: 100e6, binWidthHz: 1000, timestamp: 1_700_000_000, powerDB: power))
        try writer.finish()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)  // the all-NaN middle hop is left out
        let fields = lines[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        // "Hz low" is the centre of the hop's first bin (100 MHz + 8192.5 kHz), "Hz high" 10 bins on, as rtl_power prints
        #expect(fields[2] == "108192500" && fields[3] == "108202500" && fields.count == 6 + 10 + 1)
    }
}
