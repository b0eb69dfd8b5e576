import Analyzers
import DSP
import Signals
import USBDriver

/// Every other SDR, through SoapySDR (`--device soapy:ARGS`): the device's
/// frequency ranges, sample rates, gain elements and antennas are read from
/// SoapySDR when it is chosen and make its `AnalyzerKind`; I/Q is streamed
/// into the same real-time path as the native radios for a band within the
/// sample rate, and hopped for wider bands (`SoapySpectrumSource`).
public enum SoapyFamily {
    /// The settings every SoapySDR device takes.
    public static let settings: [AnalyzerSetting] = [.gain, .antenna, .sampleRate]

    /// Gains set explicitly where tscope drives the same radio natively, so
    /// both paths start alike: the native family's `soapy.defaultGains`.
    public static func defaultGains(driver: String) -> [String: Double] {
        nativelyDriven[driver]?.soapy?.defaultGains ?? [:]
    }

    /// Drivers whose devices tscope also drives natively (each family's `soapy.key`): `tscope devices` lists
    /// such a device once, native first, and `--device auto` prefers the native path.
    public static let nativelyDriven: [String: AnalyzerKind] = AnalyzerKind.soapyDriven()

    /// The Debian package with SoapySDR's module for a driver key.
    public static func modulePackage(driver: String) -> String {
        switch driver {
        case "lime": return "soapysdr-module-lms7"
        case "plutosdr": return "SoapyPlutoSDR (not packaged by Debian 12: build it from pothosware/SoapyPlutoSDR)"
        case "sdrplay": return "SoapySDRPlay3 with SDRplay's API (not packaged by Debian)"
        case "airspyhf": return "SoapyAirspyHF (not packaged by Debian 12)"
        case "": return "soapysdr-module-all"
        default: return "soapysdr-module-\(driver)"
        }
    }

    /// What `--device soapy:…` opens: the device found, its properties, and the kind made of them.
    public struct Found: Sendable {
        public var arguments: String
        public var kind: AnalyzerKind
        public var label: String
        public var serial: String?
    }

    /// `key=value,…` for a found device's identifying keys (driver, serial or label), to open it again.
    static func openingArguments(_ found: [String: String]) -> String {
        var parts: [String] = []
        if let driver = found["driver"] { parts.append("driver=\(driver)") }
        if let serial = found["serial"], !serial.isEmpty { parts.append("serial=\(serial)") }
        return parts.joined(separator: ",")
    }

    /// The first device SoapySDR finds whose driver tscope does not drive natively (`--device auto`'s
    /// fallback before the demo), as arguments to open it; nil for none.
    public static func firstForeignDevice(serial: String?) -> String? {
        SoapyDevice.enumerate().first { found in
            guard let driver = found["driver"], nativelyDriven[driver] == nil,
                  // the network and sound-card modules are not analyzers a user attached
                  !["remote", "audio"].contains(driver) else { return false }
            return serial == nil || found["serial"] == serial
        }.map(openingArguments)
    }

    /// Resolves `--device soapy:ARGS`: the device SoapySDR opens with those arguments, probed once so its
    /// ranges, gains and antennas are known before a source starts. Errors say what was found instead, or
    /// which module to install.
    public static func select(arguments: String, serial: String?, settings: AnalyzerSettings,
                              detector: SpectrumDetector, mode: AnalysisMode) throws -> SelectedAnalyzer {
        var given = arguments
        if let serial, !given.contains("serial=") { given += (given.isEmpty ? "" : ",") + "serial=\(serial)" }
        let arguments = given
        let wanted = Self.keyValues(arguments)
        let found = SoapyDevice.enumerate(arguments)
        guard !found.isEmpty else { throw SoapyError(notFoundMessage(arguments: arguments, wanted: wanted)) }
        // probed once and released before a source opens it again (a USB radio opens once)
        let probe = try SoapyDevice(arguments: arguments)
        // the enumeration's driver key ("rtlsdr"); the device's own may be spelt otherwise ("RTLSDR")
        let driver = wanted["driver"] ?? found.first?["driver"] ?? probe.driver.lowercased()
        let description = SoapyDeviceDescription(device: probe, driver: driver)
        probe.close()
        let kind = AnalyzerKind.soapy(description)
        if let problem = settings.problem(for: kind) { throw SoapyError(problem) }
        let serialFound = found.first?["serial"]
        let factory: SpectrumSourceFactory = { onFrame, onEnd in
            let opened = try SoapyDevice(arguments: arguments)
            let source: SoapySpectrumSource
            do {
                source = try SoapySpectrumSource(device: opened, description: description, settings: settings,
                                                 detector: detector, mode: mode, onFrame: onFrame, onEnd: onEnd)
            } catch {
                opened.close()
                throw error
            }
            return ConnectedSpectrumSource(source: source, close: { source.release() })
        }
        var analyzer = SelectedAnalyzer(kind: kind, isDemo: false, name: "\(description.model) via SoapySDR",
                                        factory: factory, serial: serialFound)
        analyzer.settings = settings
        analyzer.details = description.detailLines
        analyzer.soapyDevice = description
        return analyzer
    }

