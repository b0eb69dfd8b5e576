import Signals
import Foundation

/// Renders a `DemoScene` as int8 I/Q: the payload of HackRF sweep blocks at
/// 20 MS/s, or (with another `samplesPerSecond`) what an RTL-SDR tuned to a
/// centre frequency sees, which `RTLSDREmulator` offsets to u8.
///
/// Cheap by construction: the steady carriers seen at a tuning are
/// synthesised once per centre frequency (phasor recursion, 64-sample
/// chunks for FM) and cached as fixed-point; each block then adds a slice of
/// a pre-generated noise table and only the time-varying sources (drifting
/// tones, bursts) are synthesised per block. Everything depends only on the
/// scene, the tuning and the block index, so a seed gives the same bytes
/// every run.
public final class DemoSynthesizer {
    /// HackRF sweep-mode sample rate [Hz], the default
    public static let sampleRateHz = 20e6
    /// fixed-point scale: one int8 LSB = 128 units
    static let fixedScale: Float = 128
    /// cached tunings kept before the cache is emptied (16 KB each)
    static let cacheLimit = 1024
    /// int16 noise samples in the table (must exceed a block's payload)
    static let noiseTableCount = 1 << 18

    public let scene: DemoScene
    /// int8 values per block payload (I and Q)
    public let payloadCount: Int
    /// sample rate of the rendered I/Q [Hz]
    public let samplesPerSecond: Double
    /// only sources within this distance of the centre are synthesised [Hz]
    let halfBandwidthHz: Double

    /// The receive gain relative to the one the scene's amplitudes are
    /// given at (the HackRF's LNA 16 dB + VGA 20 dB, amplifier off) [dB]:
    /// the whole sum (signals and noise) is scaled by it before the 8-bit
    /// quantiser, so a gain step moves every level by exactly its size
    /// until the ADC clips. The emulators set it from the radio's gains.
    public var relativeGainDB: Double = 0 {
        didSet { gainScale = Float(pow(10, relativeGainDB / 20)) }
    }
    /// amplitude factor of `relativeGainDB`; exactly 1 at 0 dB (the plain quantiser runs)
    private var gainScale: Float = 1

    /// The front end's (LNA and RF amplifier's) gain above the reference
    /// (LNA 16 dB, amplifier off) [dB]: above 0 its third-order
    /// nonlinearity is modelled (`frontEndIIP3DBm`). The emulators set it
    /// from the radio's gains.
    public var frontEndGainDB: Double = 0 {
        didSet {
            // the intercept is fixed at the front end's output: referred to the input it falls by the gain
            let intercept = DemoScene.amplitude(levelDBm: Self.frontEndIIP3DBm - frontEndGainDB) * Double(Self.fixedScale)
            cubicCoefficient = frontEndGainDB > 0 ? Float(1 / (intercept * intercept)) : 0
        }
    }
    /// The emulated front end's input third-order intercept at the
    /// reference gain [dBm]: +20 dBm, falling dB for dB as the LNA gain (or
    /// the RF amplifier) rises above it (a fixed intercept at the LNA's
    /// output), −4 dBm at LNA 40 dB. The front end is y = x·(1 − |x|²/A²) on
    /// the complex input x, A the amplitude of a tone at the intercept: each
    /// of two tones of level P makes third-order products at 2F1−F2 and
    /// 2F2−F1 of 2·(P − IIP3) dBc, the textbook relation. Modelled only
    /// above the reference gain: at or below it products stay ≥ 60 dB under
    /// the ADC's full scale and the model is skipped, so the demo's bytes at
    /// the default gains are unchanged.
    public static let frontEndIIP3DBm = 20.0
    /// 1 / A² of the front end's cubic [1/fixed-point units²]; 0: linear
    private var cubicCoefficient: Float = 0

