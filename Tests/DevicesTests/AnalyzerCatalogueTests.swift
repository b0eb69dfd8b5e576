import Analyzers
import DSP
import Devices
import Signals
import Testing

/// The analyzer catalogue: one descriptor per family, everything else derived from the list.
@Suite struct AnalyzerCatalogueTests {
    @Test func familiesAreDistinctAndEachParsesBack() throws {
        let ids = AnalyzerKind.allCases.map(\.id)
        #expect(Set(ids).count == ids.count && !ids.contains(AnalyzerKind.unknown.id) && !ids.contains(AnalyzerKind.soapy.id))
        // every family is listed in the devices tables, and an unknown kind never opens
        #expect(AnalyzerKind.allCases.allSatisfy { $0.devicesTableRow != nil })
        #expect(AnalyzerKind.unknown.devicesTableRow == nil && AnalyzerKind(rawValue: "unknown") == nil)
        // no two families claim one USB id
        let usb = AnalyzerKind.allCases.flatMap { kind in kind.usbIDs.map { "\($0.vendorID):\($0.productID)" } }
        #expect(Set(usb).count == usb.count)
        for kind in AnalyzerKind.allCases {
            #expect(AnalyzerKind(rawValue: kind.id) == kind)
            #expect(DeviceChoice(rawValue: kind.id) == .hardware(kind))
            #expect(DeviceChoice(rawValue: "demo-\(kind.id)") == .emulated(kind) && kind.emulator != nil)
            #expect(kind.tunableRange.spanHz > 0 && !kind.settingsDescription.ownerName.isEmpty)
        }
        #expect(DeviceChoice(rawValue: "demo") == .emulated(.hackrf))
        #expect(DeviceChoice(rawValue: "soapy:driver=airspy,serial=12")?.target == .soapy("driver=airspy,serial=12"))
        #expect(DeviceChoice(rawValue: "soapy")?.target == .soapy(""))
        #expect(DeviceChoice(rawValue: "airspy") == nil && DeviceChoice(rawValue: "demo-soapy") == nil)
        for name in DeviceChoice.names where name != "soapy:ARGS" && name != "demo" {
            #expect(DeviceChoice(rawValue: name)?.rawValue == name, "\(name)")
        }
    }

    @Test func settingsForAnotherFamilyAreNamedWithTheirOwner() throws {
        var hackRF = AnalyzerSettings()
        try hackRF.set("lna-gain", to: "24")
        #expect(hackRF.problem(for: .hackrf) == nil)
        #expect(hackRF.problem(for: .rtlsdr)?.hasPrefix("--lna-gain is a HackRF setting; the RTL-SDR does not take it") == true)
        var soapy = AnalyzerSettings()
        try soapy.set("antenna", to: "RX2")
        #expect(soapy.problem(for: .tinysa)?.hasPrefix("--antenna is a SoapySDR device's setting") == true)
        #expect(soapy.problem(for: .soapy) == nil)
    }

    @Test func gainTakesANumberAutoOrNamedElements() throws {
        var settings = AnalyzerSettings()
        try settings.set("gain", to: "LNA=16,VGA=20.5")
        #expect(settings.namedGainsDB == ["LNA": 16, "VGA": 20.5] && settings.overallGainDB == nil)
        // an RTL-SDR has no gain elements by name
        #expect(settings.problem(for: .rtlsdr)?.contains("NAME=DB names a SoapySDR device's gain elements") == true)
        var overall = AnalyzerSettings()
        try overall.set("gain", to: "29.7")
        #expect(overall.overallGainDB == 29.7 && overall.tunerGain == .manual(tenthsDB: 297))
        #expect(overall.problem(for: .rtlsdr) == nil)
        var high = AnalyzerSettings()
        try high.set("gain", to: "60")
        // beyond the R820T's steps: fine for a SoapySDR device, refused by an RTL-SDR
        #expect(high.overallGainDB == 60 && high.tunerGain == nil)
        #expect(high.problem(for: .rtlsdr)?.hasPrefix("--gain 60: the RTL-SDR's tuner takes auto or 0–49.6 dB") == true)
        #expect(throws: AnalyzerSettingError.self) { var s = AnalyzerSettings(); try s.set("gain", to: "LNA=loud") }
        #expect(throws: AnalyzerSettingError.self) { var s = AnalyzerSettings(); try s.set("gain", to: "-3") }
        // what a remote viewer sends comes back as the same settings
        var both = settings
        try both.set("sample-rate", to: "2.4M")
        try both.set("antenna", to: "TX/RX")
        #expect(both.sampleRateHz == 2.4e6)
        #expect(try AnalyzerSettings().updated(with: both.given) == both)
    }