    /// "no SoapySDR device matches driver=airspy: install soapysdr-module-airspy …; SoapySDR found: …"
    static func notFoundMessage(arguments: String, wanted: [String: String]) -> String {
        let everything = SoapyDevice.enumerate()
        let listed = everything.isEmpty ? "none"
            : everything.map { found in
                "\(openingArguments(found))\(found["label"].map { " (\($0))" } ?? "")"
            }.joined(separator: "; ")
        var text = "no SoapySDR device matches \"\(arguments)\""
        if let driver = wanted["driver"], !everything.contains(where: { $0["driver"] == driver }) {
            text += "; if one is attached, SoapySDR may lack its module: install \(modulePackage(driver: driver))"
        }
        return text + ". SoapySDR found: \(listed)"
    }

    static func keyValues(_ arguments: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in arguments.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { result[parts[0]] = parts[1] }
        }
        return result
    }

    /// `tscope devices` lines for what SoapySDR finds, skipping drivers in `skip` (devices listed natively).
    public static func listingLines(skippingDriversOf nativeKinds: Set<AnalyzerKind>) -> [String] {
        SoapyDevice.enumerate().compactMap { found in
            let driver = found["driver"] ?? "?"
            if let native = nativelyDriven[driver], nativeKinds.contains(native) { return nil }
            let label = found["label"] ?? found["product"] ?? driver
            let serial = found["serial"].map { "  serial \($0)" } ?? ""
            return "\(label) (SoapySDR \(driver))\(serial)  --device soapy:\(openingArguments(found))"
        }
    }
}

import Foundation

/// What SoapySDR reports of a device, read once when it is chosen.
public struct SoapyDeviceDescription: Sendable {
    public var arguments: String
    public var driver: String
    public var model: String
    public var frequencyRanges: [ClosedRange<Double>]
    public var sampleRateRanges: [ClosedRange<Double>]
    public var gainElements: [(name: String, range: ClosedRange<Double>)]
    public var gainRange: ClosedRange<Double>
    public var hasAutomaticGain: Bool
    public var antennas: [String]
    public var defaultAntenna: String
    public var sensors: [String]
    /// each sensor's reading when the device was chosen
    public var sensorReadings: [String: String] = [:]
    public var nativeFormat: String
    /// the gains set where none are given (`SoapyFamily.defaultGains`)
    public var defaultGains: [String: Double]

    init(device: SoapyDevice, driver: String) {
        arguments = device.arguments
        self.driver = driver
        model = SoapyFamily.nativelyDriven[driver]?.model ?? (device.hardware.isEmpty ? driver : device.hardware)
        frequencyRanges = device.frequencyRanges
        sampleRateRanges = device.sampleRateRanges
        gainElements = device.gainElements
        gainRange = device.gainRange
        hasAutomaticGain = device.hasAutomaticGain
        antennas = device.antennas
        defaultAntenna = device.antenna
        sensors = device.sensors
        for sensor in sensors { sensorReadings[sensor] = device.readSensor(sensor) }
        nativeFormat = device.nativeFormat.format
        defaultGains = SoapyFamily.defaultGains(driver: driver)
    }