    /// Continuous mode (a radio streaming one tuning, not sweep blocks):
    /// the steady carriers come from a table of `continuousPeriod` samples
    /// that repeats seamlessly (their frequencies snapped to multiples of
    /// fs / period, ≤ 76 Hz away at 20 MS/s), read on from where the last
    /// block ended, and time-varying sources start at the phase their
    /// frequency has reached at the block's time, so no block boundary puts
    /// a phase jump (and its splatter) into an FFT that straddles it.
    public let continuous: Bool
    /// samples in a continuous carrier table: 2^17
    static let continuousPeriod = 1 << 17
    /// a constant added to every I and Q sample [int8 LSB], as the DC offset of a direct-conversion
    /// receiver's mixer and ADC puts a spike at the tuned centre
    public var dcOffset: (i: Double, q: Double) = (0, 0)

    private var carrierCache: [UInt64: [Int16]] = [:]
    private let noiseTable: [Int16]
    /// per-block float I/Q for time-varying sources [int8 units]
    private var dynamicScratch: [Float]
    /// one pulsed carrier for the whole block, before it is keyed
    private var pulseScratch: [Float]
    /// per-block sum in fixed point
    private var sumScratch: [Int16]

    public init(scene: DemoScene, payloadCount: Int = HackRFProtocol.blockSize - HackRFProtocol.headerSize,
                samplesPerSecond: Double = DemoSynthesizer.sampleRateHz, continuous: Bool = false) {
        self.scene = scene
        self.continuous = continuous
        self.payloadCount = payloadCount
        self.samplesPerSecond = samplesPerSecond
        halfBandwidthHz = samplesPerSecond / 2
        var random = SeededRandom(seed: scene.seed)
        var table = [Int16](repeating: 0, count: Self.noiseTableCount)
        let sigma = scene.noiseSigma * Double(Self.fixedScale)
        let limit = 127.0 * Double(Self.fixedScale)
        for i in 0..<table.count {
            table[i] = Int16(max(-limit, min(limit, (random.gaussian() * sigma).rounded())))
        }
        noiseTable = table
        dynamicScratch = [Float](repeating: 0, count: payloadCount)
        pulseScratch = [Float](repeating: 0, count: payloadCount)
        sumScratch = [Int16](repeating: 0, count: payloadCount)
    }

    /// Writes the I/Q a radio tuned to `sweepFrequencyHz` + 7.5 MHz sees
    /// during kept block `blockIndex` (at `timeSeconds` since the sweep began)
    /// into `payload` (`payloadCount` bytes, int8 I, Q, I, Q …).
    public func render(sweepFrequencyHz: UInt64, offsetHz: UInt64, blockIndex: UInt64, timeSeconds: Double,
                       into payload: UnsafeMutableRawBufferPointer) {
        precondition(payload.count >= payloadCount, "payload buffer too small")
        let centreHz = sweepFrequencyHz + offsetHz
        let noiseStart = Int(SeededRandom.mix(scene.seed ^ blockIndex &* 0x2545_f491_4f6c_dd1d)
            % UInt64(Self.noiseTableCount - payloadCount)) & ~1
        let count = payloadCount
        let carriers = cachedCarriers(centreHz: centreHz)
        // continuous mode: where in the periodic table this block starts (blocks are consecutive)
        let tableStart = continuous ? Int((blockIndex &* UInt64(count / 2)) % UInt64(Self.continuousPeriod)) * 2 : 0
        let hasDynamic = renderDynamic(sweepFrequencyHz: sweepFrequencyHz, centreHz: Double(centreHz),
                                       blockIndex: blockIndex, timeSeconds: timeSeconds)
        let out = payload.bindMemory(to: Int8.self)
        noiseTable.withUnsafeBufferPointer { noise in
            sumScratch.withUnsafeMutableBufferPointer { sum in
                let n = UnsafeBufferPointer(rebasing: noise[noiseStart..<(noiseStart + count)])
                if let carriers, continuous {
                    carriers.withUnsafeBufferPointer { c in
                        // the table repeats: read on from tableStart, wrapping at its end
                        var i = 0
                        var t = tableStart
                        while i < count {
                            let run = min(count - i, c.count - t)
                            for k in 0..<run { sum[i + k] = c[t + k] &+ n[i + k] }
                            i += run
                            t = 0
                        }
                    }
                } else if let carriers {
                    carriers.withUnsafeBufferPointer { c in
                        for i in 0..<count { sum[i] = c[i] &+ n[i] }
                    }
                } else {
                    for i in 0..<count { sum[i] = n[i] }
                }
                if hasDynamic {
                    dynamicScratch.withUnsafeBufferPointer { d in
                        for i in 0..<count {
                            let v = Int32(sum[i]) + Int32((d[i] * Self.fixedScale).rounded())
                            sum[i] = Int16(max(-32_000, min(32_000, v)))
                        }
                    }
                }
                if cubicCoefficient > 0 { Self.applyFrontEnd(sum, coefficient: cubicCoefficient) }
                if dcOffset != (0, 0) {
                    let dc = (Int16((dcOffset.i * Double(Self.fixedScale)).rounded()),
                              Int16((dcOffset.q * Double(Self.fixedScale)).rounded()))
                    for i in stride(from: 0, to: count - 1, by: 2) {
                        sum[i] = sum[i] &+ dc.0
                        sum[i + 1] = sum[i + 1] &+ dc.1
                    }
                }
                if gainScale == 1 {
                    Self.quantise(UnsafeBufferPointer(sum), into: out)
                } else {
                    Self.quantise(UnsafeBufferPointer(sum), scale: gainScale, into: out)
                }
            }
        }
    }

