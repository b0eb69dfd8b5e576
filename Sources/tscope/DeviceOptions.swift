import ArgumentParser
import Devices
import USBDriver

/// Which analyzer to use.
enum DeviceChoice: String, ExpressibleByArgument, CaseIterable {
    /// the first attached analyzer, else the demo device
    case auto
    /// the built-in demo: emulated HackRF firmware with a synthetic scene
    case demo
    /// a HackRF One on USB
    case hackrf
    /// an RTL2832U + R820T/R828D dongle on USB
    case rtlsdr
    /// the emulated RTL-SDR with the demo scene
    case demoRTLSDR = "demo-rtlsdr"

    /// the choices served by the RTL-SDR path (RTLSDROpening.swift)
    var isRTLSDR: Bool { self == .rtlsdr || self == .demoRTLSDR }
}

struct DeviceOptions: ParsableArguments {
    @Option(name: .long, help: "Analyzer: auto (first attached, else demo), demo, hackrf, rtlsdr, demo-rtlsdr.")
    var device: DeviceChoice = .auto

    @Option(name: [.customLong("serial"), .customShort("d")], help: "Serial number of the HackRF to open.")
    var serial: String?

    @Option(name: .customLong("demo-seed"), help: .hidden)
    var demoSeed: UInt64 = 1
}

/// An opened analyzer: its transport and how to name it on screen.
struct OpenedDevice {
    var transport: USBTransport
    var name: String
    var isDemo: Bool
}

extension DeviceOptions {
    /// Opens the chosen analyzer. `auto` falls back to the demo only when no
    /// HackRF is attached; an attached one that cannot be opened is an error.
    func open(demoPacing: HackRFEmulator.Pacing = .realTime) throws -> OpenedDevice {
        switch device {
        case .demo:
            return demoDevice(pacing: demoPacing)
        case .hackrf:
            return try openHackRF()
        case .rtlsdr, .demoRTLSDR:
            throw CommandError("--device \(device.rawValue) works with `tscope sweep` (rtl_power's options) so far")
        case .auto:
            let attached = try USBEnumerator.devices(matching: [(HackRFProtocol.vendorID, HackRFProtocol.productID)])
            return attached.isEmpty && serial == nil ? demoDevice(pacing: demoPacing) : try openHackRF()
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
