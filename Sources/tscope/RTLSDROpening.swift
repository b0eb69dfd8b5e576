import Devices
import Runs
import USBDriver

/// An opened and initialised RTL-SDR and how to name it.
struct OpenedRTLSDR {
    var device: RTLSDRDevice
    var name: String
    var isDemo: Bool
}

extension DeviceOptions {
    /// Opens the RTL-SDR the options choose: `demo-rtlsdr` hosts the emulator
    /// in-process; `rtlsdr` opens the first attached dongle with a known id
    /// (and `--serial`, if given) through libusb, detaching the DVB kernel driver.
    func openRTLSDR(realTime: Bool = true) throws -> OpenedRTLSDR {
        if device == .demoRTLSDR {
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