    @Test func sampleRatesAsTyped() {
        #expect(SampleRateText.hertz("2.4e6") == 2.4e6 && SampleRateText.hertz("2400000") == 2.4e6)
        #expect(SampleRateText.hertz("2.4M") == 2.4e6 && SampleRateText.hertz("250k") == 250e3)
        #expect(SampleRateText.hertz("fast") == nil && SampleRateText.hertz("") == nil)
        #expect(SampleRateText.label(2.4e6) == "2.4 MS/s" && SampleRateText.label(250e3) == "250 kS/s")
    }
}

/// What tscope does with what SoapySDR reports of a device, on descriptions as SoapyHackRF and SoapyRTLSDR
/// report them (SoapySDRUtil --probe on the emulated radios).
@Suite struct SoapyDescriptionTests {
    static let hackRF = SoapyDeviceDescription(
        arguments: "driver=hackrf", driver: "hackrf", model: "HackRF One",
        frequencyRanges: [0...7.25e9], sampleRateRanges: (1...20).map { Double($0) * 1e6 }.map { $0...$0 },
        gainElements: [("LNA", 0...40), ("AMP", 0...14), ("VGA", 0...62)], gainRange: 0...116,
        hasAutomaticGain: false, antennas: ["TX/RX"], defaultAntenna: "TX/RX", nativeFormat: "CS8")
    static let rtlSDR = SoapyDeviceDescription(
        arguments: "driver=rtlsdr", driver: "rtlsdr", model: "RTL-SDR",
        frequencyRanges: [23.999e6...1764e6], sampleRateRanges: [225_001...300_000, 900_001...3_200_000],
        gainElements: [("TUNER", 0...49.6)], gainRange: 0...49.6,
        hasAutomaticGain: true, antennas: ["RX"], defaultAntenna: "RX", nativeFormat: "CS8")

    @Test func ratesFollowTheNativePathsWhereThereIsOne() {
        // HackRF: at least 8 MS/s as tscope's own receive mode; 2.5 × the band where offered
        #expect(Self.hackRF.streamingRate(forWidth: 1e6, requested: nil) == 8e6)
        #expect(Self.hackRF.streamingRate(forWidth: 5e6, requested: nil) == 13e6)
        #expect(Self.hackRF.streamingRate(forWidth: 10e6, requested: nil) == 13e6)
        #expect(Self.hackRF.streamingRate(forWidth: 5e6, requested: 20e6) == 20e6)
        #expect(Self.hackRF.hoppingRate == 20e6 && Self.hackRF.realtimeBandwidthHz == 20e6)
        // RTL-SDR: at most 2.4 MS/s; 1 MHz is more than 2.4/2.5, so 1.25 × the band
        #expect(Self.rtlSDR.streamingRate(forWidth: 0.5e6, requested: nil) == 1.25e6)
        #expect(Self.rtlSDR.streamingRate(forWidth: 1e6, requested: nil) == 1.25e6)
        #expect(Self.rtlSDR.hoppingRate == 2.4e6 && Self.rtlSDR.realtimeBandwidthHz == 2e6)
    }

