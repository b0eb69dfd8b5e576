import ArgumentParser
import Devices
import Runs
import Signals
import USBDriver

extension DeviceChoice: ExpressibleByArgument {
    /// the choices served by the rtl_power-compatible sweep (RTLPowerSweep.swift)
    var isRTLSDR: Bool { kind == .rtlsdr }
}

struct DeviceOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Analyzer: auto (first attached, else demo), hackrf, rtlsdr, tinysa, rfexplorer, or a built-in emulation: "
            + "demo (= demo-hackrf), demo-rtlsdr, demo-tinysa, demo-rfexplorer.",
        valueName: "device"))
    var device: DeviceChoice = .auto

    @Option(name: [.customLong("serial"), .customShort("d")], help: "Serial number of the analyzer to open.")
    var serial: String?

    @Option(name: .customLong("reconnect-timeout"),
            help: "Headless commands: seconds to keep trying to reconnect a lost analyzer before giving up.")
    var reconnectTimeout: Double = 10

    @Option(name: .customLong("demo-seed"), help: .hidden)
    var demoSeed: UInt64 = 1

    func validate() throws {
        guard reconnectTimeout >= 0, reconnectTimeout.isFinite else {
            throw ValidationError("--reconnect-timeout \(reconnectTimeout): expected seconds ≥ 0")
        }
    }
}

/// An opened analyzer: its transport and how to name it on screen.
struct OpenedDevice {
    var transport: USBTransport
    var name: String
    var isDemo: Bool
}

extension DeviceOptions {
    /// Opens a HackRF (the sweep protocol's device). `auto` falls back to the
    /// demo only when no HackRF is attached; an attached one that cannot be
    /// opened is an error.
    func open(demoPacing: HackRFEmulator.Pacing = .realTime) throws -> OpenedDevice {
        switch device {
        case .demo, .demoHackRF:
            return demoDevice(pacing: demoPacing)
        case .hackrf:
            return try openHackRF()
        case .auto:
            let attached = try USBEnumerator.devices(matching: AnalyzerKind.hackrf.usbIDs)
            return attached.isEmpty && serial == nil ? demoDevice(pacing: demoPacing) : try openHackRF()
        default:
            throw CommandError("this command drives a HackRF One (hackrf_sweep's protocol); "
                + "--device \(device.rawValue) works with `tscope watch`, `meter`, `record` and `devices --probe`")
        }
    }

    private func demoDevice(pacing: HackRFEmulator.Pacing) -> OpenedDevice {
        let emulator = HackRFEmulator(seed: demoSeed, options: .init(pacing: pacing))
        return OpenedDevice(transport: EmulatedTransport(emulator: emulator), name: "HackRF One", isDemo: true)
    }

    private func openHackRF() throws -> OpenedDevice {
        let transport = try AnalyzerKind.hackrf.openTransport(serial: serial)
        let serialText = transport.deviceInfo.serialNumber.map { " \($0.suffix(8))" } ?? ""
        return OpenedDevice(transport: transport, name: "HackRF One\(serialText)", isDemo: false)
    }
}

extension DeviceOptions {
    /// Resolves `--device` (and `--serial`): `auto` takes the first attached
    /// analyzer of any kind, else the demo HackRF.
    /// - Parameter hackRF: gains and amplifier when the analyzer is a HackRF
    func selectAnalyzer(hackRF: HackRFSpectrumSource.Settings = .init()) throws -> SelectedAnalyzer {
        try SelectedAnalyzer.select(device, serial: serial, demoSeed: demoSeed, hackRF: hackRF)
    }

    /// The chosen analyzer behind a reconnect supervisor. `headless`
    /// commands give up after `--reconnect-timeout`; the viewer never does.
    func spectrumSource(headless: Bool, hackRF: HackRFSpectrumSource.Settings = .init(),
                        onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
                        onGap: @escaping @Sendable (ReconnectGap) -> Void = { _ in },
                        onGiveUp: @escaping @Sendable (String) -> Void = { _ in })
        throws -> (source: ReconnectingSpectrumSource, analyzer: SelectedAnalyzer) {
        let analyzer = try selectAnalyzer(hackRF: hackRF)
        let policy = ReconnectPolicy(stallSeconds: analyzer.stallSeconds,
                                     giveUpAfterSeconds: headless ? reconnectTimeout : nil)
        let source = ReconnectingSpectrumSource(deviceName: analyzer.name, tunableRange: analyzer.kind.tunableRange,
                                                policy: policy, factory: analyzer.factory, onFrame: onFrame,
                                                onGap: onGap, onGiveUp: onGiveUp)
        return (source, analyzer)
    }
}
