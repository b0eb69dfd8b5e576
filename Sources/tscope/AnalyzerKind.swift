import Devices
import Signals
import USBDriver

/// The analyzers tscope drives: their USB ids, names, and how to open each
/// as a `SpectrumSource` (hardware through libusb, or its emulator).
enum AnalyzerKind: String, CaseIterable {
    case hackrf
    case rtlsdr
    case tinysa
    case rfexplorer

    var model: String {
        switch self {
        case .hackrf: return "HackRF One"
        case .rtlsdr: return "RTL-SDR"
        case .tinysa: return "tinySA"
        case .rfexplorer: return "RF Explorer"
        }
    }

    /// vendor:product ids, from each protocol's own table
    var usbIDs: [(vendorID: UInt16, productID: UInt16)] {
        switch self {
        case .hackrf: return [(HackRFProtocol.vendorID, HackRFProtocol.productID)]
        case .rtlsdr: return RTLSDRProtocol.knownIDs
        case .tinysa: return [(TinySAProtocol.vendorID, TinySAProtocol.productID)]
        case .rfexplorer: return [(CP210xBridge.vendorID, CP210xBridge.productID)]
        }
    }

    init?(_ info: USBDeviceInfo) {
        guard let kind = Self.allCases.first(where: { kind in
            kind.usbIDs.contains { $0.vendorID == info.vendorID && $0.productID == info.productID }
        }) else { return nil }
        self = kind
    }

    /// the unit of its levels: tinySA and RF Explorer report calibrated
    /// power in dBm; HackRF and RTL-SDR levels are relative (dB full scale)
    var powerUnit: String {
        switch self {
        case .tinysa, .rfexplorer: return "dBm"
        case .hackrf, .rtlsdr: return "dB"
        }
    }

    /// the widest the kind can tune [Hz] (a connected device may say less)
    var tunableRange: FrequencyRange {
        switch self {
        case .hackrf: return FrequencyRange(lowerHz: 0, upperHz: 6_000e6)!
        case .rtlsdr: return RTLSDRSpectrumSource.hardwareTunableRange
        case .tinysa: return FrequencyRange(lowerHz: 100e3, upperHz: TinySAModel.ultra.tunableUpperHz)!
        case .rfexplorer: return FrequencyRange(lowerHz: 15e6, upperHz: 2_700e6)!
        }
    }

    /// Opens the hardware through libusb each time it is called.
    /// - Parameter hackRF: gains and amplifier when the kind is a HackRF
    func hardwareFactory(serial: String?, hackRF: HackRFSpectrumSource.Settings = .init()) -> SpectrumSourceFactory {
        let kind = self
        return { onFrame, onEnd in
            var transport: LibUSBTransport?
            // "not found" only if no id of the kind is attached
            var failure = USBError.notFound(device: serial.map { "\(kind.model) with serial \($0)" } ?? kind.model)
            for id in kind.usbIDs where transport == nil {
                do {
                    // tinySA (cdc_acm) and RF Explorer (cp210x) have kernel
                    // serial drivers bound: detach them; so does RTL-SDR's DVB driver
                    // the tinySA's CDC data interface (1) carries the bulk endpoints
                    transport = try LibUSBTransport.open(vendorID: id.vendorID, productID: id.productID, serial: serial,
                                                         alsoClaim: kind == .tinysa ? [Int32(TinySAProtocol.dataInterface)] : [],
                                                         detachKernelDriver: kind != .hackrf, deviceName: kind.model)
                } catch let error as USBError {
                    if case .notFound = error { continue }
                    failure = error
                }
            }
            guard let transport else { throw failure }
            do {
                let source = try kind.makeSource(transport: transport, hackRF: hackRF, onFrame: onFrame, onEnd: onEnd)
                return ConnectedSpectrumSource(source: source, close: { transport.close() })
            } catch {
                transport.close()
                throw error
            }
        }
    }

    /// Opens a fresh emulator of the kind each time it is called.
    func demoFactory(seed: UInt64, hackRF: HackRFSpectrumSource.Settings = .init()) -> SpectrumSourceFactory {
        let kind = self
        return { onFrame, onEnd in
            let emulator: FirmwareEmulator
            switch kind {
            case .hackrf: emulator = HackRFEmulator(seed: seed)
            case .tinysa: emulator = TinySAEmulator(seed: seed, options: .init(model: .ultra))
            case .rfexplorer: emulator = RFExplorerEmulator(seed: seed)
            case .rtlsdr: emulator = RTLSDREmulator(seed: seed)
            }
            let transport = EmulatedTransport(emulator: emulator)
            let source = try kind.makeSource(transport: transport, hackRF: hackRF, onFrame: onFrame, onEnd: onEnd)
            return ConnectedSpectrumSource(source: source, close: { transport.close() })
        }
    }

    /// The kind's live source on an opened transport.
    func makeSource(transport: USBTransport, hackRF: HackRFSpectrumSource.Settings,
                    onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
                    onEnd: @escaping @Sendable (any Error) -> Void) throws -> any SpectrumSource {
        let ended: @Sendable (USBError?) -> Void = { error in if let error { onEnd(error) } }
        switch self {
        case .hackrf:
            return try HackRFSpectrumSource(transport: transport, settings: hackRF, onFrame: onFrame, onEnd: ended)
        case .tinysa: return try TinySASpectrumSource(transport: transport, onFrame: onFrame, onEnd: ended)
        case .rfexplorer: return try RFExplorerSpectrumSource(transport: transport, onFrame: onFrame, onEnd: ended)
        case .rtlsdr:
            // the detector asked for applies to the RTL-SDR's hop FFTs too
            return try RTLSDRSpectrumSource(device: try RTLSDRDevice.open(transport: transport),
                                            settings: .init(detector: hackRF.detector), onFrame: onFrame,
                                            onEnd: { error in if let error { onEnd(error) } })
        }
    }
}
