/// Multi-lead samples read from a source, one column per lead, in millivolts.
/// Storage is reused between reads: `read` overwrites `count` samples per lead.
public struct ECGChunk: Sendable {
    /// samples per lead [mV]; `leads[l][0..<count]` are valid
    public var leads: [[Float]]
    /// valid samples per lead in this chunk
    public var count: Int
    /// index of the chunk's first sample since the source started (sample clock)
    public var firstSampleIndex: Int

    public init(leadCount: Int, capacity: Int) {
        leads = Array(repeating: Array(repeating: 0, count: capacity), count: leadCount)
        count = 0
        firstSampleIndex = 0
    }

    /// samples each lead can hold
    public var capacity: Int { leads.first?.count ?? 0 }
}

/// What a read returned.
public enum ECGReadResult: Equatable, Sendable {
    /// `count` new samples per lead are in the chunk
    case samples(Int)
    /// nothing available yet (a live source); try again later
    case waiting
    /// the source has ended (a record played out, stdin closed)
    case end
}

/// A stream of ECG samples: WFDB record, CSV, serial port, stdin or the
/// synthetic generator. Swapping the source is one line of wiring.
public protocol ECGSource: AnyObject {
    /// lead names as the source calls them ("MLII", "V5", "i", "avr", …)
    var leadNames: [String] { get }
    /// samples per second per lead [Hz]
    var sampleRate: Double { get }
    /// Reads up to `chunk.capacity` samples per lead without blocking.
    func read(into chunk: inout ECGChunk) throws -> ECGReadResult
}

/// A break in a live stream (a sensor's dropped link): no data for `seconds`
/// after the source's first `afterSample` samples. Marked, never filled.
public struct ECGStreamGap: Equatable, Sendable {
    public var afterSample: Int
    public var seconds: Double

    public init(afterSample: Int, seconds: Double) {
        self.afterSample = afterSample
        self.seconds = seconds
    }
}

/// A live source whose samples carry the time they reached this process, and
/// that knows where its stream broke (a Bluetooth sensor): the viewer measures
/// latency from that arrival, and marks the breaks.
public protocol LinkedECGSource: ECGSource {
    /// when the oldest sample of the last read reached this process [s,
    /// CLOCK_MONOTONIC: ThreadKit's `SystemClock`]; nil when the last read had none
    var lastReadArrival: Double? { get }
    /// the stream's breaks so far, oldest first
    var gaps: [ECGStreamGap] { get }
    /// what the status line should say about the link now ("reconnecting", a clock off its
    /// rate); nil when all is well
    var linkNote: String? { get }
}

/// A live source of beat times alone, without a signal: a heart-rate strap's
/// RR intervals. The viewers draw its heart-rate trend and rhythm.
public protocol LiveBeatSource: AnyObject {
    /// the beats' clock [Hz] (1024 for Heart Rate Measurements' RR intervals)
    var clockRate: Double { get }
    /// Appends the beats that arrived since the last call (sample indices of the
    /// clock since the first beat, ascending). Throws when the stream failed for good.
    func takeBeats(into beats: inout [Int]) throws
    /// when the oldest beat of the last call reached this process [s, CLOCK_MONOTONIC]; nil when it had none
    var lastReadArrival: Double? { get }
    /// the stream's breaks so far, oldest first (`afterSample` counts beats)
    var gaps: [ECGStreamGap] { get }
    /// what the status line should say about the link now ("reconnecting"); nil when all is well
    var linkNote: String? { get }
}
