import Analyzers
import DSP
import Signals
import USBDriver

/// One analyzer family as tscope drives it: its name, tunable range, level
/// unit, the settings it takes, how each is summarised, its firmware
/// emulator and the one way it is opened. Each family describes itself in
/// its own folder (`HackRF/HackRFFamily.swift` …); `AnalyzerKind.allCases`
/// is the one list of them. `tscope devices`, `--device`, `emulate`, the
/// status line, recordings and `meter --json` read everything from here, so
/// a new family is its folder plus one entry in that list.
///
/// A SoapySDR device is a kind made at selection time from what SoapySDR
/// reports of it (`SoapyFamily`), not a member of the USB list.
public struct AnalyzerKind: Sendable, Hashable, CustomStringConvertible {
    /// the `--device` name ("hackrf"), also `demo-ID` for its emulator
    public let id: String
    /// "HackRF One"
    public let model: String
    /// what `tscope devices` calls an attached device of the family (a bridge chip's ids can be another device's)
    public let listingModel: String
    /// how libusb finds and opens it; nil for devices opened another way (SoapySDR)
    public let usb: USBOpening?
    /// the unit of its levels: dBm for analyzers that report calibrated power, dB (full scale) otherwise
    public let powerUnit: PowerUnit
    /// the widest the family can tune [Hz] (a connected device may say less)
    public let tunableRange: FrequencyRange
    /// the widest band streamed at one tuning for real-time mode [Hz]; nil for analyzers that compute
    /// their spectra themselves
    public let realtimeBandwidthHz: Double?

    /// tscope turns the analyzer's samples into levels itself, so `--detector`
    /// chooses how (HackRF, RTL-SDR, SoapySDR devices: they stream I/Q); a
    /// swept analyzer that sends finished levels (tinySA, RF Explorer) detects
    /// by itself and the option changes nothing
    public var detectsFromSamples: Bool { realtimeBandwidthHz != nil }
    /// how long without a frame means the device stalled [s]
    public let stallSeconds: Double
    /// what the family takes and how its settings read back
    public let settingsDescription: AnalyzerSettingsDescription
    /// a fresh firmware emulator for the demo devices (`demo-ID`): scene seed and input
    public let emulator: (@Sendable (UInt64, DemoInput) -> FirmwareEmulator)?
    /// an emulator `tscope emulate` serves to Tools/fakeusb: seed, real-time pacing
    public let servedEmulator: (@Sendable (UInt64, Bool) -> FirmwareEmulator)?
    /// the family's live source on an opened transport
    public let makeSource: @Sendable (SourceRequest) throws -> any SpectrumSource
    /// how the hardware is opened each time a source is (re)started; default: `usb` then `makeSource`
    let openHardware: (@Sendable (_ serial: String?, _ request: SourceSettings) -> SpectrumSourceFactory)?
    /// what help and messages call it in a list ("HackRF" in "HackRF ≤ 20 MHz, RTL-SDR ≤ 2 MHz")
    public let shortName: String
    /// its row in the devices tables of README.md and Docs/devices-and-calibration.md (`devicesTableRow`);
    /// nil for a kind that is not listed (a SoapySDR device, an unknown one)
    public let listing: Listing?
    /// SoapySDR's module for the same radio, where there is one (`--device soapy:driver=…`)
    public let soapy: SoapyDriver?

    /// What the devices tables say of a family.
    public struct Listing: Sendable {
        /// the Analyzer column: "RTL-SDR (RTL2832U + R820T/R828D)"
        public var name: String
        /// how tscope reaches it: "native (libusb): rtl_power's hops" (the real-time limit is added from the kind)
        public var path: String
        /// what the real-time limit is of, in the path: "one tuning" (… ≤ 2 MHz)
        public var realtimeWords: String
        /// how it is tested here without the hardware
        public var tested: String

        public init(name: String, path: String, realtimeWords: String = "one tuning", tested: String) {
            self.name = name
            self.path = path
            self.realtimeWords = realtimeWords
            self.tested = tested
        }
    }

