import Analyzers
import Devices
import Foundation
import Testing
import USBDriver

/// One parsed rtl_power CSV line.
struct RTLPowerLine {
    var lowHz: Int
    var highHz: Int
    var step: String
    var samples: Int
    var values: [Double]

    init?(_ line: Substring) {
        let fields = line.components(separatedBy: ", ")
        guard fields.count > 7,
              fields[0].range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil,
              fields[1].range(of: #"^\d{2}:\d{2}:\d{2}$"#, options: .regularExpression) != nil,
              let low = Int(fields[2]), let high = Int(fields[3]), let samples = Int(fields[5]) else { return nil }
        let values = fields[6...].compactMap { Double($0) }
        guard values.count == fields.count - 6 else { return nil }
        lowHz = low
        highHz = high
        step = fields[4]
        self.samples = samples
        self.values = values
    }
}

/// An emulated RTL-SDR served for the libusb stand-in for the length of a test.
final class ServedRTLSDR {
    let server: EmulatorSocketServer
    let emulator: RTLSDREmulator
    var socketPath: String { server.socketPath }

    init(scene: DemoScene, options: RTLSDREmulator.Options) throws {
        emulator = RTLSDREmulator(scene: scene, options: options)
        let directory = try Paths.temporaryDirectory("rtlsdr")
        server = try EmulatorSocketServer(emulator: emulator, socketPath: directory.appendingPathComponent("rtl.sock").path)
    }

    deinit { server.stop() }
}

@Suite(.serialized) struct RTLSDRSweepTests {
    static let scene = DemoScene(seed: 4, noiseSigma: 2, carriers: [.init(frequencyHz: 100.3e6, amplitude: 30)])

    @Test func sweepThroughLibUSBWritesRtlPowersLayout() throws {
        let served = try ServedRTLSDR(scene: Self.scene, options: .init(realTime: false))
        let result = try run(Paths.tscope, ["sweep", "--device", "rtlsdr", "-f", "88M:108M:125k", "-i", "1", "-1"],
                             environment: try FakeUSB.environment(sockets: [served.socketPath]))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map { RTLPowerLine($0) }
        // rtl_power -f 88M:108M:125k: 8 hops of 2.5 MHz, 32 bins of 78125 Hz, +1 repeated value
        #expect(lines.count == 8)
        let parsed = lines.compactMap { $0 }
        #expect(parsed.count == 8)
        #expect(parsed.map(\.lowHz) == (0..<8).map { 88_000_000 + $0 * 2_500_000 })
        #expect(parsed.allSatisfy { $0.highHz - $0.lowHz == 2_500_000 && $0.step == "78125.00" })
        #expect(parsed.allSatisfy { $0.values.count == 33 && $0.values[31] == $0.values[32] && $0.samples >= 256 })
        // the scene's carrier shows up in the hop and bin that cover 100.3 MHz
        let hop = try #require(parsed.first { $0.lowHz <= 100_300_000 && 100_300_000 < $0.highHz })
        let bin = Int(Double(100_300_000 - hop.lowHz) / 78_125)
        let peak = try #require(hop.values.indices.max { hop.values[$0] < hop.values[$1] })
        #expect(abs(peak - bin) <= 1, "peak in bin \(peak), carrier in bin \(bin)")
        #expect(result.stderr.contains("Number of frequency hops: 8"))
        #expect(served.emulator.protocolViolations.isEmpty, "\(served.emulator.protocolViolations)")
    }

    @Test func unplugEndsWithOneLineAndKeepsWhatWasWritten() throws {
        let served = try ServedRTLSDR(scene: Self.scene,
                                      options: .init(realTime: false, disconnectAfterBytes: 3_000_000))
        let result = try run(Paths.tscope, ["sweep", "--device", "rtlsdr", "-f", "88M:108M:125k", "-i", "1"],
                             environment: try FakeUSB.environment(sockets: [served.socketPath]))
        #expect(result.status != 0)
        let errorLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        #expect(errorLines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("disconnected") || result.stderr.contains("stopped delivering"))
        #expect(result.stdoutText.split(separator: "\n").allSatisfy { RTLPowerLine($0) != nil })
    }

    @Test func noDongleGivesAClearMessage() throws {
        let result = try run(Paths.tscope, ["sweep", "--device", "rtlsdr", "-f", "88M:108M:125k", "-1"],
                             environment: try FakeUSB.environment(sockets: []))
        #expect(result.status != 0)
        #expect(result.stderr.contains("RTL-SDR not found"), "stderr: \(result.stderr)")
    }

    @Test func badOptionsNameTheOptionAndTheExpectedForm() throws {
        let result = try run(Paths.tscope, ["sweep", "--device", "demo-rtlsdr", "-f", "88M:108M:125k", "-c", "lots"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("-c lots: expected a percentage (20%) or a fraction (0.2)"))
    }
}

/// `--ppm` and `--bias-tee` against librtlsdr 0.6.0 itself: Debian's
/// `rtl_sdr -p 50` and tscope's driver set the same registers on the same
/// emulated dongle, and a dongle whose crystal is 50 ppm fast shows the demo
/// carrier where it is only once corrected.
@Suite(.serialized) struct RTLSDRCorrectionTests {
    /// what a dongle ends up tuned to: the samples' centre [Hz] and the sample-rate correction [ppm]
    struct Tuning: Equatable { var centerHz: Double; var correctionPPM: Int }

