import Signals
import ThreadKit

/// Releases another source's samples no faster than its sample rate × `speed`
/// of a clock, with pause and resume. The inner source is read ahead by at
/// most one chunk, held here, so pausing loses nothing and resuming continues
/// from the sample where playback stopped.
public final class PacedSource: ECGSource {
    public let source: ECGSource
    /// what "due" is measured on: now [s, monotonic]
    private let clock: () -> Double
    /// playback speed (1 = real time)
    public var speed: Double {
        // the time played so far counts at the old speed
        willSet { rebase() }
        didSet { if speed < 0 { speed = 0 } }
    }
    public private(set) var isPaused = false
    /// samples handed out so far
    public private(set) var delivered = 0

    // samples due = dueBase + (clock − timeBase) × rate × speed while playing
    private var timeBase: Double?
    private var dueBase = 0.0
    private var rateAtBase = 0.0
    private var staging: ECGChunk?
    /// next unread sample in `staging`
    private var stagingOffset = 0
    private var innerEnded = false

    /// - Parameter clock: now [s, monotonic]: the system clock's reading, or a test's `ManualClock`'s
    public init(_ source: ECGSource, speed: Double = 1, clock: @escaping () -> Double = { SystemClock().now }) {
        self.source = source
        self.speed = max(speed, 0)
        self.clock = clock
    }

    public var leadNames: [String] { source.leadNames }
    public var sampleRate: Double { source.sampleRate }

    public func pause() {
        guard !isPaused else { return }
        rebase()
        isPaused = true
    }

    public func resume() {
        guard isPaused else { return }
        isPaused = false
        timeBase = timeBase.map { _ in clock() }
    }

    /// samples due by now
    private func due(now: Double) -> Double {
        guard let timeBase, !isPaused else { return dueBase }
        return dueBase + (now - timeBase) * source.sampleRate * speed
    }

    /// Folds the elapsed time into `dueBase` so a new speed or rate applies from now on.
    private func rebase() {
        guard timeBase != nil else { return }
        let now = clock()
        dueBase = due(now: now)
        timeBase = now
        rateAtBase = source.sampleRate
    }

    public func read(into chunk: inout ECGChunk) throws -> ECGReadResult {
        if timeBase == nil {
            timeBase = clock()
            rateAtBase = source.sampleRate
        }
        if source.sampleRate != rateAtBase {
            // a live rate change (the synthetic source): keep the samples already due
            let now = clock()
            dueBase += (now - timeBase!) * rateAtBase * speed
            timeBase = now
            rateAtBase = source.sampleRate
        }
        let wanted = min(Int(due(now: clock())) - delivered, chunk.capacity)
        guard wanted > 0 else { return .waiting }
        if staging == nil || staging!.capacity != chunk.capacity || staging!.leads.count != chunk.leads.count {
            staging = ECGChunk(leadCount: chunk.leads.count, capacity: chunk.capacity)
            stagingOffset = 0
        }
        if stagingOffset >= staging!.count {
            if innerEnded { return .end }
            stagingOffset = 0
            staging!.count = 0
            switch try source.read(into: &staging!) {
            case .samples: break
            case .waiting: return .waiting
            case .end:
                innerEnded = true
                return .end
            }
        }
        let count = min(wanted, staging!.count - stagingOffset)
        for lead in chunk.leads.indices {
            for index in 0..<count {
                chunk.leads[lead][index] = staging!.leads[lead][stagingOffset + index]
            }
        }
        chunk.count = count
        chunk.firstSampleIndex = delivered
        stagingOffset += count
        delivered += count
        return .samples(count)
    }
}
