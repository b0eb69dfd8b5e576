import Foundation
import Signals
import Testing
import USBDriver
@testable import Devices

/// A real tinySA ULTRA's own answers (Fixtures/tinysa-ultra-v1.4-143, see
/// its README): read through the parsers as the device meant them, and
/// the emulator's answers to the same commands in the same bytes wherever
/// the firmware fixes them. The capture stops each reply at the prompt's
/// `>` (its collector reads up to there); the firmware's prompt is `ch> `
/// (VNA_SHELL_PROMPT_STR), so replays through the scan parser add the space.
@Suite struct TinySACapturedRepliesTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tinysa-ultra-v1.4-143")

    static func captured(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name + ".bin")))
    }

    static func lines(_ name: String, _ command: String) throws -> [String] {
        try TinySAShellText.lines(of: try captured(name), command: command)
    }

    @Test func versionAndInfoReadAsTheDeviceMeantThem() throws {
        let version = try TinySAShellText.version(try Self.lines("version", "version"))
        #expect(version == .init(firmware: "tinySA4_v1.4-143-g864bb27", model: .ultra, hardware: "V0.4.5.1.1"))
        let info = try TinySAShellText.info(try Self.lines("info", "info"))
        #expect(info.board == "tinySA ULTRA")
        #expect(info.value("Version") == version.firmware)
        #expect(info.value("Platform") == "STM32F303xC Analog & DSP")
    }

    @Test func frequenciesIncludeBothEndsRoundedToTheHertz() throws {
        let hz = try TinySAShellText.frequencies(try Self.lines("frequencies", "frequencies"))
        #expect(hz.count == 450 && hz.first == 0 && hz.last == 2_600_000_000)
        // 2.6 GHz / 449 steps, to the nearest hertz, computed here in Double
        for (i, value) in hz.enumerated() {
            #expect(value == UInt64((Double(i) * 2.6e9 / 449).rounded()), "point \(i)")
            #expect(value == TinySAShellText.sweepFrequencyHz(index: i, points: 450, startHz: 0, stopHz: 2_600_000_000))
        }
    }

    @Test func everyScanOutmaskReadsAsTheDeviceMeantIt() throws {
        let command = { (mask: Int) in "scan 0 2000000 5 \(mask)" }
        let mask1 = try TinySAShellText.scan(try Self.lines("scan_mask1", command(1)), outmask: 1)
        #expect(mask1.map(\.frequencyHz) == [0, 500_000, 1_000_000, 1_500_000, 2_000_000])
        let mask2 = try TinySAShellText.scan(try Self.lines("scan_mask2", command(2)), outmask: 2)
        #expect(mask2.map(\.actualDBm) == [7.8125, -4.40625, -81.53125, -83.03125, -84.0625])
        #expect(mask2.allSatisfy { $0.frequencyHz == nil && $0.storedDBm == nil })
        let mask3 = try TinySAShellText.scan(try Self.lines("scan_mask3", command(3)), outmask: 3)
        #expect(mask3.map(\.frequencyHz) == mask1.map(\.frequencyHz))
        #expect(mask3.map(\.actualDBm) == [8.3125, -4.90625, -81.9375, -81.53125, -84.0625])
        let mask4 = try TinySAShellText.scan(try Self.lines("scan_mask4", command(4)), outmask: 4)
        #expect(mask4.map(\.storedDBm) == [8.3125, -4.40625, -76.9375, -85.03125, -83.0625])
        // levels in 1/32 dB, as scanraw's
        #expect((mask2 + mask3).compactMap(\.actualDBm).allSatisfy { ($0 * 32).rounded() == $0 * 32 })
        // a wrong mask is a clear error, not a crash
        #expect(throws: TinySAShellText.ReplyError.self) { try TinySAShellText.scan(try Self.lines("scan_mask3", command(3)), outmask: 2) }
    }

    @Test(arguments: [("scanraw_5pts", 5), ("scanraw_15pts", 15)])
    func scanrawFramesReadAsTheDeviceMeantThem(name: String, points: Int) throws {
        let raw = try Self.captured(name)
        // dBm = int16 LE / 32 − 174 (the Ultra's zero level), each point `x` + 2 bytes between the braces
        let open = try #require(raw.firstIndex(of: UInt8(ascii: "{")))
        let expected: [Float] = (0..<points).map { i in
            let at = open + 1 + 3 * i
            return Float(Int16(bitPattern: UInt16(raw[at + 1]) | UInt16(raw[at + 2]) << 8)) / 32 - 174
        }
        var parser = TinySAScanParser(maxPoints: 450, zeroLevelDB: TinySAModel.ultra.zeroLevelDB)
        parser.expect(points: points)
        var events: [TinySAScanParser.Event] = []
        (raw + [UInt8(ascii: " ")]).withUnsafeBytes { parser.feed($0) { events.append($0) } }
        #expect(events == [.scan])
        #expect(Array(parser.values[0..<points]) == expected)
        // 150–200 MHz with nothing connected: the Ultra's floor
        #expect(expected.allSatisfy { (-95 ... -75).contains($0) }, "\(expected)")
    }

    /// The emulated Ultra answers in the real one's bytes where the firmware fixes them.
    @Test func theEmulatorAnswersInTheSameBytes() throws {
        let transport = EmulatorTestTransport(emulator: TinySAEmulator(options: .init(model: .ultra, secondsPerPoint: 0)))
        func ask(_ command: String) throws -> [UInt8] {
            _ = try transport.bulkOut(endpoint: 0x01, data: Array((command + "\r").utf8), timeoutMS: 100)
            var bytes: [UInt8] = []
            while true {
                let chunk = try transport.bulkIn(endpoint: 0x81, length: 512, timeoutMS: 10)
                if chunk.isEmpty { return bytes }
                bytes += chunk
            }
        }
        _ = try ask("")  // the banner and the empty line's reply
        let space = [UInt8(ascii: " ")]
        #expect(try ask("version") == (try Self.captured("version")) + space)
        #expect(try ask("info") == (try Self.captured("info")) + space)
        // the capture's unit showed 0–2.6 GHz over 450 points: the emulator's sweep set there by scan
        _ = try ask("scan 0 2600000000 450")
        #expect(try ask("frequencies") == (try Self.captured("frequencies")) + space)
        #expect(try ask("scan 0 2000000 5 1") == (try Self.captured("scan_mask1")) + space)
        // levels differ (another scene); the format does not: same columns, %e and 0.000000000
        for mask in [2, 3, 4] {
            let ours = try TinySAShellText.lines(of: try ask("scan 0 2000000 5 \(mask)"), command: "scan 0 2000000 5 \(mask)")
            let theirs = try Self.lines("scan_mask\(mask)", "scan 0 2000000 5 \(mask)")
            #expect(ours.map(Self.shape) == theirs.map(Self.shape), "\(ours) vs \(theirs)")
        }
    }

    /// A line's form: digits → 9, so "-8.153125e+01 0.000000000 " → "-9.999999e+99 9.999999999 ".
    static func shape(_ line: String) -> String {
        String(line.map { $0.isNumber ? "9" : $0 }).replacingOccurrences(of: "-", with: "")
    }
}