    /// The front end's third-order nonlinearity on interleaved I/Q:
    /// x ← x·(1 − k·|x|²), the factor held at or above 0.
    static func applyFrontEnd(_ sum: UnsafeMutableBufferPointer<Int16>, coefficient k: Float) {
        for i in stride(from: 0, to: sum.count - 1, by: 2) {
            let re = Float(sum[i]), im = Float(sum[i + 1])
            let factor = max(0, 1 - k * (re * re + im * im))
            sum[i] = Int16((re * factor).rounded())
            sum[i + 1] = Int16((im * factor).rounded())
        }
    }

    /// int8 = clamp(round(sum / 128), −127, 127); the hot loop.
    static func quantise(_ sum: UnsafeBufferPointer<Int16>, into out: UnsafeMutableBufferPointer<Int8>) {
        for i in 0..<sum.count {
            let v = (Int32(sum[i]) + 64) >> 7
            out[i] = Int8(max(-127, min(127, v)))
        }
    }

    /// int8 = clamp(floor((sum × scale + 64) / 128), −127, 127): the quantiser behind a gain.
    static func quantise(_ sum: UnsafeBufferPointer<Int16>, scale: Float, into out: UnsafeMutableBufferPointer<Int8>) {
        for i in 0..<sum.count {
            let v = ((Float(sum[i]) * scale + 64) / 128).rounded(.down)
            out[i] = Int8(max(-127, min(127, v)))
        }
    }

    /// The emulated front end's frequency response [dB]: a roll-off of
    /// 0.8 dB per GHz and a 1 dB ripple with a 700 MHz period, so that a
    /// calibration has a shape to find between its points (a real HackRF's
    /// response varies by several dB over its range, and from unit to unit).
    public static func frontEndResponseDB(atHz frequencyHz: Double) -> Double {
        -0.8 * frequencyHz / 1e9 + 1.0 * sin(2 * Double.pi * frequencyHz / 700e6)
    }

    /// the amplitude factor of `frontEndResponseDB`
    static func response(_ frequencyHz: Double) -> Double { pow(10, frontEndResponseDB(atHz: frequencyHz) / 20) }