    /// Zero span's rate: the lowest offered that holds the RBW filter (8 × the RBW) with points of whole
    /// samples, so the sweep time is the one asked; the highest where none holds the RBW.
    @Test func zeroSpanRatesHoldTheRBWWithWholeSamplesAPoint() {
        func rate(_ device: SoapyDeviceDescription, rbw: Double, sweep: Double) -> Double {
            device.zeroSpanRate(rbwHz: rbw, sweepSeconds: sweep, points: 1000, requested: nil)
        }
        // HackRF: 8 MS/s up to 1 MHz, as natively; 20 MS/s for 2.5 MHz; a typed 7 ms at 8 MS/s is 56 samples a point
        #expect(rate(Self.hackRF, rbw: 1e6, sweep: 500e-6) == 8e6 && rate(Self.hackRF, rbw: 100e3, sweep: 7e-3) == 8e6)
        #expect(rate(Self.hackRF, rbw: 2.5e6, sweep: 1e-3) == 20e6)
        // 300 µs: 0.3 µs a point, 2.4 samples at 8 MS/s; 10 MS/s makes it 3
        #expect(rate(Self.hackRF, rbw: 1e6, sweep: 300e-6) == 10e6)
        // wider than any rate takes: the highest, which the plan then refuses in words
        #expect(rate(Self.hackRF, rbw: 5e6, sweep: 1e-3) == 20e6)
        // RTL-SDR: its lowest above 800 kS/s is 900 001 S/s, 4.5 samples a point over 5 ms; 1 MS/s makes 5
        #expect(rate(Self.rtlSDR, rbw: 100e3, sweep: 5e-3) == 1e6)
        // 30 kHz over 1 s: 1 ms a point, any rate near whole; the lowest above 240 kS/s
        let slow = rate(Self.rtlSDR, rbw: 30e3, sweep: 1)
        #expect(slow >= 240e3 && slow <= 300e3 && (slow * 1e-3).rounded() == slow * 1e-3, "\(slow)")
        // asked for: as asked
        #expect(Self.rtlSDR.zeroSpanRate(rbwHz: 100e3, sweepSeconds: 5e-3, points: 1000, requested: 2.4e6) == 2.4e6)
    }

    @Test func settingsAreCheckedAgainstWhatTheDeviceHas() {
        func problem(_ option: String, _ value: String, _ device: SoapyDeviceDescription) -> String? {
            var settings = AnalyzerSettings()
            try? settings.set(option, to: value)
            return settings.problem(for: .soapy(device))
        }
        #expect(problem("gain", "LNA=24", Self.hackRF) == nil)
        #expect(problem("gain", "LNA=48", Self.hackRF) == "--gain LNA=48: the HackRF One's LNA takes 0–40 dB")
        #expect(problem("gain", "IF=3", Self.hackRF)?.hasSuffix("its gains are LNA, AMP, VGA") == true)
        #expect(problem("gain", "auto", Self.hackRF)?.contains("has no automatic gain") == true)
        #expect(problem("gain", "auto", Self.rtlSDR) == nil)
        #expect(problem("antenna", "RX2", Self.rtlSDR) == "--antenna RX2: the RTL-SDR has RX")
        #expect(problem("sample-rate", "2.5M", Self.hackRF)?.hasPrefix("--sample-rate 2.5 MS/s: the HackRF One offers 1 MS/s") == true)
        #expect(problem("sample-rate", "2.5M", Self.rtlSDR) == nil)
    }

    @Test func defaultsAndGivenGainsReadBack() throws {
        let hackRF = AnalyzerKind.soapy(Self.hackRF)
        // nothing given: the native path's defaults, set explicitly
        #expect(AnalyzerSettings().summary(for: hackRF) == "LNA 16, AMP 0, VGA 20 dB, antenna TX/RX")
        #expect(AnalyzerSettings().totalGainDB(for: hackRF) == 36)
        var settings = AnalyzerSettings()
        try settings.set("gain", to: "LNA=32")
        #expect(settings.summary(for: hackRF) == "LNA 32, AMP 0, VGA 20 dB, antenna TX/RX")
        var overall = AnalyzerSettings()
        try overall.set("gain", to: "40")
        // an overall gain replaces the defaults: the module distributes it
        #expect(overall.summary(for: hackRF) == "gain 40 dB, antenna TX/RX" && overall.totalGainDB(for: hackRF) == 40)
        let rtl = AnalyzerKind.soapy(Self.rtlSDR)
        #expect(AnalyzerSettings().summary(for: rtl) == "gain auto, antenna RX" && AnalyzerSettings().totalGainDB(for: rtl) == nil)
        #expect(AnalyzerSettings().fields(for: rtl).map(\.key) == ["soapy_driver", "gain_db", "antenna"])
    }
}

