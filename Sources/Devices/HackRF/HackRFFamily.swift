import Analyzers
import DSP
import Signals
import USBDriver

extension AnalyzerKind {
    /// HackRF One (Great Scott Gadgets): hackrf_sweep's protocol for wide
    /// bands, plain receive mode for a band ≤ 20 MHz; levels in dB full scale.
    public static let hackrf = AnalyzerKind(
        id: "hackrf", model: "HackRF One",
        // no kernel driver binds a HackRF
        usb: USBOpening(ids: [USBID(HackRFProtocol.vendorID, HackRFProtocol.productID)], detachKernelDriver: false),
        powerUnit: .dB, tunableRange: HackRFProtocol.tunableRange,
        realtimeBandwidthHz: HackRFReceiveMode.widestBandHz,
        settings: AnalyzerSettingsDescription(
            takes: [.lnaGain, .vgaGain, .amp, .antennaPower], ownerName: "a HackRF",
            summary: { settings in
                let gains = settings.hackRFGains
                return "LNA \(gains.lnaDB) dB, VGA \(gains.vgaDB) dB, amp \((settings.amplifier ?? false) ? "on" : "off")"
                    + ((settings.antennaPower ?? false) ? ", antenna power on" : "")
            },
            fields: { settings in
                let gains = settings.hackRFGains
                return [("lna_gain_db", "\(gains.lnaDB)"), ("vga_gain_db", "\(gains.vgaDB)"),
                        ("amp", (settings.amplifier ?? false) ? "on" : "off"),
                        ("antenna_power", (settings.antennaPower ?? false) ? "on" : "off")]
            },
            totalGainDB: { settings in
                let gains = settings.hackRFGains
                return Double(gains.lnaDB + gains.vgaDB
                    + ((settings.amplifier ?? false) ? AnalyzerSettings.hackRFAmplifierDB : 0))
            },
            recorded: { settings in
                let gains = settings.hackRFGains
                return "lna=\(gains.lnaDB) vga=\(gains.vgaDB) amp=\((settings.amplifier ?? false) ? 1 : 0)"
                    + ((settings.antennaPower ?? false) ? " antenna_power=1" : "")
            }),
        emulator: { seed, input in HackRFEmulator(scene: input.scene(seed: seed), seed: seed) },
        servedEmulator: { seed, realTime in
            HackRFEmulator(seed: seed, options: .init(pacing: realTime ? .realTime : .unlimited))
        },
        makeSource: { request in
            var settings = request.settings.hackRF(detector: request.detector)
            settings.mode = request.mode
            settings.keepsEveryDetector = request.keepsEveryDetector
            return try HackRFSpectrumSource(transport: request.transport, settings: settings,
                                            onFrame: request.onFrame, onEnd: request.onUSBEnd)
        },
        shortName: "HackRF",
        listing: Listing(name: "HackRF One", path: "native (libusb): hackrf_sweep's protocol", realtimeWords: "receive mode",
                         tested: "firmware emulator; Debian's `hackrf_sweep` and `hackrf_info` over Tools/fakeusb against tscope's output"),
        // as hackrf_sweep and tscope's own HackRF path start: LNA 16 dB, VGA 20 dB, amplifier off
        soapy: SoapyDriver(key: "hackrf", defaultGains: ["LNA": Double(HackRFGains.sweepDefaults.lnaDB),
                                                         "VGA": Double(HackRFGains.sweepDefaults.vgaDB), "AMP": 0]))
}
