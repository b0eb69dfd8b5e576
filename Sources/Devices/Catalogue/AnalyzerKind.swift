import DSP
import Signals
import USBDriver

/// The catalogue of analyzers tscope drives: per kind its USB ids (from its
/// protocol file), name, tunable range, level unit and stall timeout, and
/// the one way each is opened — hardware through libusb (`openTransport`),
/// or its firmware emulator — as a `SpectrumSource`. `tscope devices`,
/// `--device auto` and every command read it from here.
public enum AnalyzerKind: String, CaseIterable, Sendable {
    case hackrf
    case rtlsdr
    case tinysa
    case rfexplorer

    public var model: String {
        switch self {
        case .hackrf: return "HackRF One"
        case .rtlsdr: return "RTL-SDR"
        case .tinysa: return "tinySA"
        case .rfexplorer: return "RF Explorer"
        }
    }

    /// vendor:product ids, from each protocol's own table
    public var usbIDs: [(vendorID: UInt16, productID: UInt16)] {
        switch self {
        case .hackrf: return [(HackRFProtocol.vendorID, HackRFProtocol.productID)]
        case .rtlsdr: return RTLSDRProtocol.knownIDs
        case .tinysa: return [(TinySAProtocol.vendorID, TinySAProtocol.productID)]
        case .rfexplorer: return [(CP210xBridge.vendorID, CP210xBridge.productID)]
        }
    }

    /// every id of every kind, for enumeration
    public static var allUSBIDs: [(vendorID: UInt16, productID: UInt16)] { allCases.flatMap(\.usbIDs) }

    /// The kind an enumerated device is, by its ids; nil for none of ours.
    public init?(_ info: USBDeviceInfo) {
        guard let kind = Self.allCases.first(where: { kind in
            kind.usbIDs.contains { $0.vendorID == info.vendorID && $0.productID == info.productID }
        }) else { return nil }
        self = kind
    }

    /// the unit of its levels: tinySA and RF Explorer report calibrated
    /// power in dBm; HackRF and RTL-SDR levels are relative (dB full scale)
    public var powerUnit: String {
        switch self {
        case .tinysa, .rfexplorer: return "dBm"
        case .hackrf, .rtlsdr: return "dB"
        }
    }

    /// the widest the kind can tune [Hz] (a connected device may say less)
    public var tunableRange: FrequencyRange {
        switch self {
        case .hackrf: return HackRFProtocol.tunableRange
        case .rtlsdr: return RTLSDRSpectrumSource.hardwareTunableRange
        case .tinysa: return FrequencyRange(lowerHz: 100e3, upperHz: TinySAModel.ultra.tunableUpperHz)!
        case .rfexplorer: return FrequencyRange(lowerHz: 15e6, upperHz: 2_700e6)!
        }
    }

    /// what any analyzer here can tune [Hz]: options are checked against
    /// it before a device is chosen, then against the device's own range
    public static var anyTunableRange: FrequencyRange {
        allCases.map(\.tunableRange).reduce(HackRFProtocol.tunableRange) { wide, range in
            FrequencyRange(lowerHz: min(wide.lowerHz, range.lowerHz), upperHz: max(wide.upperHz, range.upperHz)) ?? wide
        }
    }

    /// the widest band the kind streams at one tuning for real-time mode
    /// [Hz]; nil for analyzers that compute their spectra themselves
    public var realtimeBandwidthHz: Double? {
        switch self {
        case .hackrf: return HackRFReceiveMode.widestBandHz
        case .rtlsdr: return RTLSDRSpectrumSource.realtimeBandwidthHz
        case .tinysa, .rfexplorer: return nil
        }
    }

    /// Why `--mode realtime` cannot watch a band `widthHz` wide on this kind; nil when it can.
    public func realtimeProblem(widthHz: Double) -> String? {
        guard let limit = realtimeBandwidthHz else {
            return "--mode realtime: the \(model) computes its spectra itself and only sweeps (use --mode sweep or auto)"
        }
        guard widthHz > limit * (1 + 1e-9) else { return nil }
        return "--mode realtime: the band is \(FrequencyFormat.label(widthHz)) wide; the \(model) streams at most "
            + "\(FrequencyFormat.label(limit)) at once (narrow the band, or use --mode sweep)"
    }

    /// how long without a frame means the device stalled [s]: a tinySA sweep
    /// at narrow RBW can take seconds; the others deliver many frames a second
    public var stallSeconds: Double { self == .tinysa ? 5 : 1 }

    /// Opens an attached analyzer of this kind through libusb (the first
    /// with a matching id, and `serial` if given): kernel drivers detached
    /// where one binds (the tinySA's cdc_acm, RF Explorer's cp210x,
    /// RTL-SDR's DVB driver), the tinySA's CDC data interface claimed too.
    /// `.notFound` only if no id of the kind is attached.
    public func openTransport(serial: String?) throws(USBError) -> LibUSBTransport {
        var failure = USBError.notFound(device: serial.map { "\(model) with serial \($0)" } ?? model)
        for id in usbIDs {
            do throws(USBError) {
                return try LibUSBTransport.open(vendorID: id.vendorID, productID: id.productID, serial: serial,
                                                alsoClaim: self == .tinysa ? [Int32(TinySAProtocol.dataInterface)] : [],
                                                detachKernelDriver: self != .hackrf, deviceName: model)
            } catch .notFound {
                continue
            } catch {
                if case .notFound = failure { failure = error }
            }
        }
        throw failure
    }