    /// Plain reference for `quantise`: floor((v + 64) / 128), clamped.
    static func quantiseReference(_ value: Int16) -> Int8 {
        Int8(max(-127, min(127, ((Double(value) + 64) / 128).rounded(.down))))
    }

    // MARK: steady carriers

    private func cachedCarriers(centreHz: UInt64) -> [Int16]? {
        if let hit = carrierCache[centreHz] { return hit.isEmpty ? nil : hit }
        // a continuous table is 512 KB: keep 64 tunings with carriers (32 MB), not a sweep's thousand
        if carrierCache.count >= Self.cacheLimit
            || (continuous && carrierCache.values.lazy.filter { !$0.isEmpty }.count >= 64) {
            carrierCache.removeAll(keepingCapacity: true)
        }
        let visible = scene.carriers.enumerated().filter { abs($0.element.frequencyHz - Double(centreHz)) < halfBandwidthHz }
        guard !visible.isEmpty else {
            carrierCache[centreHz] = []
            return nil
        }
        if continuous {
            let table = periodicCarriers(visible.map { ($0.offset, $0.element) }, centreHz: Double(centreHz))
            carrierCache[centreHz] = table
            return table
        }
        var iq = [Float](repeating: 0, count: payloadCount)
        for (index, carrier) in visible {
            let phase = 2 * Double.pi * Double(SeededRandom.mix(scene.seed &+ UInt64(index)) >> 11) * 0x1p-53
            Self.addCarrier(offsetHz: carrier.frequencyHz - Double(centreHz),
                            amplitude: carrier.amplitude * Self.response(carrier.frequencyHz),
                            deviationHz: carrier.deviationHz, modulationHz: carrier.modulationHz,
                            startPhase: phase, timeOffset: 0, sampleRateHz: samplesPerSecond, into: &iq)
        }
        let limit = 127 * Self.fixedScale
        let fixed = iq.map { Int16(max(-limit, min(limit, ($0 * Self.fixedScale).rounded()))) }
        carrierCache[centreHz] = fixed
        return fixed
    }

    /// The visible carriers over one period of `continuousPeriod` samples,
    /// each sample's phase from the closed form (no recursion to drift), so
    /// the last sample runs into the first: offset f and modulating tone fm
    /// snapped to whole cycles per period; FM phase
    /// φ(t) = 2πft − (Δf/fm)·cos(2π·fm·t).
    private func periodicCarriers(_ visible: [(Int, DemoScene.Carrier)], centreHz: Double) -> [Int16] {
        let period = Self.continuousPeriod
        let cycle = samplesPerSecond / Double(period)  // Hz per whole cycle in the table
        var iq = [Double](repeating: 0, count: 2 * period)
        for (index, carrier) in visible {
            let phase0 = 2 * Double.pi * Double(SeededRandom.mix(scene.seed &+ UInt64(index)) >> 11) * 0x1p-53
            let offsetCycles = ((carrier.frequencyHz - centreHz) / cycle).rounded()
            let modulationCycles = (carrier.modulationHz / cycle).rounded()
            let modulationIndex = carrier.deviationHz > 0 && modulationCycles > 0 ? carrier.deviationHz / (modulationCycles * cycle) : 0
            let amplitude = carrier.amplitude * Self.response(carrier.frequencyHz)
            for k in 0..<period {
                let x = Double(k) / Double(period)  // fraction of the period
                let phase = phase0 + 2 * Double.pi * offsetCycles * x - modulationIndex * cos(2 * Double.pi * modulationCycles * x)
                iq[2 * k] += amplitude * cos(phase)
                iq[2 * k + 1] += amplitude * sin(phase)
            }
        }
        let scale = Double(Self.fixedScale), limit = 127 * scale
        return iq.map { Int16(max(-limit, min(limit, ($0 * scale).rounded()))) }
    }

