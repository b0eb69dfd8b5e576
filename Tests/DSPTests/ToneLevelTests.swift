import Foundation
import Signals
import Testing
@testable import DSP

/// A tone's level read from the bins of a windowed FFT (`ToneLevel`),
/// checked against a direct DFT computed here in Double: the bins of a tone
/// of known power at fractional-bin offsets, in tscope's |X/N|² scale.
@Suite struct ToneLevelTests {
    /// |X_k / N|² in dB for k in 0..<N of a complex tone of power `powerDB`
    /// at `toneBin` bins (fractional), windowed by `windowing`: the plain DFT sum.
    static func directSpectrum(_ windowing: FFTWindowing, toneBin: Double, powerDB: Double) -> [Float] {
        let n = windowing.length
        let amplitude = pow(10, powerDB / 20)
        let weights = (0..<n).map { windowing.weight($0) }
        return (0..<n).map { k in
            var re = 0.0, im = 0.0
            for t in 0..<n {
                // tone e^(2πi·toneBin·t/N) times the DFT kernel e^(−2πi·k·t/N)
                let phase = 2 * Double.pi * (toneBin - Double(k)) * Double(t) / Double(n)
                re += amplitude * weights[t] * cos(phase)
                im += amplitude * weights[t] * sin(phase)
            }
            return Float(10 * log10((re * re + im * im) / Double(n * n)))
        }
    }

    static let windows: [FFTWindowing] = [
        FFTWindowing(.hann, length: 256), FFTWindowing(.hann, length: 20), FFTWindowing(.periodicHann, length: 128),
        FFTWindowing(.rtlPower(.blackmanHarris), length: 256), FFTWindowing(.rtlPower(.rectangle), length: 256),
        FFTWindowing(.rtlPower(.hamming), length: 256), FFTWindowing(.rtlPower(.bartlett), length: 256),
    ]

    static let offsets: [Double] = [0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, -0.1, -0.3, -0.45]

    /// At every offset and window: level within 0.05 dB, frequency within
    /// 0.01 bin; the bin alone reads up to 1.4 dB (Hann scalloping) plus
    /// the coherent gain (−6.02 dB) low.
    @Test(arguments: windows)
    func aToneReadsItsPowerAndFrequencyWhereverItFalls(windowing: FFTWindowing) throws {
        let powerDB = -20.0
        var worstBefore = 0.0, worstAfter = 0.0
        for offset in Self.offsets {
            let toneBin = Double(windowing.length / 4) + offset
            let bins = Self.directSpectrum(windowing, toneBin: toneBin, powerDB: powerDB)
            // bin k centred on k Hz
            let frame = SpectrumFrame(startHz: -0.5, binWidthHz: 1, timestamp: 0, powerDB: bins, windowing: windowing)
            let peak = try #require(bins.indices.max { bins[$0] < bins[$1] })
            let reading = ToneLevel.read(bin: peak, of: frame)
            let error = Double(reading.decibels) - powerDB
            worstBefore = max(worstBefore, abs(Double(bins[peak]) - powerDB))
            worstAfter = max(worstAfter, abs(error))
            #expect(abs(error) < 0.05, "\(windowing) at \(offset) bin: \(reading.decibels) dB, sent \(powerDB) dB")
            #expect(abs(reading.hz - toneBin) < 0.01, "\(windowing) at \(offset) bin: \(reading.hz) Hz, sent \(toneBin)")
        }
        print("ToneLevel \(windowing.window) N=\(windowing.length): worst peak-bin error \(worstBefore) dB, corrected \(worstAfter) dB")
        if windowing.window == .hann, windowing.length == 256 {
            // −6.02 dB coherent gain plus up to −1.42 dB scalloping at half a bin
            #expect(worstBefore > 7.3 && worstBefore < 7.6, "\(worstBefore)")
        }
    }

