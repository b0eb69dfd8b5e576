/// hackrf_sweep's accounting of sweeps (release 2022.09.1, rx_callback in
/// host/hackrf-tools/src/hackrf_sweep.c): a sweep is complete each time a
/// block arrives at the first range's start frequency after one already has;
/// blocks before the first such block are ignored; with a sweep limit (`-N`,
/// or 1 for `-1`) the run ends at the block that completes the last sweep,
/// without processing it; blocks above 7250 MHz are ignored.
public struct HackRFSweepCounter: Sendable {
    public enum Decision: Sendable, Equatable {
        /// not part of an output sweep: drop it
        case skip
        /// compute and write this block
        case process
        /// the requested sweeps are done: stop here
        case finished
    }

    /// first range's start [Hz]
    public let firstStartHz: UInt64
    /// stop after this many sweeps (nil = run until stopped)
    public let sweepLimit: Int?
    /// sweeps completed so far
    public private(set) var completedSweeps = 0
    private var started = false

    public init(firstStartHz: UInt64, sweepLimit: Int?) {
        self.firstStartHz = firstStartHz
        self.sweepLimit = sweepLimit
    }

    public mutating func decide(frequencyHz: UInt64) -> Decision {
        if frequencyHz == firstStartHz {
            if started {
                completedSweeps += 1
                if let limit = sweepLimit, completedSweeps >= limit { return .finished }
            }
            started = true
        }
        guard started, frequencyHz <= UInt64(HackRFSweepPlan.maximumMHz) * 1_000_000 else { return .skip }
        return .process
    }
}
