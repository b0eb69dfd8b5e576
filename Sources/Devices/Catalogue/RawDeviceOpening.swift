import Analyzers
import USBDriver

/// An opened HackRF One for the commands that drive its protocol themselves
/// (hackrf_sweep's sweep, raw I/Q): its transport and how to name it on screen.
public struct OpenedHackRF {
    public var transport: USBTransport
    public var name: String
    public var isDemo: Bool
}

/// An opened and initialised RTL-SDR for the commands that drive it
/// themselves (rtl_power's hops, raw I/Q), and how to name it.
public struct OpenedRTLSDR {
    public var device: RTLSDRDevice
    public var name: String
    public var isDemo: Bool
}

/// Opening the device itself rather than a `SpectrumSource`: the demo's
/// emulator in-process, or attached hardware through the catalogue's one
/// open path (`AnalyzerKind.openTransport`).
extension DeviceChoice {
    /// Opens a HackRF; nil when this choice names another family. `auto`
    /// falls back to the demo only when no HackRF is attached and no serial
    /// is asked for; an attached one that cannot be opened is an error.
    public func openHackRF(serial: String?, demoSeed: UInt64, pacing: HackRFEmulator.Pacing) throws -> OpenedHackRF? {
        func demo() -> OpenedHackRF {
            let emulator = HackRFEmulator(seed: demoSeed, options: .init(pacing: pacing))
            return OpenedHackRF(transport: EmulatedTransport(emulator: emulator), name: "HackRF One", isDemo: true)
        }
        func attached() throws -> OpenedHackRF {
            let transport = try AnalyzerKind.hackrf.openTransport(serial: serial)
            let serialText = transport.deviceInfo.serialNumber.map { " \($0.suffix(8))" } ?? ""
            return OpenedHackRF(transport: transport, name: "HackRF One\(serialText)", isDemo: false)
        }
        switch target {
        case .emulated(.hackrf):
            return demo()
        case .hardware(.hackrf):
            return try attached()
        case .auto:
            let found = try USBEnumerator.devices(matching: AnalyzerKind.hackrf.usbIDs)
            return found.isEmpty && serial == nil ? demo() : try attached()
        default:
            return nil
        }
    }

    /// Opens an RTL-SDR: `demo-rtlsdr` hosts the emulator in-process; any
    /// other choice opens the first attached dongle with a known id (and the
    /// serial, if given) through libusb, detaching the DVB kernel driver.
    public func openRTLSDR(serial: String?, demoSeed: UInt64, realTime: Bool) throws -> OpenedRTLSDR {
        if self == .emulated(.rtlsdr) {
            let emulator = RTLSDREmulator(seed: demoSeed, options: .init(realTime: realTime))
            return OpenedRTLSDR(device: try RTLSDRDevice.open(transport: EmulatedTransport(emulator: emulator)),
                                name: "RTL-SDR (demo)", isDemo: true)
        }
        let transport = try AnalyzerKind.rtlsdr.openTransport(serial: serial)
        do {
            let device = try RTLSDRDevice.open(transport: transport)
            let serialText = transport.deviceInfo.serialNumber.map { " \($0)" } ?? ""
            return OpenedRTLSDR(device: device, name: "RTL-SDR\(serialText)", isDemo: false)
        } catch {
            transport.close()
            throw error
        }
    }
}
