import Devices
import Foundation
import Testing
import USBDriver

/// Any firmware emulator served on a Unix socket for the libusb stand-in.
final class ServedEmulator {
    let server: EmulatorSocketServer
    var socketPath: String { server.socketPath }

    init(_ emulator: FirmwareEmulator, name: String) throws {
        let directory = try Paths.temporaryDirectory("emulator")
        server = try EmulatorSocketServer(emulator: emulator, socketPath: directory.appendingPathComponent("\(name).sock").path)
    }

    deinit { server.stop() }
}

/// `tscope devices` and `devices --probe` against emulated tinySA, RF
/// Explorer and HackRF through the libusb stand-in (Tools/fakeusb).
@Suite(.serialized) struct DevicesCommandTests {
    func tinySA(_ options: TinySAEmulator.Options = .init(model: .ultra, serialNumber: "TSA-0042")) throws -> ServedEmulator {
        try ServedEmulator(TinySAEmulator(seed: 2, options: options), name: "tinysa")
    }

    func rfExplorer() throws -> ServedEmulator {
        try ServedEmulator(RFExplorerEmulator(seed: 3, options: .init(secondsPerSweep: 0.01, serialNumber: "RFE-7")),
                           name: "rfexplorer")
    }

    @Test func listsEveryAttachedAnalyzerWithItsSerial() throws {
        let hackrf = try ServedHackRF()
        let tiny = try tinySA()
        let rfe = try rfExplorer()
        let result = try run(Paths.tscope, ["devices"],
                             environment: try FakeUSB.environment(sockets: [hackrf.socketPath, tiny.socketPath, rfe.socketPath]))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("HackRF One  serial ") && lines[0].hasSuffix("--device hackrf"))
        #expect(lines[1].contains("tinySA") && lines[1].contains("serial TSA-0042") && lines[1].contains("bus 1 address 2")
                && lines[1].hasSuffix("--device tinysa"))
        #expect(lines[2].contains("RF Explorer") && lines[2].contains("serial RFE-7") && lines[2].contains("id 10c4:ea60"))
    }

    @Test func probeReadsFramesFromEachKindOverLibUSB() throws {
        let tiny = try tinySA()
        let rfe = try rfExplorer()
        let environment = try FakeUSB.environment(sockets: [tiny.socketPath, rfe.socketPath])
        for (device, points) in [("tinysa", 200), ("rfexplorer", 112)] {
            let result = try run(Paths.tscope, ["devices", "--probe", "--device", device, "--frames", "3", "--band", "430:440"],
                                 environment: environment, timeoutSeconds: 30)
            #expect(result.status == 0, "\(device): \(result.stderr)")
            let lines = result.stdoutText.split(separator: "\n")
            #expect(lines.count == 3, "\(device): \(result.stdoutText)")
            for line in lines {
                #expect(line.hasPrefix("430.000–") && line.contains("\(points) points"), "\(line)")
                #expect(line.contains("at 433."), "the 433.92 MHz carrier: \(line)")
            }
        }
        // auto takes the first attached analyzer: the tinySA
        let auto = try run(Paths.tscope, ["devices", "--probe"], environment: environment, timeoutSeconds: 30)
        #expect(auto.stderr.contains("tinySA: 1 frames"), "\(auto.stderr)")
    }

    /// The basic's default probe band (430–440 MHz) is on its high input:
    /// the driver selects it, and the 433.92 MHz carrier shows.
    @Test func probeOnTheBasicSelectsItsHighInput() throws {
        let tiny = try tinySA(.init(model: .basic, secondsPerPoint: 0, serialNumber: "TSA-B"))
        let result = try run(Paths.tscope, ["devices", "--probe", "--device", "tinysa", "--frames", "2"],
                             environment: try FakeUSB.environment(sockets: [tiny.socketPath]), timeoutSeconds: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == 2, "\(result.stdoutText)")
        for line in lines {
            #expect(line.hasPrefix("430.000–") && line.contains("at 433."), "\(line)")
        }
    }

    @Test func accessDeniedAndBusyAreActionable() throws {
        let tiny = try tinySA()
        var environment = try FakeUSB.environment(sockets: [tiny.socketPath])
        environment["TSCOPE_FAKEUSB_REFUSE"] = "0:ACCESS"
        let listed = try run(Paths.tscope, ["devices"], environment: environment)
        #expect(listed.stdoutText.contains("unreadable: access denied?"))
        #expect(listed.stdoutText.contains("Tools/udev/53-tscope.rules"))
        let denied = try run(Paths.tscope, ["devices", "--probe", "--device", "tinysa"], environment: environment)
        #expect(denied.status != 0)
        #expect(denied.stderr.contains("tinySA found but access denied: install Tools/udev/53-tscope.rules"), "\(denied.stderr)")
        #expect(denied.stderr.split(separator: "\n").count == 1)

        environment["TSCOPE_FAKEUSB_REFUSE"] = "0:BUSY"
        let busy = try run(Paths.tscope, ["devices", "--probe", "--device", "tinysa"], environment: environment)
        #expect(busy.status != 0)
        #expect(busy.stderr.contains("tinySA is busy: another program"), "\(busy.stderr)")
    }

    @Test func aHeadlessRunGivesUpAfterTheReconnectTimeout() throws {
        // unplugged within the first few hundred packets, and gone for good
        let faults = EmulatorFaults(seed: 9, disconnectProbability: 0.01)
        let tiny = try tinySA(.init(model: .basic, secondsPerPoint: 0, faults: faults))
        let started = Date()
        let result = try run(Paths.tscope, ["devices", "--probe", "--device", "tinysa", "--frames", "1000000",
                                            "--reconnect-timeout", "1"],
                             environment: try FakeUSB.environment(sockets: [tiny.socketPath]), timeoutSeconds: 30)
        let seconds = Date().timeIntervalSince(started)
        #expect(result.status == 1)
        #expect(result.stderr.contains("tinySA lost (tinySA disconnected) and not back after 1 s; giving up"),
                "\(result.stderr)")
        #expect(seconds < 15)
        #expect(!result.stdoutText.isEmpty, "frames before the unplug are printed")
    }

    @Test func demoDevicesNeedNoHardware() throws {
        for (device, points) in [("demo-tinysa", "200 points"), ("demo-rfexplorer", "112 points")] {
            let result = try run(Paths.tscope, ["devices", "--probe", "--device", device], timeoutSeconds: 30)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdoutText.contains(points), "\(result.stdoutText)")
        }
    }
}

/// The device catalogue has one list of RTL-SDR ids (RTLSDRProtocol.knownIDs):
/// a rebadged dongle that `--device rtlsdr` can open is also listed and found
/// by `--device auto`.
@Suite(.serialized) struct RebadgedRTLSDRTests {
    @Test func aRebadgedDongleIsListedAndFoundByAuto() throws {
        var options = RTLSDREmulator.Options(realTime: false)
        options.usbID = (0x1d19, 0x1101)
        let served = try ServedRTLSDR(scene: RTLSDRSweepTests.scene, options: options)
        let environment = try FakeUSB.environment(sockets: [served.socketPath])
        let listed = try run(Paths.tscope, ["devices"], environment: environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        let line = listed.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.contains("RTL-SDR") && line.contains("id 1d19:1101") && line.hasSuffix("--device rtlsdr"), "\(line)")
        let metered = try run(Paths.tscope, ["meter", "--device", "auto", "--band", "88:90", "-n", "1"],
                              environment: environment)
        #expect(metered.status == 0, "\(metered.stderr)")
        #expect(metered.stdoutText.contains("dB"), "\(metered.stdoutText)")
    }
}