    public init(arguments: String, driver: String, model: String, frequencyRanges: [ClosedRange<Double>],
                sampleRateRanges: [ClosedRange<Double>], gainElements: [(name: String, range: ClosedRange<Double>)],
                gainRange: ClosedRange<Double>, hasAutomaticGain: Bool, antennas: [String], defaultAntenna: String,
                sensors: [String] = [], nativeFormat: String) {
        self.arguments = arguments
        self.driver = driver
        self.model = model
        self.frequencyRanges = frequencyRanges
        self.sampleRateRanges = sampleRateRanges
        self.gainElements = gainElements
        self.gainRange = gainRange
        self.hasAutomaticGain = hasAutomaticGain
        self.antennas = antennas
        self.defaultAntenna = defaultAntenna
        self.sensors = sensors
        self.nativeFormat = nativeFormat
        defaultGains = SoapyFamily.defaultGains(driver: driver)
    }

    /// "gains: LNA 0–40 dB, AMP 0–14 dB …", "sample rates: …", "antennas: …", "sensors: …", "stream: CS8 native, read as CS16"
    public var detailLines: [String] {
        func dB(_ range: ClosedRange<Double>) -> String {
            "\(AnalyzerSettings.decimal(range.lowerBound))–\(AnalyzerSettings.decimal(range.upperBound)) dB"
        }
        let gains = gainElements.map { "\($0.name) \(dB($0.range))" }.joined(separator: ", ")
        let rates = sampleRateRanges.map { range in
            range.lowerBound == range.upperBound ? SampleRateText.label(range.lowerBound)
                : "\(SampleRateText.label(range.lowerBound))–\(SampleRateText.label(range.upperBound))"
        }.joined(separator: ", ")
        let tuning = frequencyRanges.map { "\(FrequencyFormat.label($0.lowerBound))–\(FrequencyFormat.label($0.upperBound))" }
        let integer = ["CS8", "CU8", "CS12", "CS16", "CU16"].contains(nativeFormat)
        return [
            "SoapySDR \(driver) (\(arguments.isEmpty ? "first device" : arguments)): \(model)",
            "tunes: \(tuning.joined(separator: ", "))",
            "gains: \(gains.isEmpty ? "none" : gains); overall \(dB(gainRange))\(hasAutomaticGain ? ", auto available" : "")",
            "sample rates: \(rates.isEmpty ? "not reported" : rates)",
            "antennas: \(antennas.isEmpty ? "none to choose" : antennas.joined(separator: ", ")) (default \(defaultAntenna))",
            "sensors: " + (sensors.isEmpty ? "none" : sensors.map { "\($0) = \(sensorReadings[$0] ?? "")" }.joined(separator: ", ")),
            "stream: \(nativeFormat) native, read as \(integer ? "CS16" : "CF32")",
        ]
    }

    /// the lowest to highest frequency it tunes [Hz]
    public var tunableRange: FrequencyRange {
        let lower = frequencyRanges.map(\.lowerBound).min() ?? 0
        let upper = frequencyRanges.map(\.upperBound).max() ?? 6e9
        return FrequencyRange(lowerHz: max(lower, 1), upperHz: max(upper, lower + 1)) ?? FrequencyRange(lowerHz: 1e6, upperHz: 6e9)!
    }

    /// the highest sample rate it offers [S/s]
    public var highestSampleRate: Double { sampleRateRanges.map(\.upperBound).max() ?? 2.4e6 }

    /// Whether `rate` is one it offers.
    public func offers(sampleRate rate: Double) -> Bool {
        sampleRateRanges.contains { $0.lowerBound - 1 <= rate && rate <= $0.upperBound + 1 }
    }

    /// the lowest and highest rate tscope streams this device at by default [S/s]: the native path's for a
    /// radio tscope also drives natively (HackRF 8–20 MS/s, RTL-SDR at most 2.4 MS/s), else up to 20 MS/s
    public var rateLimits: ClosedRange<Double> {
        switch driver {
        case "hackrf": return Double(HackRFReceiveMode.lowestSampleRateHz)...Double(HackRFReceiveMode.highestSampleRateHz)
        case "rtlsdr": return 0...Double(RTLSDRSpectrumSource.realtimeSampleRateHz)
        default: return 0...20e6
        }
    }

    /// The rate to stream a band `widthHz` wide at: `requested` if given; else the lowest offered rate
    /// within `rateLimits` that is at least 2.5 × the width (the band then lies clear of DC, offset-tuned),
    /// else at least 1.25 × the width; else the highest within the limits.
    public func streamingRate(forWidth widthHz: Double, requested: Double?) -> Double {
        if let requested { return requested }
        return lowestOfferedRate(atLeast: 2.5 * widthHz) ?? lowestOfferedRate(atLeast: 1.25 * widthHz) ?? hoppingRate
    }

