import DSP
import Signals

/// Why a sweep request cannot be planned; each message names the limit.
public enum HackRFPlanError: Error, Equatable, Sendable, CustomStringConvertible {
    /// start ≥ stop, or outside 0…7250 MHz
    case frequencyRange(startMHz: Int, stopMHz: Int)
    /// no ranges, or more than hackrf_sweep's 10
    case rangeCount(Int)
    /// bin width outside 2445 Hz … 5 MHz
    case binWidth(Double)
    /// gain not allowed (name, value, allowed description)
    case gain(name: String, dB: Int, allowed: String)

    public var description: String {
        switch self {
        case .frequencyRange(let start, let stop):
            return "frequency range \(start):\(stop) MHz invalid: need 0 ≤ start < stop ≤ \(HackRFSweepPlan.maximumMHz) MHz"
        case .rangeCount(let n):
            return "\(n) frequency ranges given: HackRF sweeps 1 to \(HackRFSweepPlan.maximumRanges) ranges"
        case .binWidth(let hz):
            return "bin width \(hz) Hz out of range: HackRF sweep bins are 2445 Hz to 5 MHz wide"
        case .gain(let name, let dB, let allowed):
            return "\(name) gain \(dB) dB not allowed: use \(allowed)"
        }
    }
}

/// One requested range in whole megahertz, as hackrf_sweep's `-f start:stop`.
public struct SweepRangeMHz: Sendable, Equatable {
    public var startMHz: Int
    public var stopMHz: Int
    public init(startMHz: Int, stopMHz: Int) {
        self.startMHz = startMHz
        self.stopMHz = stopMHz
    }
}

/// What the driver asks the firmware to sweep, computed as hackrf_sweep
/// does (host/hackrf-tools/src/hackrf_sweep.c, 2022.09.1): 20 Msps, step
/// 20 MHz, offset 7.5 MHz, interleaved, one 16384-byte block per step, each
/// range's stop raised to a whole number of steps.
public struct HackRFSweepPlan: Sendable, Equatable {
    /// highest `-f` frequency hackrf_sweep accepts [MHz] (FREQ_MAX_MHZ)
    public static let maximumMHz = 7250
    /// MAX_SWEEP_RANGES
    public static let maximumRanges = 10
    /// sample rate [Hz]
    public static let sampleRateHz: UInt32 = 20_000_000
    /// baseband filter [Hz]
    public static let basebandFilterHz: UInt32 = 15_000_000
    /// tuning step [Hz] (TUNE_STEP)
    public static let stepHz: UInt32 = 20_000_000
    /// radio tuned this far above the sweep frequency [Hz] (OFFSET)
    public static let offsetHz: UInt32 = 7_500_000
    /// width of one kept quarter-spectrum [Hz]: sample rate / 4
    public static let quarterHz: UInt64 = 5_000_000

    /// ranges after rounding the stop up [MHz]
    public let ranges: [SweepRangeMHz]
    /// FFT size N
    public let fftSize: Int
    /// bytes per step: INIT_SWEEP num_bytes
    public let bytesPerStep: UInt32 = UInt32(HackRFProtocol.blockSize)
    public let style: HackRFSweepStyle = .interleaved
    /// every sweep frequency the firmware visits in one cycle, in order [Hz]
    public let stepFrequenciesHz: [UInt64]
    private let stepFrequencySet: Set<UInt64>

    /// bin width [Hz] = 20 MHz / N
    public var binWidthHz: Double { SweepFFTSize.binWidth(fftSize: fftSize) }
    /// bins per kept quarter: N/4
    public var binsPerQuarter: Int { fftSize / 4 }

