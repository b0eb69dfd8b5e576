import ECG
import Foundation
import Signals
import ViewModels

/// A stand-in for the synthetic ECG generator of module ECG until it is wired
/// here: a fixed PQRST beat shape (a sum of Gaussians per wave, in the spirit
/// of McSharry et al. 2003, "A dynamical model for generating synthetic
/// electrocardiogram signals", IEEE TBME 50(3) — only its wave shapes, not its
/// dynamics), paced in real time, with a scripted rhythm that cycles through
/// normal, bradycardia and tachycardia. It knows its own rhythm, so it also
/// serves as the viewer's rhythm monitor.
final class ECGTestPatternSource: ECGSource, ECGSampleRateControl, ECGRhythmMonitor {
    /// the 12 standard leads; fewer leads take them from lead II on
    static let standardLeads = ["I", "II", "III", "aVR", "aVL", "aVF", "V1", "V2", "V3", "V4", "V5", "V6"]

    /// One wave of the beat: a Gaussian at `offset` from the R peak [s], `width` [s].
    struct Wave {
        var offset: Double
        var width: Double
    }
    /// P, Q, R, S, T
    static let waves = [Wave(offset: -0.20, width: 0.025), Wave(offset: -0.03, width: 0.010),
                        Wave(offset: 0, width: 0.010), Wave(offset: 0.035, width: 0.010),
                        Wave(offset: 0.26, width: 0.045)]
    /// amplitude of each wave per lead [mV]; III, aVR, aVL, aVF follow from I
    /// and II by Einthoven's and Goldberger's relations
    static let leadIWaves = [0.08, -0.05, 0.6, -0.10, 0.20]
    static let leadIIWaves = [0.15, -0.10, 1.1, -0.25, 0.30]
    static let precordialWaves: [[Double]] = [
        [0.08, 0, 0.25, -0.95, -0.10], [0.10, 0, 0.45, -1.20, 0.25], [0.10, -0.05, 0.75, -0.80, 0.35],
        [0.10, -0.08, 1.15, -0.50, 0.35], [0.10, -0.10, 1.30, -0.30, 0.30], [0.10, -0.08, 1.00, -0.15, 0.25],
    ]

    /// The rhythm script: (start [s] within the cycle, code, heart rate [beats/min]).
    static let script: [(start: Double, code: RhythmCode, bpm: Double)] = [
        (0, .normal, 72), (4, .bradycardia, 42), (10, .normal, 72), (20, .tachycardia, 125), (26, .normal, 72),
    ]
    static let scriptCycle = 36.0
    /// noise on every lead [mV, standard deviation]
    static let noiseMillivolts = 0.01

    let leadNames: [String]
    private(set) var sampleRate: Double
    /// per lead, per wave amplitude [mV]
    private let amplitudes: [[Double]]
    private var random = SeededRandom(seed: 0xEC6)
    /// sample-clock index of the next sample
    private var produced = 0
    /// time of the next sample on the sample clock [s]
    private var time = 0.0
    private var previousBeat = -10.0
    private var nextBeat = 0.5
    /// pacing: wall clock and sample index when the current rate began
    private var rateStart: (monotonic: Double, index: Int)?
    private var scriptIndex = 0

    init(leadCount: Int, sampleRate: Double) {
        let count = min(max(leadCount, 1), Self.standardLeads.count)
        // one or two leads: II first, as monitors show; otherwise the standard order
        let names = count < 3 ? Array(["II", "V1"].prefix(count)) : Array(Self.standardLeads.prefix(count))
        leadNames = names
        self.sampleRate = sampleRate
        amplitudes = names.map { Self.waveAmplitudes(lead: $0) }
    }

    static func waveAmplitudes(lead: String) -> [Double] {
        let i = leadIWaves, ii = leadIIWaves
        switch lead {
        case "I": return i
        case "II": return ii
        case "III": return zip(ii, i).map { $0 - $1 }
        case "aVR": return zip(i, ii).map { -($0 + $1) / 2 }
        case "aVL": return zip(i, ii).map { $0 - $1 / 2 }
        case "aVF": return zip(ii, i).map { $0 - $1 / 2 }
        default:
            let index = (Int(lead.dropFirst()) ?? 1) - 1
            return precordialWaves[min(max(index, 0), precordialWaves.count - 1)]
        }
    }

    func setSampleRate(_ hz: Double) throws {
        guard hz.isFinite, hz >= 50, hz <= 10_000 else { throw ECGTestPatternError.rate(hz) }
        sampleRate = hz
        rateStart = nil
    }

    func read(into chunk: inout ECGChunk) throws -> ECGReadResult {
        let now = monotonicSeconds()
        guard let start = rateStart else {
            rateStart = (now, produced)
            return .waiting
        }
        let due = start.index + Int((now - start.monotonic) * sampleRate)
        let count = min(due - produced, chunk.capacity)
        guard count > 0 else { return .waiting }
        chunk.firstSampleIndex = produced
        chunk.count = count
        let step = 1 / sampleRate
        for n in 0..<count {
            while time >= nextBeat {
                previousBeat = nextBeat
                nextBeat += 60 / Self.segment(at: nextBeat).bpm
            }
            for lead in 0..<min(chunk.leads.count, amplitudes.count) {
                var value = Self.noiseMillivolts * random.gaussian()
                for (wave, amplitude) in zip(Self.waves, amplitudes[lead]) {
                    value += amplitude * (Self.gaussian(time - previousBeat - wave.offset, wave.width)
                        + Self.gaussian(time - nextBeat - wave.offset, wave.width))
                }
                chunk.leads[lead][n] = Float(value)
            }
            time += step
        }
        produced += count
        return .samples(count)
    }

    // MARK: ECGRhythmMonitor

    var heartRateBPM: Double? { time > 1 ? Self.segment(at: time).bpm : nil }

    var status: RhythmStatus {
        let segment = Self.segment(at: time)
        let name = segment.code == .normal ? "Normal" : segment.code.rawValue.capitalized
        return RhythmStatus(code: segment.code, text: "\(name) \(Int(segment.bpm)) bpm")
    }

    func process(_ chunk: ECGChunk, sampleRate: Double, events: inout [RhythmEvent]) {
        let index = Self.segmentIndex(at: time)
        guard index != scriptIndex else { return }
        scriptIndex = index
        let segment = Self.script[index]
        guard segment.code.isAbnormal else { return }
        let cycleStart = (time / Self.scriptCycle).rounded(.down) * Self.scriptCycle
        events.append(RhythmEvent(time: cycleStart + segment.start, code: segment.code, heartRateBPM: segment.bpm))
    }

    // MARK: helpers

    private static func gaussian(_ t: Double, _ width: Double) -> Double {
        let z = t / width
        return z * z > 40 ? 0 : exp(-0.5 * z * z)
    }

    private static func segmentIndex(at time: Double) -> Int {
        let phase = time.truncatingRemainder(dividingBy: scriptCycle)
        return script.lastIndex { $0.start <= phase } ?? 0
    }

    private static func segment(at time: Double) -> (start: Double, code: RhythmCode, bpm: Double) {
        script[segmentIndex(at: time)]
    }
}

enum ECGTestPatternError: Error, CustomStringConvertible {
    case rate(Double)

    var description: String {
        switch self {
        case .rate(let hz): return "sample rate \(hz) Hz not offered: choose 50–10000 Hz"
        }
    }
}