    /// SoapySDR's driver for a radio tscope also drives natively: `tscope devices` lists such a device once,
    /// native first, `--device auto` prefers the native path, and the SoapySDR path starts with the same gains.
    public struct SoapyDriver: Sendable {
        /// SoapySDR's `driver=` key ("hackrf", "rtlsdr")
        public var key: String
        /// gain elements set explicitly when opened through SoapySDR, so both paths start alike (SoapySDR
        /// modules do not all send their defaults to the device) [dB, or 0/1 for a switch]
        public var defaultGains: [String: Double]
        /// the module hands over samples queued before a stream was deactivated when it is activated again, so
        /// a retune drains them (SoapyRTLSDR's ring buffer)
        public var drainsOnReactivation: Bool

        public init(key: String, defaultGains: [String: Double] = [:], drainsOnReactivation: Bool = false) {
            self.key = key
            self.defaultGains = defaultGains
            self.drainsOnReactivation = drainsOnReactivation
        }
    }

    /// How libusb finds and claims a family's device.
    public struct USBOpening: Sendable {
        /// vendor:product ids, from the family's protocol table
        public var ids: [USBID]
        /// interfaces claimed besides 0 (the tinySA's CDC data interface)
        public var alsoClaim: [Int32]
        /// detach a kernel driver bound to it (cdc_acm, cp210x, the DVB driver)
        public var detachKernelDriver: Bool

        public init(ids: [USBID], alsoClaim: [Int32] = [], detachKernelDriver: Bool) {
            self.ids = ids
            self.alsoClaim = alsoClaim
            self.detachKernelDriver = detachKernelDriver
        }
    }

    public struct USBID: Sendable, Equatable {
        public var vendorID: UInt16
        public var productID: UInt16
        public init(_ vendorID: UInt16, _ productID: UInt16) {
            self.vendorID = vendorID
            self.productID = productID
        }
    }

    /// What a source is made with: the settings given, the detector and mode.
    public struct SourceSettings: Sendable {
        public var settings: AnalyzerSettings
        public var detector: SpectrumDetector
        public var mode: AnalysisMode
        /// frames also carry every other detector's levels (where the family can: HackRF)
        public var keepsEveryDetector: Bool

        public init(settings: AnalyzerSettings = .init(), detector: SpectrumDetector = .peak, mode: AnalysisMode = .auto,
                    keepsEveryDetector: Bool = false) {
            self.settings = settings
            self.detector = detector
            self.mode = mode
            self.keepsEveryDetector = keepsEveryDetector
        }
    }

    /// An opened transport and what the source is made with.
    public struct SourceRequest: Sendable {
        public var transport: any USBTransport
        public var settings: AnalyzerSettings
        public var detector: SpectrumDetector
        public var mode: AnalysisMode
        /// frames also carry every other detector's levels (`SpectrumFrame.everyDetector`), where the family can
        public var keepsEveryDetector = false
        public var onFrame: @Sendable (SpectrumFrame) -> Void
        public var onEnd: @Sendable (any Error) -> Void
        /// `onEnd` for sources that report an optional USB error
        public var onUSBEnd: @Sendable (USBError?) -> Void {
            let onEnd = self.onEnd
            return { error in if let error { onEnd(error) } }
        }
    }

    public init(id: String, model: String, listingModel: String? = nil, usb: USBOpening?, powerUnit: PowerUnit,
                tunableRange: FrequencyRange, realtimeBandwidthHz: Double?, stallSeconds: Double = 1,
                settings: AnalyzerSettingsDescription,
                emulator: (@Sendable (UInt64, DemoInput) -> FirmwareEmulator)?,
                servedEmulator: (@Sendable (UInt64, Bool) -> FirmwareEmulator)? = nil,
                makeSource: @escaping @Sendable (SourceRequest) throws -> any SpectrumSource,
                openHardware: (@Sendable (String?, SourceSettings) -> SpectrumSourceFactory)? = nil,
                shortName: String? = nil, listing: Listing? = nil, soapy: SoapyDriver? = nil) {
        self.id = id
        self.model = model
        self.listingModel = listingModel ?? model
        self.usb = usb
        self.powerUnit = powerUnit
        self.tunableRange = tunableRange
        self.realtimeBandwidthHz = realtimeBandwidthHz
        self.stallSeconds = stallSeconds
        settingsDescription = settings
        self.emulator = emulator
        self.servedEmulator = servedEmulator
        self.makeSource = makeSource
        self.openHardware = openHardware
        self.shortName = shortName ?? model
        self.listing = listing
        self.soapy = soapy
    }

