import DSP
import Signals
import USBDriver

/// HackRF One's plain receive mode (TRANSCEIVER_MODE_RECEIVE): one tuning,
/// interleaved int8 I/Q streamed at the sample rate set, no headers — what
/// hackrf_transfer -r and every SDR application use, and tscope's real-time
/// mode for a band of at most 20 MHz. The DC spike at the tuned frequency is
/// kept off the band by offset tuning (bands up to 8 MHz) and removed in DSP
/// (`RealtimeSpectrum`) for all.
public enum HackRFReceiveMode {
    /// the widest band streamed at once: the highest sample rate the MAX5864
    /// ADC is specified for [Hz]
    public static let widestBandHz = 20e6
    /// GSG's advice: below 8 MS/s the ADC's own anti-aliasing is not enough
    public static let lowestSampleRateHz: UInt32 = 8_000_000
    public static let highestSampleRateHz: UInt32 = 20_000_000
    /// the MAX2837 baseband filter's settings [Hz] (libhackrf's `max2837_ft`)
    public static let basebandFilters: [UInt32] = [
        1_750_000, 2_500_000, 3_500_000, 5_000_000, 5_500_000, 6_000_000, 7_000_000, 8_000_000,
        9_000_000, 10_000_000, 12_000_000, 14_000_000, 15_000_000, 20_000_000, 24_000_000, 28_000_000,
    ]

    /// The sample rate for a band [S/s]: a band of at most 8 MHz is
    /// offset-tuned (`RealtimeBandPlan.tunedCentre`), which needs fs ≥ 2.5 ×
    /// its width; a wider one is centred, with 1.25 × its width for the
    /// filter's skirts. Rounded up to 0.5 MS/s, within 8…20 MS/s.
    public static func sampleRate(forBandwidth widthHz: Double) -> UInt32 {
        let factor = widthHz <= 0.4 * Double(highestSampleRateHz) ? 2.5 : 1.25
        let wanted = (widthHz * factor / 500_000).rounded(.up) * 500_000
        return UInt32(min(Double(highestSampleRateHz), max(Double(lowestSampleRateHz), wanted)))
    }

    /// The narrowest baseband filter that passes everything from the tuned
    /// frequency to the band's far edge (the filter's bandwidth is the
    /// total, ±half around the tuned frequency) [Hz].
    public static func basebandFilter(for plan: RealtimeBandPlan) -> UInt32 {
        let reach = 2 * max(abs(plan.band.lowerHz - plan.centreHz), abs(plan.band.upperHz - plan.centreHz))
        return basebandFilters.first { Double($0) >= reach } ?? basebandFilters.last!
    }

    /// the lowest frequency the HackRF One tunes [Hz] (its specified 1 MHz)
    public static let lowestTuningHz = 1e6

    /// The tuning and FFT for `band` with bins at most `binWidthHz` wide.
    public static func plan(band: FrequencyRange, binWidthHz: Double) -> RealtimeBandPlan {
        let rate = Double(sampleRate(forBandwidth: band.spanHz))
        let centre = RealtimeBandPlan.tunedCentre(for: band, sampleRateHz: rate, lowestHz: lowestTuningHz)
        return RealtimeBandPlan(band: band, centreHz: centre, sampleRateHz: rate, binWidthHz: binWidthHz)
    }
}

extension HackRFSweepDriver {
    /// Sends what hackrf_transfer sends before receiving: sample rate
    /// (divider 1), baseband filter, VGA and LNA gain, amplifier, antenna
    /// power, frequency.
    public func configureReceive(sampleRateHz: UInt32, basebandFilterHz: UInt32, frequencyHz: UInt64,
                                 gains: HackRFGains, ampEnabled: Bool, antennaPower: Bool) throws(USBError) {
        var rate: [UInt8] = []
        LittleEndianBytes.append(sampleRateHz, to: &rate)
        LittleEndianBytes.append(UInt32(1), to: &rate)
        try send(.sampleRateSet, data: rate)
        try send(.basebandFilterBandwidthSet, value: UInt16(basebandFilterHz & 0xffff),
                 index: UInt16(basebandFilterHz >> 16))
        try setGain(.setVGAGain, dB: gains.vgaDB, name: "VGA")
        try setGain(.setLNAGain, dB: gains.lnaDB, name: "LNA")
        try send(.ampEnable, value: ampEnabled ? 1 : 0)
        try send(.antennaEnable, value: antennaPower ? 1 : 0)
        // SET_FREQ: u32 LE whole MHz, u32 LE the Hz above them (libhackrf hackrf_set_freq)
        var frequency: [UInt8] = []
        LittleEndianBytes.append(UInt32(frequencyHz / 1_000_000), to: &frequency)
        LittleEndianBytes.append(UInt32(frequencyHz % 1_000_000), to: &frequency)
        try send(.setFrequency, data: frequency)
    }

    /// Sets RECEIVE and starts the bulk stream (4 × 262144 bytes in flight);
    /// `onData` gets each transfer's int8 I/Q, valid during the call.
    public func startReceive(onData: @escaping BulkDataHandler, onEnd: @escaping BulkEndHandler) throws(USBError) {
        try send(.setTransceiverMode, value: HackRFTransceiverMode.receive.rawValue)
        do {
            try transport.startBulkStream(endpoint: HackRFProtocol.bulkInEndpoint,
                                          transferSize: HackRFProtocol.transferSize,
                                          transfersInFlight: HackRFProtocol.transfersInFlight,
                                          onData: onData, onEnd: onEnd)
        } catch {
            try? send(.setTransceiverMode, value: HackRFTransceiverMode.off.rawValue)
            throw error
        }
    }
}