    static let scene = DemoScene(seed: 4, noiseSigma: 2, carriers: [.init(frequencyHz: 433.92e6, amplitude: 30)])
    static var fastCrystal: RTLSDREmulator.Options {
        var options = RTLSDREmulator.Options(realTime: false)
        options.crystalErrorPPM = 50
        return options
    }

    /// rtl_sdr's `-p 50` and tscope's correction on the same dongle: the
    /// same sample-rate correction registers, and both tuned to within the
    /// PLL's error of 433.92 MHz, where without it the dongle sits 21.7 kHz
    /// high. (The R820T PLL fraction is computed exactly here; librtlsdr
    /// 0.6.0 rounds the crystal to kHz for it, which puts it 100-odd Hz
    /// further off once a correction makes the crystal a fractional kHz.)
    @Test func ppmSetsWhatLibrtlsdrSets() throws {
        let rtlSDR = try #require(which("rtl_sdr"), "Debian's rtl-sdr (Tools/install-deps --test)")
        func librtlsdr(_ extra: [String]) throws -> Tuning {
            let served = try ServedRTLSDR(scene: Self.scene, options: Self.fastCrystal)
            let result = try run(rtlSDR, ["-f", "433920000", "-s", "2400000", "-g", "29.7", "-n", "240000"] + extra
                                    + ["/dev/null"],
                                 environment: try FakeUSB.environment(sockets: [served.socketPath]))
            #expect(result.status == 0, "\(result.stderr)")
            return Tuning(centerHz: served.emulator.centerFrequencyHz,
                          correctionPPM: served.emulator.sampleFrequencyCorrectionPPM)
        }
        let uncorrected = try librtlsdr([])
        let theirs = try librtlsdr(["-p", "50"])

        // the same calls in rtl_sdr's order: rate, frequency, gain, correction
        let emulator = RTLSDREmulator(scene: Self.scene, options: Self.fastCrystal)
        let transport = EmulatedTransport(emulator: emulator)
        defer { transport.close() }
        let device = try RTLSDRDevice.open(transport: transport)
        try device.setSampleRate(2_400_000)
        try device.setCenterFrequency(433_920_000)
        try device.setGain(.manual(tenthsDB: 297))
        try device.setFrequencyCorrection(ppm: 50)
        let ours = transport.withEmulator { emulator in
            let emulator = emulator as! RTLSDREmulator
            return Tuning(centerHz: emulator.centerFrequencyHz, correctionPPM: emulator.sampleFrequencyCorrectionPPM)
        }

        // the fast crystal puts the LO (and so the centre) about 50 ppm high
        #expect(abs(uncorrected.centerHz - (433.92e6 + 21_696)) < 500, "rtl_sdr without -p: \(uncorrected)")
        #expect(ours.correctionPPM == theirs.correctionPPM && theirs.correctionPPM == 50, "\(ours) \(theirs)")
        #expect(abs(theirs.centerHz - 433.92e6) < 200, "rtl_sdr -p 50: \(theirs)")
        #expect(abs(ours.centerHz - 433.92e6) < 200, "tscope --ppm 50: \(ours)")
    }

    /// `meter --ppm` on the fast-crystal dongle: the carrier's peak moves back to 433.92 MHz.
    @Test func meterPeaksMoveBackWithPPM() throws {
        func peak(_ extra: [String]) throws -> Double {
            let result = try run(Paths.tscope, ["meter", "--device", "demo-rtlsdr", "--demo-crystal-ppm", "50",
                                                "--band", "433.8:434.04", "--peaks", "1", "--count", "1", "--json"]
                                                + extra, timeoutSeconds: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let line = try #require(result.stdoutText.split(separator: "\n").last)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let peaks = try #require(object["peaks"] as? [[String: Double]])
            return try #require(peaks.first?["hz"])
        }
        let shifted = try peak([])
        let corrected = try peak(["--ppm", "50"])
        // 50 ppm of 433.92 MHz is 21.7 kHz: the LO is high, so the carrier shows low
        #expect(abs(shifted - (433.92e6 - 21_696)) < 2_000, "uncorrected peak at \(shifted) Hz")
        #expect(abs(corrected - 433.92e6) < 2_000, "corrected peak at \(corrected) Hz")
    }

    @Test func biasTeeDrivesGPIOZero() throws {
        let emulator = RTLSDREmulator(scene: Self.scene, options: .init(realTime: false))
        let transport = EmulatedTransport(emulator: emulator)
        defer { transport.close() }
        let device = try RTLSDRDevice.open(transport: transport)
        #expect(!transport.withEmulator { ($0 as! RTLSDREmulator).biasTeeOn })
        try device.setBiasTee(true)
        #expect(transport.withEmulator { ($0 as! RTLSDREmulator).biasTeeOn })
        try device.setBiasTee(false)
        #expect(!transport.withEmulator { ($0 as! RTLSDREmulator).biasTeeOn })
        // through the source as every command opens it
        let source = try RTLSDRSpectrumSource(device: device, settings: .init(biasTee: true), onFrame: { _ in })
        #expect(transport.withEmulator { ($0 as! RTLSDREmulator).biasTeeOn } && source.settings.biasTee)
    }
}