    /// Opens the hardware through libusb each time it is called, with `settings` and `detector`
    /// (the detector applies to HackRF dwells and RTL-SDR hops).
    public func hardwareFactory(serial: String?, settings: AnalyzerSettings = .init(),
                                detector: SpectrumDetector = .peak, mode: AnalysisMode = .auto) -> SpectrumSourceFactory {
        let kind = self
        return { onFrame, onEnd in
            let transport = try kind.openTransport(serial: serial)
            do {
                let source = try kind.makeSource(transport: transport, settings: settings, detector: detector,
                                                 mode: mode, onFrame: onFrame, onEnd: onEnd)
                return ConnectedSpectrumSource(source: source, close: { transport.close() })
            } catch {
                transport.close()
                throw error
            }
        }
    }

    /// A fresh firmware emulator of the kind; `input` can replace the demo
    /// scene by a signal generator's tones (HackRF and RTL-SDR) and put the
    /// RTL-SDR's crystal off nominal.
    public func emulator(seed: UInt64, input: DemoInput = .init()) -> FirmwareEmulator {
        let scene = input.scene(seed: seed)
        switch self {
        case .hackrf: return HackRFEmulator(scene: scene, seed: seed)
        case .tinysa: return TinySAEmulator(seed: seed, options: .init(model: .ultra))
        case .rfexplorer: return RFExplorerEmulator(seed: seed)
        case .rtlsdr:
            var options = RTLSDREmulator.Options()
            options.crystalErrorPPM = input.crystalErrorPPM
            return RTLSDREmulator(scene: scene, seed: seed, options: options)
        }
    }

    /// Opens a fresh emulator of the kind each time it is called.
    public func demoFactory(seed: UInt64, settings: AnalyzerSettings = .init(), detector: SpectrumDetector = .peak,
                            mode: AnalysisMode = .auto, input: DemoInput = .init()) -> SpectrumSourceFactory {
        let kind = self
        return { onFrame, onEnd in
            let transport = EmulatedTransport(emulator: kind.emulator(seed: seed, input: input))
            let source = try kind.makeSource(transport: transport, settings: settings, detector: detector,
                                             mode: mode, onFrame: onFrame, onEnd: onEnd)
            return ConnectedSpectrumSource(source: source, close: { transport.close() })
        }
    }

    /// The kind's live source on an opened transport.
    public func makeSource(transport: USBTransport, settings: AnalyzerSettings, detector: SpectrumDetector,
                           mode: AnalysisMode = .auto, onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
                           onEnd: @escaping @Sendable (any Error) -> Void) throws -> any SpectrumSource {
        let ended: @Sendable (USBError?) -> Void = { error in if let error { onEnd(error) } }
        switch self {
        case .hackrf:
            var hackRF = settings.hackRF(detector: detector)
            hackRF.mode = mode
            return try HackRFSpectrumSource(transport: transport, settings: hackRF,
                                            onFrame: onFrame, onEnd: ended)
        case .tinysa:
            return try TinySASpectrumSource(transport: transport, settings: settings.tinySA, onFrame: onFrame, onEnd: ended)
        case .rfexplorer: return try RFExplorerSpectrumSource(transport: transport, onFrame: onFrame, onEnd: ended)
        case .rtlsdr:
            return try RTLSDRSpectrumSource(device: try RTLSDRDevice.open(transport: transport),
                                            settings: .init(gain: settings.tunerGain ?? .automatic, detector: detector,
                                                            frequencyCorrectionPPM: settings.frequencyCorrectionPPM ?? 0,
                                                            biasTee: settings.biasTee ?? false, mode: mode),
                                            onFrame: onFrame, onEnd: { error in if let error { onEnd(error) } })
        }
    }
}

extension AnalyzerKind {
    /// A band holding `frequencies` with `margin` [Hz] on each side, within
    /// `limits`, placed so that none of them falls where the kind's plan
    /// cannot measure a tone. An RTL-SDR hop replaces the bin at its centre
    /// (the DC spike) by the bin above it, as rtl_power does: a tone in
    /// either is lost from one or counted twice (+2.9 dB seen). The band is
    /// slid down in small steps, both edges, until no frequency is within
    /// three bins of a hop centre. Other kinds: the plain band.
    public func measurementBand(holding frequencies: [Double], margin: Double, binWidthHz: Double,
                                limits: FrequencyRange) -> FrequencyRange {
        let low = (frequencies.min() ?? limits.lowerHz) - margin
        let high = (frequencies.max() ?? limits.upperHz) + margin
        func clipped(_ shift: Double) -> FrequencyRange {
            let lower = max(limits.lowerHz, low - shift)
            return FrequencyRange(lowerHz: lower, upperHz: min(limits.upperHz, max(high - shift, lower + margin))) ?? limits
        }
        guard self == .rtlsdr else { return clipped(0) }
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