/// The hops over a band wider than a SoapySDR device's sample rate.
@Suite struct SoapyHopPlanTests {
    @Test(arguments: [(425e6, 440e6, 2.4e6, 10e3, 24e6), (400e6, 460e6, 20e6, 100e3, 1e6), (24.5e6, 30e6, 2.4e6, 5e3, 24e6)])
    func hopsCoverTheBandClearOfDCAndOnOneGrid(lower: Double, upper: Double, rate: Double, bin: Double, lowest: Double) throws {
        let band = try #require(FrequencyRange(lowerHz: lower, upperHz: upper))
        let plan = SoapySpectrumSource.HopPlan(band: band, sampleRateHz: rate, binWidthHz: bin, lowestTunableHz: lowest)
        let n = plan.fftSize, width = plan.binWidthHz
        #expect(width <= bin && Double(plan.binCount) * width >= band.spanHz && Double(plan.binCount - 1) * width < band.spanHz)
        var next = 0
        for hop in plan.hops {
            // consecutive, no gap, no overlap
            #expect(hop.firstBin == next)
            next += hop.keptBins.count
            // every kept bin at least 5 % of the rate from DC and inside ±0.45 of it
            let fromDC = hop.keptBins.map { abs($0 - n / 2) }
            #expect((fromDC.min() ?? 0) >= Int(0.05 * Double(n)) - 1 && (fromDC.max() ?? n) <= Int(0.46 * Double(n)))
            // the hop's bins are the frame's: centred bin c sits at centre + (c − N/2)·w = lower + (j + ½)·w
            for (k, centred) in hop.keptBins.enumerated() {
                let fromHop = hop.centreHz + Double(centred - n / 2) * width
                let fromFrame = band.lowerHz + (Double(hop.firstBin + k) + 0.5) * width
                #expect(abs(fromHop - fromFrame) < 1e-3, "hop at \(hop.centreHz): bin \(centred)")
            }
            #expect(hop.centreHz >= lowest)
        }
        #expect(next == plan.binCount)
    }
}

/// Each setting is one key: its name, parser and read-back; families list keys.
@Suite struct AnalyzerSettingKeyTests {
    /// a value each setting takes, as it reads back
    static let samples: [AnalyzerSetting: String] = [
        .lnaGain: "24", .vgaGain: "30", .amp: "on", .antennaPower: "off", .gain: "29.7", .ppm: "-12",
        .biasTee: "on", .rbw: "30", .attenuation: "auto", .antenna: "RX2", .sampleRate: "2400000",
    ]

    @Test func everyKeyParsesAndReadsBackWhatItWasGiven() throws {
        #expect(Set(AnalyzerSetting.allCases.map(\.name)).count == AnalyzerSetting.allCases.count)
        #expect(Set(Self.samples.keys) == Set(AnalyzerSetting.allCases), "a sample for every key")
        for setting in AnalyzerSetting.allCases {
            var settings = AnalyzerSettings()
            try settings.set(setting, to: Self.samples[setting]!)
            #expect(settings.given == [setting.name: Self.samples[setting]!], "\(setting)")
            #expect(settings.givenSettings == [setting])
            #expect(AnalyzerSetting(named: setting.name) == setting && setting.option == "--\(setting.name)")
            #expect(!setting.help.isEmpty && !setting.valueName.isEmpty)
        }
        var settings = AnalyzerSettings()
        #expect(throws: AnalyzerSettingError.self) { try settings.set("lna-gain", to: "17") }
        #expect(throws: AnalyzerSettingError.self) { try settings.set("gian", to: "1") }
    }

    @Test func everyFamilyTakesKeysAndEveryKeyHasAnOwner() {
        let owned = (AnalyzerKind.allCases + [.soapy]).flatMap(\.settingsDescription.settings)
        #expect(Set(owned) == Set(AnalyzerSetting.allCases), "every setting belongs to some family")
        #expect(AnalyzerKind.hackrf.settingOptions == ["--lna-gain", "--vga-gain", "--amp", "--antenna-power"])
    }
}