    public static func == (a: AnalyzerKind, b: AnalyzerKind) -> Bool { a.id == b.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public var description: String { id }
    /// the `--device` name (as the enum this replaced spelt it)
    public var rawValue: String { id }

    /// The family named `id` in the catalogue (`catalogue`: the built-in list unless a test adds to it).
    public init?(rawValue id: String, in catalogue: [AnalyzerKind] = AnalyzerKind.allCases) {
        // a SoapySDR device (a remote sensor's): its settings are checked where the device is
        if id == AnalyzerKind.soapy.id { self = .soapy; return }
        guard let kind = catalogue.first(where: { $0.id == id }) else { return nil }
        self = kind
    }

    /// vendor:product ids
    public var usbIDs: [(vendorID: UInt16, productID: UInt16)] {
        (usb?.ids ?? []).map { ($0.vendorID, $0.productID) }
    }

    /// every id of every family, for enumeration
    public static var allUSBIDs: [(vendorID: UInt16, productID: UInt16)] { allCases.flatMap(\.usbIDs) }

    /// The family an enumerated device is, by its ids; nil for none of ours.
    public init?(_ info: USBDeviceInfo) {
        guard let kind = Self.allCases.first(where: { kind in
            kind.usbIDs.contains { $0.vendorID == info.vendorID && $0.productID == info.productID }
        }) else { return nil }
        self = kind
    }

    /// what any analyzer here can tune [Hz]: options are checked against
    /// it before a device is chosen, then against the device's own range
    public static var anyTunableRange: FrequencyRange {
        allCases.map(\.tunableRange).reduce(allCases[0].tunableRange) { wide, range in
            FrequencyRange(lowerHz: min(wide.lowerHz, range.lowerHz), upperHz: max(wide.upperHz, range.upperHz)) ?? wide
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

    /// Opens an attached analyzer of this kind through libusb (the first
    /// with a matching id, and `serial` if given): kernel drivers detached
    /// where the family says one binds, extra interfaces claimed.
    /// `.notFound` only if no id of the kind is attached.
    public func openTransport(serial: String?) throws(USBError) -> LibUSBTransport {
        var failure = USBError.notFound(device: serial.map { "\(model) with serial \($0)" } ?? model)
        guard let usb else { throw failure }
        for id in usb.ids {
            do throws(USBError) {
                return try LibUSBTransport.open(vendorID: id.vendorID, productID: id.productID, serial: serial,
                                                alsoClaim: usb.alsoClaim, detachKernelDriver: usb.detachKernelDriver,
                                                deviceName: model)
            } catch .notFound {
                continue
            } catch {
                if case .notFound = failure { failure = error }
            }
        }
        throw failure
    }

    /// Opens the hardware each time it is called, with `settings` and `detector`.
    public func hardwareFactory(serial: String?, settings: AnalyzerSettings = .init(),
                                detector: SpectrumDetector = .peak, mode: AnalysisMode = .auto,
                                keepingEveryDetector: Bool = false) -> SpectrumSourceFactory {
        let request = SourceSettings(settings: settings, detector: detector, mode: mode,
                                     keepsEveryDetector: keepingEveryDetector)
        if let openHardware { return openHardware(serial, request) }
        let kind = self
        return { onFrame, onEnd in
            let transport = try kind.openTransport(serial: serial)
            do {
                let source = try kind.makeSource(SourceRequest(transport: transport, settings: settings,
                                                               detector: detector, mode: mode,
                                                               keepsEveryDetector: keepingEveryDetector,
                                                               onFrame: onFrame, onEnd: onEnd))
                return ConnectedSpectrumSource(source: source, close: { transport.close() })
            } catch {
                transport.close()
                throw error
            }
        }
    }

    /// Opens a fresh emulator of the kind each time it is called.
    public func demoFactory(seed: UInt64, settings: AnalyzerSettings = .init(), detector: SpectrumDetector = .peak,
                            mode: AnalysisMode = .auto, input: DemoInput = .init(),
                            keepingEveryDetector: Bool = false) -> SpectrumSourceFactory {
        let kind = self
        return { onFrame, onEnd in
            guard let emulator = kind.emulator else {
                throw USBError.notFound(device: "an emulated \(kind.model) (there is none)")
            }
            let transport = EmulatedTransport(emulator: emulator(seed, input))
            let source = try kind.makeSource(SourceRequest(transport: transport, settings: settings, detector: detector,
                                                           mode: mode, keepsEveryDetector: keepingEveryDetector,
                                                           onFrame: onFrame, onEnd: onEnd))
            return ConnectedSpectrumSource(source: source, close: { transport.close() })
        }
    }

    /// The kind's live source on an opened transport.
    public func makeSource(transport: USBTransport, settings: AnalyzerSettings, detector: SpectrumDetector,
                           mode: AnalysisMode = .auto, onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
                           onEnd: @escaping @Sendable (any Error) -> Void) throws -> any SpectrumSource {
        try makeSource(SourceRequest(transport: transport, settings: settings, detector: detector, mode: mode,
                                     onFrame: onFrame, onEnd: onEnd))
    }

    /// A fresh firmware emulator of the kind (the demo scene, or `input`'s generator tones).
    public func emulator(seed: UInt64, input: DemoInput = .init()) -> FirmwareEmulator? {
        emulator?(seed, input)
    }

    /// A band holding `frequencies` with `margin` [Hz] on each side, within
    /// `limits`, placed where the kind's plan can measure a tone (the family's
    /// `measurementBand` rule; the plain band by default).
    public func measurementBand(holding frequencies: [Double], margin: Double, binWidthHz: Double,
                                limits: FrequencyRange) -> FrequencyRange {
        let low = (frequencies.min() ?? limits.lowerHz) - margin
        let high = (frequencies.max() ?? limits.upperHz) + margin
        let clipped: @Sendable (Double) -> FrequencyRange = { shift in
            let lower = max(limits.lowerHz, low - shift)
            return FrequencyRange(lowerHz: lower, upperHz: min(limits.upperHz, max(high - shift, lower + margin))) ?? limits
        }
        return settingsDescription.measurementBand?(frequencies, binWidthHz, clipped) ?? clipped(0)
    }
}

/// The settings a family takes and how they read back (status line,
/// recordings, `meter --json`, calibration's gain).
public struct AnalyzerSettingsDescription: Sendable {
    /// the settings it takes
    public var settings: [AnalyzerSetting]
    /// the options it takes ("--lna-gain", …), for messages
    public var options: [String] { settings.map(\.option) }
    /// "a HackRF": how messages name the owner of these options
    public var ownerName: String
    /// "LNA 16 dB, VGA 20 dB, amp off"; "" for none
    public var summary: @Sendable (AnalyzerSettings) -> String
    /// the same as key/value pairs ("lna_gain_db" → "16")
    public var fields: @Sendable (AnalyzerSettings) -> [(key: String, value: String)]
    /// the total gain at these settings [dB]; nil where not fixed (automatic gain)
    public var totalGainDB: @Sendable (AnalyzerSettings) -> Double?
    /// what a recording's `gains` field holds of them ("lna=16 vga=20 amp=0"); nil for nothing
    public var recorded: @Sendable (AnalyzerSettings) -> String?
    /// where a band must lie for the family's plan to measure tones in it: frequencies, bin width,
    /// and the band clipped to the limits shifted down by a number of Hz
    public var measurementBand: (@Sendable ([Double], Double, @Sendable (Double) -> FrequencyRange) -> FrequencyRange)?
    /// why these settings' values do not suit the family (the options fit, a value does not); nil when they do
    public var validate: @Sendable (AnalyzerSettings) -> String?

    public init(takes settings: [AnalyzerSetting], ownerName: String, validate: @escaping @Sendable (AnalyzerSettings) -> String? = { _ in nil },
                summary: @escaping @Sendable (AnalyzerSettings) -> String = { _ in "" },
                fields: @escaping @Sendable (AnalyzerSettings) -> [(key: String, value: String)] = { _ in [] },
                totalGainDB: @escaping @Sendable (AnalyzerSettings) -> Double? = { _ in 0 },
                recorded: @escaping @Sendable (AnalyzerSettings) -> String? = { _ in nil },
                measurementBand: (@Sendable ([Double], Double, @Sendable (Double) -> FrequencyRange) -> FrequencyRange)? = nil) {
        self.settings = settings
        self.ownerName = ownerName
        self.summary = summary
        self.fields = fields
        self.totalGainDB = totalGainDB
        self.recorded = recorded
        self.measurementBand = measurementBand
        self.validate = validate
    }
}
