import Foundation

/// Classifies the rhythm from beat times and signal quality, on the sample clock.
///
/// Heart rate: 60 / median of the last five RR intervals. Status, first match wins:
/// signal lost (lead flat or railed for 1 s), noisy, pause (no beat for > 2 s),
/// bradycardia (< 50 beats/min), tachycardia (> 100), irregular (at least 5 of
/// the last 9 successive RR differences exceed 15 % of the mean RR; it clears
/// at 2 of 9 or fewer), normal.
public final class RhythmMonitor {
    public let sampleRate: Double
    public private(set) var status = RhythmStatus(code: .normal, text: "Waiting for beats")
    /// smoothed heart rate [beats/min], nil before two beats
    public private(set) var heartRate: Double?

    static let bradycardiaBelow = 50.0, tachycardiaAbove = 100.0
    /// longest gap between beats before a pause [s]
    static let pauseAfter = 2.0
    static let irregularDifference = 0.15, irregularEnter = 5, irregularLeave = 2

    private var lastBeat: Int?
    /// the last ten RR intervals [samples], oldest first
    private var intervals: [Int] = []
    private var irregular = false
    private var scratch: [Int] = []
    /// what the current status text says: code, beats/min, pause length [0.1 s]
    private var statusKey: (RhythmCode, Int, Int)?

    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
        intervals.reserveCapacity(11)
        scratch.reserveCapacity(5)
    }

    /// Time since the last beat at sample `now` [s]; nil before the first beat.
    public func secondsSinceLastBeat(now: Int) -> Double? {
        lastBeat.map { Double(now - $0) / sampleRate }
    }

    /// Records a beat at `sample` (R peak index).
    public func beat(at sample: Int) {
        if let last = lastBeat, sample > last {
            intervals.append(sample - last)
            if intervals.count > 10 { intervals.removeFirst() }
            heartRate = 60 * sampleRate / Double(medianRecentInterval())
            updateIrregularity()
        }
        lastBeat = sample
    }

    /// Re-evaluates the status at `now` (index of the newest sample).
    @discardableResult
    public func update(now: Int, quality: SignalQuality) -> RhythmStatus {
        let code = classifyCode(now: now, quality: quality)
        let pauseTenths = code == .pause ? Int(Double(now - (lastBeat ?? now)) / sampleRate * 10) : 0
        let key = (code, Int((heartRate ?? 0).rounded()), pauseTenths)
        // the text is built only when it changes: no allocation per chunk
        if statusKey.map({ $0 != key }) ?? true {
            statusKey = key
            status = classify(now: now, quality: quality)
        }
        return status
    }

    private func classifyCode(now: Int, quality: SignalQuality) -> RhythmCode {
        switch quality {
        case .flat: return .signalLost
        case .noisy: return .noisy
        case .good: break
        }
        if let last = lastBeat, Double(now - last) > Self.pauseAfter * sampleRate { return .pause }
        guard let heartRate else { return .normal }
        if heartRate < Self.bradycardiaBelow { return .bradycardia }
        if heartRate > Self.tachycardiaAbove { return .tachycardia }
        return irregular ? .irregular : .normal
    }

    private func classify(now: Int, quality: SignalQuality) -> RhythmStatus {
        let rate = heartRate.map { " \(Int($0.rounded())) bpm" } ?? ""
        switch quality {
        case .flat: return RhythmStatus(code: .signalLost, text: "Signal lost: lead off?")
        case .noisy: return RhythmStatus(code: .noisy, text: "Noisy signal")
        case .good: break
        }
        if let last = lastBeat, Double(now - last) > Self.pauseAfter * sampleRate {
            return RhythmStatus(code: .pause, text: String(format: "Pause %.1f s", Double(now - last) / sampleRate))
        }
        guard let heartRate else { return RhythmStatus(code: .normal, text: "Waiting for beats") }
        if heartRate < Self.bradycardiaBelow { return RhythmStatus(code: .bradycardia, text: "Bradycardia" + rate) }
        if heartRate > Self.tachycardiaAbove { return RhythmStatus(code: .tachycardia, text: "Tachycardia" + rate) }
        if irregular { return RhythmStatus(code: .irregular, text: "Irregular rhythm" + rate) }
        return RhythmStatus(code: .normal, text: "Sinus rhythm" + rate)
    }

    private func medianRecentInterval() -> Int {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: intervals.suffix(5))
        scratch.sort()
        return scratch[scratch.count / 2]
    }

    private func updateIrregularity() {
        guard intervals.count == 10 else { return }
        let mean = Double(intervals.reduce(0, +)) / 10
        var large = 0
        for index in 1..<10 where Double(abs(intervals[index] - intervals[index - 1])) > Self.irregularDifference * mean {
            large += 1
        }
        if large >= Self.irregularEnter { irregular = true }
        if large <= Self.irregularLeave { irregular = false }
    }
}

/// What the signal itself says, before any beat is considered.
public enum SignalQuality: Sendable, Equatable {
    case good
    /// flat or railed: lead off or source gone
    case flat
    /// fast fluctuation too large for reliable detection
    case noisy
}

/// Judges signal quality over each second of one (filtered) lead.
///
/// Flat: peak-to-peak below 0.03 mV. Noisy: the median |sample-to-sample
/// difference| above 0.05 mV. The median ignores the QRS complexes (a few
/// percent of the samples); white noise of σ gives about 0.95 σ, a clean ECG
/// at 250–1000 Hz about 0.01 mV.
public struct SignalQualityMeter: Sendable {
    static let flatBelow: Float = 0.03
    static let noisyAbove: Float = 0.05
    private var differences: [Float]
    private var count = 0
    private var minimum = Float.infinity
    private var maximum = -Float.infinity
    private var previous: Float?
    public private(set) var quality = SignalQuality.good

    public init(sampleRate: Double) {
        differences = Array(repeating: 0, count: max(2, Int(sampleRate)))
    }

    public mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        for sample in samples where sample.isFinite {
            minimum = min(minimum, sample)
            maximum = max(maximum, sample)
            differences[count] = abs(sample - (previous ?? sample))
            previous = sample
            count += 1
            if count == differences.count { finishWindow() }
        }
    }

    private mutating func finishWindow() {
        // once a second: sorting in place allocates nothing
        differences.sort()
        let median = differences[differences.count / 2]
        if maximum - minimum < Self.flatBelow {
            quality = .flat
        } else if median > Self.noisyAbove {
            quality = .noisy
        } else {
            quality = .good
        }
        count = 0
        minimum = .infinity
        maximum = -.infinity
    }
}
