import Foundation
import Signals

/// The synthetic ECG: the dynamical model of P. E. McSharry, G. D. Clifford,
/// L. Tarassenko, L. A. Smith, "A dynamical model for generating synthetic
/// electrocardiogram signals", IEEE TBME 50(3), 2003 (ECGSYN).
///
/// A point circles the unit limit cycle at ω = 2π / RR; each wave i ∈ {P, Q, R,
/// S, T} adds −a_i Δθ_i exp(−Δθ_i² / 2b_i²) to dz/dt as the angle passes θ_i,
/// and z relaxes to the baseline. Here each wave keeps its own z_i so that it
/// can point its own way in space: the heart is a dipole Σ z_i u_i, and each
/// lead sees its projection (a dipole-ish model, enough for twelve leads that
/// look plausible). A new RR is drawn every beat (HRV, respiratory modulation,
/// scripted episodes) at every R peak; noise, baseline wander and mains hum are added per lead.
public final class SyntheticECG: ECGSource {
    public let settings: SyntheticECGSettings
    public let leadNames: [String]
    /// samples per second [Hz]; may change while running
    public var sampleRate: Double {
        didSet { sampleRate = min(max(sampleRate, 50), 10_000) }
    }

    // McSharry et al. 2003, Table 1: P, Q, R, S, T
    static let angles: [Double] = [-Double.pi / 3, -Double.pi / 12, 0, Double.pi / 12, Double.pi / 2]
    static let amplitudes: [Double] = [1.2, -5.0, 30.0, -7.5, 0.75]
    static let widths: [Double] = [0.25, 0.1, 0.1, 0.1, 0.4]
    /// gain that makes the R wave about 1.1 mV in lead II (the model's z is unitless)
    static let outputGain = 3.6
    /// wave dipole directions (x left, y inferior, z anterior): P and R toward the
    /// left leg, the septal Q and terminal S reversed, T like R but more anterior
    static let directions: [(Double, Double, Double)] = [
        (0.5, 0.85, 0.2), (0.6, 0.8, -0.5), (0.7, 0.7, -0.25), (0.3, 0.9, 0.4), (0.6, 0.75, 0.3),
    ]

    private var random: SeededRandom
    /// angle on the limit cycle [rad], −π…π, R wave at 0
    private var theta = -Double.pi
    private var rr = 1.0
    /// per-wave state z_i
    private var waves = [Double](repeating: 0, count: 5)
    /// per lead, how much of each wave it sees (dot products)
    private let projections: [[Double]]
    /// seconds since start (sample clock)
    private var time = 0.0
    private var sampleIndex = 0
    private var pauseRemaining = 0.0
    private var pausedEpisodeStart: Double?
    private var wanderPhases: [Double]

    public init(settings: SyntheticECGSettings) {
        var settings = settings
        settings.leadCount = min(max(settings.leadCount, 1), 12)
        self.settings = settings
        sampleRate = min(max(settings.sampleRate, 50), 10_000)
        random = SeededRandom(seed: settings.seed)
        let leads = settings.leadCount == 1 ? [StandardLead.ii] : Array(StandardLead.allCases.prefix(settings.leadCount))
        leadNames = leads.map(\.name)
        projections = leads.map { lead in
            let v = lead.vector
            return Self.directions.map { $0.0 * v.0 + $0.1 * v.1 + $0.2 * v.2 }
        }
        wanderPhases = leads.indices.map { Double($0) * 0.7 }
        rr = nextRR()
    }

    public func read(into chunk: inout ECGChunk) throws -> ECGReadResult {
        let count = chunk.capacity
        let dt = 1 / sampleRate
        // integrate at ≥ 2 kHz so the 10 ms waves are smooth at any output rate
        let steps = max(1, Int((2000 * dt).rounded(.up)))
        let h = dt / Double(steps)
        for index in 0..<count {
            for _ in 0..<steps { advance(h) }
            time += dt
            let wander = settings.baselineWander * sin(2 * Double.pi * 0.25 * time)
            let hum = settings.mainsAmplitude * sin(2 * Double.pi * settings.mainsFrequency * time)
            for lead in projections.indices {
                var value = 0.0
                for wave in 0..<5 { value += waves[wave] * projections[lead][wave] }
                value = value * Self.outputGain
                    + wander * cos(wanderPhases[lead]) + hum + settings.noise * random.gaussian()
                chunk.leads[lead][index] = Float(value)
            }
        }
        chunk.count = count
        chunk.firstSampleIndex = sampleIndex
        sampleIndex += count
        return .samples(count)
    }

