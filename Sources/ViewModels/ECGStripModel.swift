import ECG

/// The ECG strip as a pure state machine: which samples are on screen and how
/// they are scaled. Drawing is a sweep, as on a bedside monitor: sample-clock
/// index `i` is drawn at position `i mod sweepLength`, so new samples
/// overwrite the old trace from left to right, with a short blank gap ahead
/// of the newest sample; nothing scrolls.
///
/// Paused, the strip ignores new samples (the trace freezes); on resume the
/// sweep continues where the source's clock is now, the missed stretch blank.
public struct ECGStripModel: Sendable {
    /// strip lengths offered by the strip-length keys [s]
    public static let stripLengths: [Double] = [2.5, 5, 7.5, 10]
    /// gains offered by the gain keys [mm/mV]; 10 is the standard
    public static let gains: [Double] = [2.5, 5, 10, 20, 40]
    /// fraction of the strip left blank ahead of the newest sample
    public static let gapFraction = 1.0 / 40

    public let leadNames: [String]
    /// samples per second per lead [Hz]
    public private(set) var sampleRate: Double
    /// time across the strip [s], 2.5–10
    public private(set) var stripSeconds: Double
    /// trace height per millivolt, in the paper's units [mm/mV]
    public private(set) var gainMillimetresPerMillivolt: Double = 10
    public private(set) var isPaused = false
    /// samples of the last `maximum(stripLengths)` seconds
    public private(set) var history: ECGSweepHistory
    /// sample-clock indices of reference beats (a WFDB record's `.atr`),
    /// ascending; marked on the strip where they are on screen
    public var referenceBeats: [Int] = []
    /// a record's other annotations (EDF+ texts, WFDB notes and rhythm changes)
    /// by sample-clock index, ascending; written on the strip where they are on screen
    public var annotations: [ECGStripAnnotation] = []
    /// the recent beats classified other than normal (S, V, Q), ascending, at most `markCapacity`:
    /// their class is written under them
    public private(set) var markedBeats: [ClassifiedBeat] = []
    /// marked beats kept: more than a 10 s strip can show at 300 beats/min
    public static let markCapacity = 64

    public init(leadNames: [String], sampleRate: Double, stripSeconds: Double = 5) {
        self.leadNames = leadNames
        self.sampleRate = Self.validRate(sampleRate)
        self.stripSeconds = Self.clampedStrip(stripSeconds)
        history = ECGSweepHistory(leadCount: leadNames.count, capacity: Self.historyCapacity(rate: Self.validRate(sampleRate)))
    }

    public var leadCount: Int { leadNames.count }

    /// positions across the strip [samples]
    public var sweepLength: Int { max(1, Int((stripSeconds * sampleRate).rounded())) }

    /// positions blanked ahead of the newest sample [samples]
    public var gapLength: Int { Int((Double(sweepLength) * Self.gapFraction).rounded(.up)) }

    /// sample-clock index one past the newest sample held; nil before any
    public var endIndex: Int? { history.endIndex }

    // MARK: intents

    /// Takes newly read samples (ignored while paused).
    public mutating func append(_ chunk: ECGChunk) {
        guard !isPaused else { return }
        history.append(chunk)
    }

    public mutating func togglePause() { isPaused.toggle() }

    /// Moves to the next longer (+1) or shorter (−1) strip length.
    public mutating func stepStripLength(by steps: Int) {
        stripSeconds = Self.step(Self.stripLengths, from: stripSeconds, by: steps)
    }

    /// Sets the strip length, clamped to 2.5–10 s.
    public mutating func setStripSeconds(_ seconds: Double) {
        stripSeconds = Self.clampedStrip(seconds)
    }

    /// Moves to the next higher (+1) or lower (−1) gain.
    public mutating func stepGain(by steps: Int) {
        gainMillimetresPerMillivolt = Self.step(Self.gains, from: gainMillimetresPerMillivolt, by: steps)
    }

    /// The source now delivers `hz` samples per second: the history restarts
    /// (its storage is sized for the rate) and the sweep with it.
    public mutating func changeSampleRate(_ hz: Double) {
        let rate = Self.validRate(hz)
        guard rate != sampleRate else { return }
        sampleRate = rate
        history = ECGSweepHistory(leadCount: leadCount, capacity: Self.historyCapacity(rate: rate))
    }

    // MARK: reading

    /// Fills `out` with what positions `positions.lowerBound ..< +out.count`
    /// of `lead` show: the newest sample at each position, NaN in the gap
    /// ahead of the newest sample and where nothing has been held.
    public func sweep(lead: Int, fromPosition start: Int, into out: UnsafeMutableBufferPointer<Float>) {
        let length = sweepLength
        guard let end = history.endIndex, !out.isEmpty else {
            out.update(repeating: .nan)
            return
        }
        let cursor = end % length // the position the next sample will take
        var position = max(0, start)
        let stop = min(start + out.count, length)
        if start < 0 { UnsafeMutableBufferPointer(rebasing: out[0..<min(-start, out.count)]).update(repeating: .nan) }
        if stop < start + out.count {
            UnsafeMutableBufferPointer(rebasing: out[max(0, stop - start)...]).update(repeating: .nan)
        }
        // Positions before the cursor hold this sweep's samples, the rest the
        // previous sweep's: two contiguous runs of the sample clock.
        while position < stop {
            let runEnd = position < cursor ? min(stop, cursor) : stop
            let firstIndex = position < cursor ? end - cursor + position : end - cursor - length + position
            let slice = UnsafeMutableBufferPointer(rebasing: out[(position - start)..<(runEnd - start)])
            history.copy(lead: lead, from: firstIndex, into: slice)
            position = runEnd
        }
        blankGap(cursor: cursor, length: length, start: start, stop: stop, out: out)
    }