    /// The ratio estimator against Grandke's closed form for the periodic
    /// Hann window: δ = (2α − 1)/(α + 1), α the ratio of neighbour to peak magnitude.
    @Test func theTableAgreesWithGrandkesClosedFormForHann() throws {
        let response = try #require(WindowToneResponse(FFTWindowing(.periodicHann, length: 1024)))
        for delta in stride(from: 0.05, through: 0.5, by: 0.05) {
            // Hann's magnitude response near the main lobe: |sin(πδ)/(πδ)| / |1 − δ²| (up to a constant)
            func magnitude(_ d: Double) -> Double { d == 0 ? 1 : abs(sin(Double.pi * d) / (Double.pi * d) / (1 - d * d)) }
            let alpha = magnitude(1 - delta) / magnitude(delta)
            let grandke = (2 * alpha - 1) / (alpha + 1)
            let ours = response.offset(forRatio: alpha * alpha)
            #expect(abs(ours - grandke) < 0.002, "δ \(delta): table \(ours), closed form \(grandke)")
            #expect(abs(ours - delta) < 0.002)
        }
        #expect(abs(Double(response.gainDB(offsetBins: 0)) - 20 * log10(0.5)) < 0.001)
        #expect(abs(Double(response.gainDB(offsetBins: 0.5) - response.gainDB(offsetBins: 0)) + 1.42) < 0.01)
    }

    /// A device's own RBW filter made the points (no windowing): read as they are, no double correction.
    @Test func aDeviceFilteredFrameIsReadAsItIs() {
        let frame = SpectrumFrame(startHz: 0, binWidthHz: 1000, timestamp: 0, powerDB: [-90, -31, -30.5, -33, -90])
        let reading = ToneLevel.read(bin: 2, of: frame)
        #expect(reading.decibels == -30.5 && reading.hz == 2500)
    }

    /// Off a peak the bin gets the coherent gain only; NaN and edges never crash.
    @Test func offAPeakOnlyTheCoherentGainAndEdgesAreSafe() throws {
        let windowing = FFTWindowing(.hann, length: 64)
        let bins = Self.directSpectrum(windowing, toneBin: 16, powerDB: 0)
        let frame = SpectrumFrame(startHz: -0.5, binWidthHz: 1, timestamp: 0, powerDB: bins, windowing: windowing)
        let gain = try #require(WindowToneResponse(windowing)).gainDB(offsetBins: 0)
        let side = ToneLevel.read(bin: 17, of: frame)
        #expect(side.decibels == bins[17] - gain && side.hz == 17)
        #expect(ToneLevel.read(bin: -1, of: frame).decibels.isNaN)
        #expect(ToneLevel.read(bin: 64, of: frame).decibels.isNaN)
        var lonely = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [-10, .nan], windowing: windowing)
        #expect(abs(ToneLevel.read(bin: 0, of: lonely).decibels - (-10 - gain)) < 1e-4)
        lonely.powerDB = [.nan]
        #expect(ToneLevel.read(bin: 0, of: lonely).decibels.isNaN)
        #expect(WindowToneResponse(FFTWindowing(.hann, length: 1)) == nil)
    }

    /// meter --peaks: each peak reads its tone, highest first.
    @Test func bandMeasurementsReadEachPeaksTone() throws {
        let windowing = FFTWindowing(.hann, length: 256)
        let a = Self.directSpectrum(windowing, toneBin: 40.5, powerDB: -20)
        let b = Self.directSpectrum(windowing, toneBin: 90, powerDB: -20.5)
        // two tones, summed in power; −20 dB at half a bin reads −27.4 dB in its bin, −20.5 centred −26.5
        let bins = zip(a, b).map { Float(10 * log10(pow(10, Double($0) / 10) + pow(10, Double($1) / 10) + 1e-12)) }
        let frame = SpectrumFrame(startHz: -0.5, binWidthHz: 1, timestamp: 0, powerDB: bins, windowing: windowing)
        let measured = BandMeasurements.measure(frame, band: FrequencyRange(lowerHz: 10, upperHz: 120)!,
                                                occupiedPercent: nil, peakCount: 2, excursionDB: 6)
        #expect(measured.peaks.count == 2)
        #expect(abs(measured.peaks[0].hz - 40.5) < 0.02 && abs(measured.peaks[0].decibels + 20) < 0.05, "\(measured.peaks)")
        #expect(abs(measured.peaks[1].hz - 90) < 0.02 && abs(measured.peaks[1].decibels + 20.5) < 0.05, "\(measured.peaks)")
    }
}