    /// the lowest rate offered within `rateLimits` that is at least `wanted` [S/s]; nil for none
    func lowestOfferedRate(atLeast wanted: Double) -> Double? {
        let limits = rateLimits
        var candidates: [Double] = []
        for range in sampleRateRanges {
            let low = max(range.lowerBound, limits.lowerBound, wanted)
            if range.lowerBound == range.upperBound {
                if range.lowerBound >= low { candidates.append(range.lowerBound) }
            } else if low <= range.upperBound {
                candidates.append(low.rounded(.up))
            }
        }
        return candidates.filter { $0 <= limits.upperBound }.min()
    }

    /// the rate a wide band is hopped at: the highest offered within `rateLimits`
    public var hoppingRate: Double {
        let limits = rateLimits
        let offered = sampleRateRanges.compactMap { range -> Double? in
            let high = min(range.upperBound, limits.upperBound)
            return high >= range.lowerBound ? high : nil
        }
        return offered.max() ?? min(highestSampleRate, limits.upperBound)
    }

    /// the widest band watched in real time: the native path's for a radio tscope also drives natively,
    /// else 0.8 × the hopping rate (edges clear of the anti-alias filter)
    public var realtimeBandwidthHz: Double {
        if let native = SoapyFamily.nativelyDriven[driver]?.realtimeBandwidthHz { return native }
        return 0.8 * hoppingRate
    }

    /// The gains applied: the defaults, then `settings`' overall gain (which replaces the defaults), then its named elements.
    func gains(_ settings: AnalyzerSettings) -> (overall: Double?, elements: [(String, Double)], automatic: Bool) {
        if settings.tunerGain == .automatic && settings.overallGainDB == nil && settings.namedGainsDB.isEmpty {
            return (nil, [], true)
        }
        var elements = settings.overallGainDB == nil ? defaultGains : [:]
        for (name, value) in settings.namedGainsDB { elements[name] = value }
        let ordered = gainElements.map(\.name).filter { elements[$0] != nil }.map { ($0, elements[$0] ?? 0) }
        // with nothing given and no defaults, a device with automatic gain runs on it (as the RTL-SDR natively)
        let automatic = settings.overallGainDB == nil && ordered.isEmpty && hasAutomaticGain
        return (settings.overallGainDB, ordered, automatic)
    }

    /// Why `settings` do not fit this device (an unknown gain element or antenna, a rate it lacks); nil when they do.
    func problem(_ settings: AnalyzerSettings) -> String? {
        let names = gainElements.map(\.name)
        for (name, value) in settings.namedGainsDB.sorted(by: { $0.key < $1.key }) {
            guard let element = gainElements.first(where: { $0.name == name }) else {
                return "--gain \(name)=…: the \(model) (SoapySDR \(driver)) has no gain element \(name); its gains are "
                    + (names.isEmpty ? "none" : names.joined(separator: ", "))
            }
            guard element.range.contains(value) else {
                return "--gain \(name)=\(AnalyzerSettings.decimal(value)): the \(model)'s \(name) takes "
                    + "\(AnalyzerSettings.decimal(element.range.lowerBound))–\(AnalyzerSettings.decimal(element.range.upperBound)) dB"
            }
        }
        if let overall = settings.overallGainDB, !gainRange.contains(overall) {
            return "--gain \(AnalyzerSettings.decimal(overall)): the \(model) takes "
                + "\(AnalyzerSettings.decimal(gainRange.lowerBound))–\(AnalyzerSettings.decimal(gainRange.upperBound)) dB overall"
        }
        if settings.tunerGain == .automatic && !hasAutomaticGain {
            return "--gain auto: the \(model) (SoapySDR \(driver)) has no automatic gain"
        }
        if let antenna = settings.antenna, !antennas.contains(antenna) {
            return "--antenna \(antenna): the \(model) has " + (antennas.isEmpty ? "no antennas to choose" : antennas.joined(separator: ", "))
        }
        if let rate = settings.sampleRateHz, !offers(sampleRate: rate) {
            let offered = sampleRateRanges.map { range in
                range.lowerBound == range.upperBound ? SampleRateText.label(range.lowerBound)
                    : "\(SampleRateText.label(range.lowerBound))–\(SampleRateText.label(range.upperBound))"
            }
            return "--sample-rate \(SampleRateText.label(rate)): the \(model) offers \(offered.joined(separator: ", "))"
        }
        return nil
    }