    /// One integration step of length h [s] (midpoint rule for z, exact for θ).
    private func advance(_ h: Double) {
        if pauseRemaining > 0 {
            pauseRemaining -= h
            relax(h)
            return
        }
        let omega = 2 * Double.pi / rr
        let middle = theta + omega * h / 2
        // keep the wave shapes the same width in time whatever the rate (ECGSYN's sqrt(HR/60) scaling)
        let hrFactor = (60 / rr / 60).squareRoot()
        let scale = omega / (hrFactor * hrFactor)
        for wave in 0..<5 {
            let centre = Self.angles[wave] * (wave == 2 ? 1 : (wave == 0 || wave == 4 ? hrFactor.squareRoot() : hrFactor))
            let width = Self.widths[wave] * hrFactor
            var delta = (middle - centre).truncatingRemainder(dividingBy: 2 * Double.pi)
            if delta > Double.pi { delta -= 2 * Double.pi }
            if delta < -Double.pi { delta += 2 * Double.pi }
            let forcing = -Self.amplitudes[wave] * delta * exp(-delta * delta / (2 * width * width)) * scale
            waves[wave] += h * (forcing - waves[wave] * 1.0)
        }
        let before = theta
        theta += omega * h
        // a new RR from each R peak, so that R-to-R is exactly the drawn interval
        if before < 0 && theta >= 0 { rr = nextRR() }
        if theta >= Double.pi {
            theta -= 2 * Double.pi
            startScriptedPause()
        }
    }

    private func relax(_ h: Double) {
        for wave in 0..<5 { waves[wave] -= h * waves[wave] }
    }

    /// At the end of a cycle (diastole), holds the heart still for a scripted pause.
    private func startScriptedPause() {
        if let episode = settings.episodes.first(where: { $0.kind == .pause && $0.contains(time) }),
           pausedEpisodeStart != episode.start {
            pausedEpisodeStart = episode.start
            pauseRemaining = episode.duration
        }
    }

    /// the next beat's RR interval [s]
    private func nextRR() -> Double {
        let active = settings.episodes.first(where: { $0.kind != .pause && $0.contains(time) })?.kind
        let heartRate: Double
        switch active {
        case .bradycardia: heartRate = 40
        case .tachycardia: heartRate = 140
        default: heartRate = max(20, min(settings.heartRate, 250))
        }
        var interval = 60 / heartRate
        // respiratory sinus arrhythmia (0.25 Hz) plus random variability
        interval *= 1 + settings.heartRateVariability * (0.5 * sin(2 * Double.pi * 0.25 * time) + random.gaussian())
        // an irregular rhythm, and AF's irregularly irregular one: each interval drawn anew ±35 %
        if active == .irregular || active == .af { interval *= 1 + 0.35 * (2 * random.unit() - 1) }
        return min(max(interval, 0.25), 3)
    }
}

/// The twelve standard leads and where each looks from (x left, y inferior, z anterior).
public enum StandardLead: Int, CaseIterable, Sendable {
    case i, ii, iii, aVR, aVL, aVF, v1, v2, v3, v4, v5, v6

    public var name: String {
        ["I", "II", "III", "aVR", "aVL", "aVF", "V1", "V2", "V3", "V4", "V5", "V6"][rawValue]
    }

    /// Limb leads from Einthoven's triangle (I at 0°, II at 60° in the frontal plane,
    /// III = II − I, aVR = −(I + II)/2, aVL = I − II/2, aVF = II − I/2); chest leads
    /// in the horizontal plane from V1 (right of the sternum) round to V6 (left side).
    var vector: (Double, Double, Double) {
        let leadI = (1.0, 0.0, 0.0)
        let leadII = (0.5, 0.866, 0.0)
        func combine(_ p: Double, _ q: Double) -> (Double, Double, Double) {
            (p * leadI.0 + q * leadII.0, p * leadI.1 + q * leadII.1, 0)
        }
        func chest(_ degrees: Double) -> (Double, Double, Double) {
            let angle = degrees * Double.pi / 180
            return (cos(angle), 0.1, sin(angle))
        }
        switch self {
        case .i: return leadI
        case .ii: return leadII
        case .iii: return combine(-1, 1)
        case .aVR: return combine(-0.5, -0.5)
        case .aVL: return combine(1, -0.5)
        case .aVF: return combine(-0.5, 1)
        case .v1: return chest(115)
        case .v2: return chest(95)
        case .v3: return chest(75)
        case .v4: return chest(60)
        case .v5: return chest(30)
        case .v6: return chest(0)
        }
    }
}