    public init(ranges requested: [SweepRangeMHz], binWidthHz: Double) throws(HackRFPlanError) {
        guard (1...Self.maximumRanges).contains(requested.count) else {
            throw .rangeCount(requested.count)
        }
        let step = Int(Self.stepHz / 1_000_000)
        var rounded: [SweepRangeMHz] = []
        for r in requested {
            guard r.startMHz >= 0, r.startMHz < r.stopMHz, r.stopMHz <= Self.maximumMHz else {
                throw .frequencyRange(startMHz: r.startMHz, stopMHz: r.stopMHz)
            }
            // hackrf_sweep: step_count = 1 + (stop − start − 1) / TUNE_STEP
            let steps = 1 + (r.stopMHz - r.startMHz - 1) / step
            rounded.append(SweepRangeMHz(startMHz: r.startMHz, stopMHz: r.startMHz + steps * step))
        }
        // hackrf_sweep checks N = 20e6 / width ≥ 4 before padding N, so widths
        // above 5 MHz fail even though padding would reach 4
        guard binWidthHz.isFinite, binWidthHz > 0, Double(Self.sampleRateHz) / binWidthHz >= 4,
              let n = SweepFFTSize.forBinWidth(binWidthHz) else { throw .binWidth(binWidthHz) }
        ranges = rounded
        fftSize = n
        var stepper = HackRFSweepStepper(rangesMHz: rounded.map { (UInt16($0.startMHz), UInt16($0.stopMHz)) },
                                         stepHz: UInt64(Self.stepHz), style: .interleaved)
        var visited: [UInt64] = []
        repeat {
            visited.append(stepper.frequencyHz)
            stepper.advance()
        } while !stepper.isAtCycleStart
        stepFrequenciesHz = visited
        stepFrequencySet = Set(visited)
    }

    /// A plan covering `band` [Hz] for a view: start rounded down, stop up to
    /// whole MHz, and the bin width brought into what the sweep can deliver
    /// (2445 Hz … 5 MHz), since a view asks for span ÷ pixel columns whatever
    /// that is. (`tscope sweep` uses `init(ranges:binWidthHz:)`, which
    /// refuses such widths as hackrf_sweep does.)
    public init(band: FrequencyRange, binWidthHz: Double) throws(HackRFPlanError) {
        let start = Int((band.lowerHz / 1e6).rounded(.down))
        let stop = Int((band.upperHz / 1e6).rounded(.up))
        let narrowest = SweepFFTSize.binWidth(fftSize: SweepFFTSize.maximum)
        let widest = SweepFFTSize.binWidth(fftSize: SweepFFTSize.minimum)
        try self.init(ranges: [SweepRangeMHz(startMHz: start, stopMHz: max(stop, start + 1))],
                      binWidthHz: binWidthHz.isNaN ? binWidthHz : min(max(binWidthHz, narrowest), widest))
    }

    /// True when the firmware steps through `frequencyHz` under this plan.
    public func isStepFrequency(_ frequencyHz: UInt64) -> Bool { stepFrequencySet.contains(frequencyHz) }

    /// INIT_SWEEP wValue/wIndex (num_bytes) and payload: u32 LE step, u32 LE
    /// offset, u8 style, u16 LE start/stop MHz per range.
    public var initSweepRequest: (value: UInt16, index: UInt16, payload: [UInt8]) {
        var payload: [UInt8] = []
        payload.reserveCapacity(9 + 4 * ranges.count)
        LittleEndianBytes.append(Self.stepHz, to: &payload)
        LittleEndianBytes.append(Self.offsetHz, to: &payload)
        payload.append(style.rawValue)
        for r in ranges {
            LittleEndianBytes.append(UInt16(r.startMHz), to: &payload)
            LittleEndianBytes.append(UInt16(r.stopMHz), to: &payload)
        }
        return (UInt16(bytesPerStep & 0xffff), UInt16(bytesPerStep >> 16), payload)
    }

    public static func == (a: HackRFSweepPlan, b: HackRFSweepPlan) -> Bool {
        a.ranges == b.ranges && a.fftSize == b.fftSize
    }
}

/// LNA and VGA gains, validated as libhackrf does (hackrf_set_lna_gain:
/// ≤ 40, rounded down to a multiple of 8; hackrf_set_vga_gain: ≤ 62,
/// rounded down to even).
public struct HackRFGains: Sendable, Equatable {
    /// IF (LNA) gain [dB]: 0…40 in 8 dB steps
    public let lnaDB: Int
    /// baseband (VGA) gain [dB]: 0…62 in 2 dB steps
    public let vgaDB: Int

    /// hackrf_sweep's defaults: LNA 16 dB, VGA 20 dB
    public static let sweepDefaults = HackRFGains(validLNA: 16, validVGA: 20)

    public init(lnaDB: Int, vgaDB: Int) throws(HackRFPlanError) {
        guard (0...40).contains(lnaDB) else { throw .gain(name: "LNA", dB: lnaDB, allowed: "0–40 dB in 8 dB steps") }
        guard (0...62).contains(vgaDB) else { throw .gain(name: "VGA", dB: vgaDB, allowed: "0–62 dB in 2 dB steps") }
        self.init(validLNA: lnaDB & ~7, validVGA: vgaDB & ~1)
    }

    private init(validLNA: Int, validVGA: Int) {
        lnaDB = validLNA
        vgaDB = validVGA
    }
}