    /// Calls `body` with the strip position of each reference beat drawn in
    /// the current sweep (the newest `sweepLength − gapLength` samples),
    /// oldest first. Allocates nothing.
    public func forEachVisibleReferenceBeat(_ body: (Int) -> Void) {
        guard let end = history.endIndex, !referenceBeats.isEmpty else { return }
        let length = sweepLength
        let oldest = max(end - length + gapLength, end - history.heldCount)
        var index = Self.firstIndex(in: referenceBeats, atLeast: oldest)
        while index < referenceBeats.count, referenceBeats[index] < end {
            body(referenceBeats[index] % length)
            index += 1
        }
    }

    /// Calls `body` with the strip position and text of each annotation in
    /// the current sweep, oldest first, like `forEachVisibleReferenceBeat`.
    public func forEachVisibleAnnotation(_ body: (Int, String) -> Void) {
        guard let end = history.endIndex, !annotations.isEmpty else { return }
        let length = sweepLength
        let oldest = max(end - length + gapLength, end - history.heldCount)
        var index = Self.firstIndex(in: annotations, atLeast: oldest) { $0.sample }
        while index < annotations.count, annotations[index].sample < end {
            body(annotations[index].sample % length, annotations[index].text)
            index += 1
        }
    }

    /// Marks a classified beat on the strip (the newest; the oldest go first).
    public mutating func markBeat(_ beat: ClassifiedBeat) {
        if markedBeats.count == Self.markCapacity { markedBeats.removeFirst() }
        markedBeats.append(beat)
    }

    /// Calls `body` with the strip position and class of each marked beat in
    /// the current sweep, oldest first, like `forEachVisibleReferenceBeat`.
    public func forEachVisibleMarkedBeat(_ body: (Int, BeatClass) -> Void) {
        guard let end = history.endIndex, !markedBeats.isEmpty else { return }
        let length = sweepLength
        let oldest = max(end - length + gapLength, end - history.heldCount)
        var index = Self.firstIndex(in: markedBeats, atLeast: oldest) { $0.sample }
        while index < markedBeats.count, markedBeats[index].sample < end {
            body(markedBeats[index].sample % length, markedBeats[index].beatClass)
            index += 1
        }
    }

    // MARK: helpers

    /// index of the first value ≥ `bound` in ascending `values` (binary search)
    static func firstIndex(in values: [Int], atLeast bound: Int) -> Int {
        firstIndex(in: values, atLeast: bound) { $0 }
    }

    /// index of the first element whose `key` is ≥ `bound`, the keys ascending (binary search)
    static func firstIndex<Element>(in values: [Element], atLeast bound: Int, key: (Element) -> Int) -> Int {
        var low = 0, high = values.count
        while low < high {
            let middle = (low + high) / 2
            if key(values[middle]) < bound { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func blankGap(cursor: Int, length: Int, start: Int, stop: Int, out: UnsafeMutableBufferPointer<Float>) {
        let gap = min(gapLength, length)
        // the gap may wrap past the right edge to the start of the strip
        blank(from: cursor, to: min(cursor + gap, length), start: start, stop: stop, out: out)
        blank(from: 0, to: max(0, cursor + gap - length), start: start, stop: stop, out: out)
    }

    private func blank(from: Int, to: Int, start: Int, stop: Int, out: UnsafeMutableBufferPointer<Float>) {
        let lower = max(from, start), upper = min(to, stop)
        guard lower < upper else { return }
        UnsafeMutableBufferPointer(rebasing: out[(lower - start)..<(upper - start)]).update(repeating: .nan)
    }

    /// ring size for the longest strip at `rate` [samples]
    private static func historyCapacity(rate: Double) -> Int {
        Int((stripLengths.last! * rate).rounded(.up)) + 1
    }

    /// Rates outside 1 Hz – 100 kHz (or not finite) fall back to 250 Hz, the
    /// serial boards' usual rate, so a bad header never sizes a huge ring.
    private static func validRate(_ hz: Double) -> Double {
        hz.isFinite && hz >= 1 && hz <= 100_000 ? hz : 250
    }

    private static func clampedStrip(_ seconds: Double) -> Double {
        guard seconds.isFinite else { return 5 }
        return min(max(seconds, stripLengths.first!), stripLengths.last!)
    }

    /// The entry `steps` away from the one nearest `value`, clamped to the list.
    static func step(_ values: [Double], from value: Double, by steps: Int) -> Double {
        var nearest = 0
        for (index, candidate) in values.enumerated() where abs(candidate - value) < abs(values[nearest] - value) {
            nearest = index
        }
        return values[min(max(nearest + steps, 0), values.count - 1)]
    }
}

/// An annotation drawn on the strip: where (sample-clock index) and what.
public struct ECGStripAnnotation: Sendable, Equatable {
    public var sample: Int
    public var text: String

    public init(sample: Int, text: String) {
        self.sample = sample
        self.text = text
    }
}
