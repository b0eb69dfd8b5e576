import Analyzers
import DSP
import Signals
import USBDriver

extension AnalyzerKind {
    /// RTL2832U dongles with an R820T/R828D tuner: rtl_power's hops for wide
    /// bands, one tuning at 2.4 MS/s for a band ≤ 2 MHz; levels in dB full scale.
    public static let rtlsdr = AnalyzerKind(
        id: "rtlsdr", model: "RTL-SDR",
        // the DVB-T kernel driver (dvb_usb_rtl28xxu) binds these ids
        usb: USBOpening(ids: RTLSDRProtocol.knownIDs.map { USBID($0.vendorID, $0.productID) }, detachKernelDriver: true),
        powerUnit: .dB, tunableRange: RTLSDRSpectrumSource.hardwareTunableRange,
        realtimeBandwidthHz: RTLSDRSpectrumSource.realtimeBandwidthHz,
        settings: AnalyzerSettingsDescription(
            takes: [.gain, .ppm, .biasTee], ownerName: "an RTL-SDR", validate: { $0.rtlsdrGainProblem },
            summary: { settings in
                var text = "gain auto"
                if case .manual(let tenths) = settings.tunerGain ?? .automatic { text = "gain \(tenths / 10).\(tenths % 10) dB" }
                if let ppm = settings.frequencyCorrectionPPM, ppm != 0 { text += ", \(ppm) ppm" }
                if let biasTee = settings.biasTee { text += ", bias tee \(biasTee ? "on" : "off")" }
                return text
            },
            fields: rtlsdrFields,
            totalGainDB: { settings in
                if case .manual(let tenths) = settings.tunerGain ?? .automatic { return Double(tenths) / 10 }
                return nil
            },
            recorded: { settings in
                rtlsdrFields(settings).map { "\($0.key == "gain_db" ? "gain" : $0.key)=\($0.value)" }.joined(separator: " ")
            },
            measurementBand: rtlsdrMeasurementBand),
        emulator: { seed, input in
            var options = RTLSDREmulator.Options()
            options.crystalErrorPPM = input.crystalErrorPPM
            return RTLSDREmulator(scene: input.scene(seed: seed), seed: seed, options: options)
        },
        servedEmulator: { seed, realTime in RTLSDREmulator(seed: seed, options: .init(realTime: realTime)) },
        makeSource: { request in
            let settings = request.settings
            var sourceSettings = RTLSDRSpectrumSource.Settings(
                gain: settings.tunerGain ?? .automatic, detector: request.detector,
                frequencyCorrectionPPM: settings.frequencyCorrectionPPM ?? 0,
                biasTee: settings.biasTee ?? false, mode: request.mode)
            sourceSettings.keepsEveryDetector = request.keepsEveryDetector
            return try RTLSDRSpectrumSource(
                device: try RTLSDRDevice.open(transport: request.transport),
                settings: sourceSettings,
                onFrame: request.onFrame, onEnd: { error in if let error { request.onEnd(error) } })
        },
        shortName: "RTL-SDR",
        listing: Listing(name: "RTL-SDR (RTL2832U + R820T/R828D)", path: "native (libusb): rtl_power's hops",
                         tested: "emulator of the RTL2832U and R820T registers; Debian's `rtl_power`, `rtl_sdr` over Tools/fakeusb"),
        soapy: SoapyDriver(key: "rtlsdr", drainsOnReactivation: true))

    @Sendable private static func rtlsdrFields(_ settings: AnalyzerSettings) -> [(key: String, value: String)] {
        var fields: [(key: String, value: String)] = [("gain_db", "auto")]
        if case .manual(let tenths) = settings.tunerGain ?? .automatic { fields = [("gain_db", "\(tenths / 10).\(tenths % 10)")] }
        fields.append(("ppm", "\(settings.frequencyCorrectionPPM ?? 0)"))
        if let biasTee = settings.biasTee { fields.append(("bias_tee", biasTee ? "on" : "off")) }
        return fields
    }

    /// An RTL-SDR hop replaces the bin at its centre (the DC spike) by the
    /// bin above it, as rtl_power does: a tone in either is lost from one or
    /// counted twice (+2.9 dB seen). The band is slid down in small steps,
    /// both edges, until no frequency is within three bins of a hop centre.
    @Sendable private static func rtlsdrMeasurementBand(frequencies: [Double], binWidthHz: Double,
                                                       clipped: @Sendable (Double) -> FrequencyRange) -> FrequencyRange {
        let crop = RTLSDRSpectrumSource.Settings().crop
        for attempt in 0..<24 {
            let band = clipped(Double(attempt) * 0.137e6)
            guard let plan = try? RTLSDRHopPlan(lowerHz: Int(band.lowerHz.rounded()), upperHz: Int(band.upperHz.rounded()),
                                                maxBinHz: max(1, Int(binWidthHz.rounded(.down))), crop: crop) else { continue }
            let clear = frequencies.allSatisfy { frequency in
                (0..<plan.hopCount).allSatisfy { abs(Double(plan.hopCenterHz($0)) - frequency) > 3 * plan.binWidthHz }
            }
            if clear { return band }
        }
        return clipped(0)
    }
}
