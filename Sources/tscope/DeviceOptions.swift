import ArgumentParser
import Devices
import Signals
import USBDriver

/// Which analyzer to use.
enum DeviceChoice: String, ExpressibleByArgument, CaseIterable {
    /// the first attached analyzer of any kind, else the demo device
    case auto
    /// the built-in demo: emulated HackRF firmware with a synthetic scene
    case demo
    case demoHackRF = "demo-hackrf"
    case demoRTLSDR = "demo-rtlsdr"
    case demoTinySA = "demo-tinysa"
    case demoRFExplorer = "demo-rfexplorer"
    case hackrf
    case rtlsdr
    case tinysa
    case rfexplorer

    /// the analyzer kind a fixed choice names; nil for auto
    var kind: AnalyzerKind? {
        switch self {
        case .auto: return nil
        case .demo, .demoHackRF, .hackrf: return .hackrf
        case .demoRTLSDR, .rtlsdr: return .rtlsdr
        case .demoTinySA, .tinysa: return .tinysa
        case .demoRFExplorer, .rfexplorer: return .rfexplorer
        }
    }

    var isDemo: Bool { rawValue.hasPrefix("demo") }

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
            let attached = try USBEnumerator.devices(matching: [AnalyzerKind.hackrf.usbIDs[0]])
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
        let transport = try LibUSBTransport.open(vendorID: HackRFProtocol.vendorID, productID: HackRFProtocol.productID,
                                                 serial: serial, deviceName: "HackRF One")
        let serialText = transport.deviceInfo.serialNumber.map { " \($0.suffix(8))" } ?? ""
        return OpenedDevice(transport: transport, name: "HackRF One\(serialText)", isDemo: false)
    }
}

/// The analyzer `--device` chose, ready to be opened (and reopened after a
/// loss) as a `SpectrumSource`.
struct SelectedAnalyzer {
    var kind: AnalyzerKind
    var isDemo: Bool
    /// "tinySA", "RF Explorer 1234" — for the status line and messages
    var name: String
    var factory: SpectrumSourceFactory
    /// the USB serial number of the analyzer chosen (nil for the demo devices), for capture metadata
    var serial: String? = nil

    /// how long without a frame means the device stalled [s]: a tinySA sweep
    /// at narrow RBW can take seconds; the others deliver many frames a second
    var stallSeconds: Double { kind == .tinysa ? 5 : 1 }
}

extension DeviceOptions {
    /// Resolves `--device` (and `--serial`): `auto` takes the first attached
    /// analyzer of any kind, else the demo HackRF.
    /// - Parameter hackRF: gains and amplifier when the analyzer is a HackRF
    func selectAnalyzer(hackRF: HackRFSpectrumSource.Settings = .init()) throws -> SelectedAnalyzer {
        if device.isDemo, let kind = device.kind {
            return SelectedAnalyzer(kind: kind, isDemo: true, name: kind.model,
                                    factory: kind.demoFactory(seed: demoSeed, hackRF: hackRF))
        }
        let kind: AnalyzerKind
        var found: USBDeviceInfo?
        if let fixed = device.kind {
            kind = fixed
            found = try? USBEnumerator.devices(matching: fixed.usbIDs).first { serial == nil || $0.serialNumber == serial }
        } else {
            let attached = try USBEnumerator.devices(matching: AnalyzerKind.allCases.flatMap(\.usbIDs))
                .filter { serial == nil || $0.serialNumber == serial }
            guard let first = attached.first, let firstKind = AnalyzerKind(first) else {
                if let serial { throw CommandError("no analyzer with serial \(serial) found: see `tscope devices`") }
                return SelectedAnalyzer(kind: .hackrf, isDemo: true, name: AnalyzerKind.hackrf.model,
                                        factory: AnalyzerKind.hackrf.demoFactory(seed: demoSeed, hackRF: hackRF))
            }
            kind = firstKind
            found = first
        }
        let serialSuffix = serial.map { " \($0.suffix(8))" } ?? ""
        return SelectedAnalyzer(kind: kind, isDemo: false, name: kind.model + serialSuffix,
                                factory: kind.hardwareFactory(serial: serial, hackRF: hackRF),
                                serial: serial ?? found?.serialNumber)
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