    /// The phase a tone `offsetHz` from the centre has reached at `timeSeconds`
    /// (continuous mode), else the block's random phase.
    private func startPhase(offsetHz: Double, timeSeconds: Double, blockPhase: Double) -> Double {
        guard continuous else { return blockPhase }
        let cycles = offsetHz * timeSeconds
        return 2 * Double.pi * (cycles - cycles.rounded(.down))
    }

    /// Adds a (possibly FM) carrier to interleaved I/Q by phasor recursion;
    /// the phasor increment is recomputed every 64 samples for FM.
    static func addCarrier(offsetHz: Double, amplitude: Double, deviationHz: Double, modulationHz: Double,
                           startPhase: Double, timeOffset: Double, sampleRateHz: Double, into iq: inout [Float]) {
        let samples = iq.count / 2
        let chunk = 64
        var re = amplitude * cos(startPhase)
        var im = amplitude * sin(startPhase)
        iq.withUnsafeMutableBufferPointer { out in
            var start = 0
            while start < samples {
                let t = timeOffset + Double(start) / sampleRateHz
                let instantaneous = offsetHz + deviationHz * sin(2 * Double.pi * modulationHz * t)
                let w = 2 * Double.pi * instantaneous / sampleRateHz
                let (c, s) = (cos(w), sin(w))
                let end = min(start + chunk, samples)
                for k in start..<end {
                    out[2 * k] += Float(re)
                    out[2 * k + 1] += Float(im)
                    let nextRe = re * c - im * s
                    im = re * s + im * c
                    re = nextRe
                }
                // keep the magnitude from creeping
                let magnitude = (re * re + im * im).squareRoot()
                if magnitude > 0 { re *= amplitude / magnitude; im *= amplitude / magnitude }
                start = end
            }
        }
    }

    // MARK: time-varying sources

    /// Synthesises drifting tones and bursts for this block into
    /// `dynamicScratch`; returns false when there are none.
    private func renderDynamic(sweepFrequencyHz: UInt64, centreHz: Double, blockIndex: UInt64,
                               timeSeconds: Double) -> Bool {
        var any = false
        func clearOnce() {
            if !any {
                for i in dynamicScratch.indices { dynamicScratch[i] = 0 }
                any = true
            }
        }
        let blockPhase = 2 * Double.pi * Double(SeededRandom.mix(scene.seed ^ (blockIndex &+ 77)) >> 11) * 0x1p-53
        for tone in scene.driftingTones {
            let f = tone.frequencyHz(at: timeSeconds)
            guard abs(f - centreHz) < halfBandwidthHz else { continue }
            clearOnce()
            Self.addCarrier(offsetHz: f - centreHz, amplitude: tone.amplitude * Self.response(f), deviationHz: 0,
                            modulationHz: 0,
                            startPhase: startPhase(offsetHz: f - centreHz, timeSeconds: timeSeconds, blockPhase: blockPhase), timeOffset: 0, sampleRateHz: samplesPerSecond,
                            into: &dynamicScratch)
        }
        for burst in bursts(sweepFrequencyHz: sweepFrequencyHz, blockIndex: blockIndex) {
            let f = Double(sweepFrequencyHz) + burst.offsetHz
            // outside the band a narrower radio sees it would alias in
            guard abs(f - centreHz) < halfBandwidthHz else { continue }
            clearOnce()
            Self.addCarrier(offsetHz: f - centreHz, amplitude: burst.amplitude * Self.response(f), deviationHz: 400_000,
                            modulationHz: 150_000, startPhase: blockPhase, timeOffset: 0,
                            sampleRateHz: samplesPerSecond, into: &dynamicScratch)
        }
        let blockEnd = timeSeconds + Double(payloadCount / 2) / samplesPerSecond
        for pulse in scene.pulsedCarriers where abs(pulse.frequencyHz - centreHz) < halfBandwidthHz {
            var rendered = false
            pulse.pulses(from: timeSeconds, to: blockEnd) { on, off in
                if !rendered {
                    for i in pulseScratch.indices { pulseScratch[i] = 0 }
                    Self.addCarrier(offsetHz: pulse.frequencyHz - centreHz,
                                    amplitude: pulse.amplitude * Self.response(pulse.frequencyHz), deviationHz: 0,
                                    modulationHz: 0,
                                    startPhase: startPhase(offsetHz: pulse.frequencyHz - centreHz,
                                                           timeSeconds: timeSeconds, blockPhase: blockPhase), timeOffset: 0,
                                    sampleRateHz: samplesPerSecond, into: &pulseScratch)
                    rendered = true
                }
                clearOnce()
                // samples whose time lies in [on, off): sample j is at timeSeconds + j / rate
                let samples = payloadCount / 2
                let first = max(0, min(samples, Int(((on - timeSeconds) * samplesPerSecond).rounded(.up))))
                let last = max(first, min(samples, Int(((off - timeSeconds) * samplesPerSecond).rounded(.up))))
                for k in (2 * first)..<(2 * last) { dynamicScratch[k] += pulseScratch[k] }
            }
        }
        for emitter in scene.packetEmitters {
            emitter.packets(from: timeSeconds, to: blockEnd, seed: scene.seed) { channel in
                addPacket(centreHz: channel, widthHz: emitter.widthHz, amplitude: emitter.amplitude,
                          tunedHz: centreHz, phase: blockPhase, clear: clearOnce)
            }
        }
        return any
    }