    /// "LNA 16, VGA 20, AMP 0 dB, antenna TX/RX" — the gains and antenna applied
    func summary(_ settings: AnalyzerSettings) -> String {
        let gains = gains(settings)
        var parts: [String] = []
        if gains.automatic {
            parts.append("gain auto")
        } else {
            var text: [String] = []
            if let overall = gains.overall { text.append("gain \(AnalyzerSettings.decimal(overall))") }
            text += gains.elements.map { "\($0.0) \(AnalyzerSettings.decimal($0.1))" }
            parts.append(text.isEmpty ? "gain as the device is" : text.joined(separator: ", ") + " dB")
        }
        let antenna = settings.antenna ?? defaultAntenna
        if !antenna.isEmpty { parts.append("antenna \(antenna)") }
        if let rate = settings.sampleRateHz { parts.append(SampleRateText.label(rate)) }
        return parts.joined(separator: ", ")
    }

    func fields(_ settings: AnalyzerSettings) -> [(key: String, value: String)] {
        let gains = gains(settings)
        var fields: [(key: String, value: String)] = [("soapy_driver", driver)]
        if gains.automatic { fields.append(("gain_db", "auto")) }
        if let overall = gains.overall { fields.append(("gain_db", AnalyzerSettings.decimal(overall))) }
        for (name, value) in gains.elements {
            fields.append(("gain_\(name.lowercased())_db", AnalyzerSettings.decimal(value)))
        }
        let antenna = settings.antenna ?? defaultAntenna
        if !antenna.isEmpty { fields.append(("antenna", antenna)) }
        if let rate = settings.sampleRateHz { fields.append(("sample_rate_hz", AnalyzerSettings.decimal(rate))) }
        return fields
    }

    /// the total gain [dB]: the overall gain, or the sum of the elements; nil on automatic gain
    func totalGain(_ settings: AnalyzerSettings) -> Double? {
        let gains = gains(settings)
        if gains.automatic { return nil }
        if let overall = gains.overall { return overall + gains.elements.reduce(0) { $0 + $1.1 } }
        return gains.elements.isEmpty ? nil : gains.elements.reduce(0) { $0 + $1.1 }
    }
}

extension SampleRateText {
    /// "2.4 MS/s", "250 kS/s"
    public static func label(_ rate: Double) -> String {
        if rate >= 1e6 { return String(format: "%g MS/s", rate / 1e6) }
        if rate >= 1e3 { return String(format: "%g kS/s", rate / 1e3) }
        return String(format: "%g S/s", rate)
    }
}

extension AnalyzerKind {
    /// SoapySDR in general: the settings every such device takes (whose option owns `--antenna` in messages)
    public static let soapy = AnalyzerKind.soapy(nil)

    /// The kind of one SoapySDR device, as SoapySDR describes it.
    public static func soapy(_ device: SoapyDeviceDescription?) -> AnalyzerKind {
        AnalyzerKind(
            id: "soapy", model: device?.model ?? "SoapySDR device", usb: nil, powerUnit: .dB,
            tunableRange: device?.tunableRange ?? FrequencyRange(lowerHz: 1e3, upperHz: 7.25e9)!,
            realtimeBandwidthHz: device?.realtimeBandwidthHz ?? 2e6,
            // a hopped band's frame comes when every hop is measured: 100 ms a hop for an RTL-SDR's 55 ms transfers
            stallSeconds: 5,
            settings: AnalyzerSettingsDescription(
                takes: SoapyFamily.settings, ownerName: "a SoapySDR device's",
                validate: { settings in device?.problem(settings) },
                summary: { settings in device?.summary(settings) ?? "" },
                fields: { settings in device?.fields(settings) ?? [] },
                totalGainDB: { settings in device?.totalGain(settings) },
                recorded: { settings in
                    guard let device else { return nil }
                    return "soapy=\"\(device.arguments)\" " + device.fields(settings).filter { $0.key != "soapy_driver" }
                        .map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                }),
            emulator: nil,
            makeSource: { _ in throw SoapyError("a SoapySDR device is opened through SoapySDR, not a USB transport") })
    }
}
