/// The firmware's retune rule (firmware/hackrf_usb/usb_api_sweep.c,
/// sweep_mode(), release 2022.09.1). After each kept block:
///
/// - interleaved: on an odd step add step/4; on an even step, if
///   frequency + step ≥ this range's stop, go to the next range's start
///   (cyclically), else add 3·step/4. The odd/even flag flips every step,
///   also on a wrap.
/// - linear: if frequency + step ≥ stop, next range's start, else add step.
///
/// INIT_SWEEP sets the frequency to the first range's start; entering
/// RX_SWEEP starts with the odd flag set and range 0.
struct HackRFSweepStepper: Sendable {
    /// (start, stop) per range [MHz]
    let rangesMHz: [(UInt16, UInt16)]
    /// tuning step [Hz]
    let stepHz: UInt64
    let style: HackRFSweepStyle

    /// sweep frequency of the current block [Hz]
    private(set) var frequencyHz: UInt64
    private var odd = true
    private var range = 0

    init(rangesMHz: [(UInt16, UInt16)], stepHz: UInt64, style: HackRFSweepStyle, frequencyHz: UInt64? = nil) {
        self.rangesMHz = rangesMHz
        self.stepHz = stepHz
        self.style = style
        self.frequencyHz = frequencyHz ?? UInt64(rangesMHz.first?.0 ?? 0) * 1_000_000
    }

    /// True at the first step of a cycle: range 0's start, odd step.
    var isAtCycleStart: Bool {
        range == 0 && odd && frequencyHz == UInt64(rangesMHz.first?.0 ?? 0) * 1_000_000
    }

    /// Moves to the frequency of the next step.
    mutating func advance() {
        guard !rangesMHz.isEmpty else { return }
        let stopHz = UInt64(rangesMHz[range].1) * 1_000_000
        let wraps = frequencyHz + stepHz >= stopHz
        switch style {
        case .interleaved:
            if !odd && wraps {
                wrapToNextRange()
            } else {
                frequencyHz += odd ? stepHz / 4 : 3 * stepHz / 4
            }
            odd.toggle()
        case .linear:
            if wraps { wrapToNextRange() } else { frequencyHz += stepHz }
        }
    }

    private mutating func wrapToNextRange() {
        range = (range + 1) % rangesMHz.count
        frequencyHz = UInt64(rangesMHz[range].0) * 1_000_000
    }
}