    /// widest piece of a packet drawn as one FM carrier [Hz]; wider packets
    /// (Wi-Fi) are drawn as several such pieces side by side
    static let packetPieceHz = 4e6

    /// Adds one packet `widthHz` wide at `centreHz`: FM pieces whose swing
    /// fills the width, each drawn only where it fits in the band the radio
    /// sees (a piece outside would alias).
    private func addPacket(centreHz: Double, widthHz: Double, amplitude: Double, tunedHz: Double, phase: Double,
                           clear: () -> Void) {
        let pieces = max(1, Int((widthHz / Self.packetPieceHz).rounded(.up)))
        let pieceWidth = widthHz / Double(pieces)
        // equal power split: the packet's total power does not depend on its pieces
        let pieceAmplitude = amplitude / Double(pieces).squareRoot()
        for piece in 0..<pieces {
            let f = centreHz - widthHz / 2 + (Double(piece) + 0.5) * pieceWidth
            guard abs(f - tunedHz) + pieceWidth / 2 < halfBandwidthHz else { continue }
            clear()
            Self.addCarrier(offsetHz: f - tunedHz, amplitude: pieceAmplitude * Self.response(f),
                            deviationHz: pieceWidth * 0.4,
                            modulationHz: pieceWidth / 20, startPhase: phase + Double(piece),
                            timeOffset: 0, sampleRateHz: samplesPerSecond, into: &dynamicScratch)
        }
    }

    /// The bursts present in one block: scheduled ones plus, inside the
    /// random-burst band, one with the scene's probability.
    func bursts(sweepFrequencyHz: UInt64, blockIndex: UInt64) -> [DemoScene.Burst] {
        var found = scene.scheduledBursts.filter { $0.blockIndex == blockIndex }
        if let band = scene.randomBurstBand, scene.randomBurstProbability > 0 {
            var random = SeededRandom(seed: SeededRandom.mix(scene.seed ^ 0xb0057) ^ blockIndex)
            if random.unit() < scene.randomBurstProbability {
                // inside one of the two kept quarters, clear of their edges
                let offset = (random.unit() < 0.5 ? 0 : 10e6) + 0.8e6 + 3.4e6 * random.unit()
                if band.contains(Double(sweepFrequencyHz) + offset) {
                    found.append(DemoScene.Burst(blockIndex: blockIndex, offsetHz: offset,
                                                 amplitude: scene.randomBurstAmplitude))
                }
            }
        }
        return found
    }
}
