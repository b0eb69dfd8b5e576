import Analyzers
import DSP
import Signals
import USBDriver

extension AnalyzerKind {
    /// tinySA and tinySA Ultra: the unit sweeps and reports dBm itself
    /// (`scanraw` over its USB serial port).
    public static let tinysa = AnalyzerKind(
        id: "tinysa", model: "tinySA", listingModel: "tinySA (or another STM32 serial device)",
        // cdc_acm binds its serial port; the CDC data interface is claimed beside the control one
        usb: USBOpening(ids: [USBID(TinySAProtocol.vendorID, TinySAProtocol.productID)],
                        alsoClaim: [Int32(TinySAProtocol.dataInterface)], detachKernelDriver: true),
        powerUnit: .dBm, tunableRange: FrequencyRange(lowerHz: 100e3, upperHz: TinySAModel.ultra.tunableUpperHz)!,
        realtimeBandwidthHz: nil,
        // a sweep at narrow RBW can take seconds
        stallSeconds: 5,
        settings: AnalyzerSettingsDescription(
            takes: [.rbw, .attenuation], ownerName: "a tinySA",
            summary: { settings in
                var parts: [String] = []
                switch settings.tinySA.rbw {
                case .fixed(let kHz)?: parts.append("RBW \(TinySASettings.text(kHz)) kHz")
                case .automatic?: parts.append("RBW auto")
                case nil: break
                }
                switch settings.tinySA.attenuation {
                case .fixed(let dB)?: parts.append("attenuation \(dB) dB")
                case .automatic?: parts.append("attenuation auto")
                case nil: break
                }
                return parts.joined(separator: ", ")
            },
            fields: { settings in
                var fields: [(key: String, value: String)] = []
                switch settings.tinySA.rbw {
                case .fixed(let kHz)?: fields.append(("rbw_khz", TinySASettings.text(kHz)))
                case .automatic?: fields.append(("rbw_khz", "auto"))
                case nil: break
                }
                switch settings.tinySA.attenuation {
                case .fixed(let dB)?: fields.append(("attenuation_db", "\(dB)"))
                case .automatic?: fields.append(("attenuation_db", "auto"))
                case nil: break
                }
                return fields
            }),
        // the demo scene's keyed transmitters (1030 MHz) and any a test adds, for the unit's zero span
        emulator: { seed, input in
            TinySAEmulator(seed: seed, options: .init(model: .ultra,
                                                      pulses: input.pulses + DemoScene.standard(seed: seed).pulsedCarriers))
        },
        makeSource: { request in
            try TinySASpectrumSource(transport: request.transport, settings: request.settings.tinySA,
                                     onFrame: request.onFrame, onEnd: request.onUSBEnd)
        },
        listing: Listing(name: "tinySA, tinySA Ultra", path: "native (USB serial, `scanraw`)",
                         tested: "firmware emulator of its shell"))
}
