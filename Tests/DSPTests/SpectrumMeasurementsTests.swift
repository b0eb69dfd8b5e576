import Foundation
import Testing
@testable import DSP

@Suite struct SpectrumMeasurementsTests {
    /// The peak rule written the slow, obvious way: for each local maximum,
    /// walk out on each side to the nearest strictly higher value (or the end)
    /// and take the lowest value passed.
    static func referencePeaks(_ values: [Float], excursion: Float) -> [Int] {
        let v = values.map { $0.isNaN ? -Float.infinity : $0 }
        var result: [Int] = []
        for i in v.indices where v[i].isFinite {
            if i > 0 && v[i - 1] >= v[i] { continue }
            var end = i
            while end + 1 < v.count && v[end + 1] == v[i] { end += 1 }
            if end + 1 < v.count && v[end + 1] > v[i] { continue }
            var leftLow = v[i], j = i
            while j >= 0 { leftLow = min(leftLow, v[j]); if v[j] > v[i] { break }; j -= 1 }
            var rightLow = v[i]; j = end
            while j < v.count { rightLow = min(rightLow, v[j]); if v[j] > v[i] { break }; j += 1 }
            if v[i] - leftLow >= excursion && v[i] - rightLow >= excursion { result.append(i) }
        }
        return result.sorted { v[$0] != v[$1] ? v[$0] > v[$1] : $0 < $1 }
    }

    @Test func aPeakMustRiseTheExcursionAboveTheLowestPointTowardsAnyHigherPeak() {
        let trace: [Float] = [0, 10, 3, 8, 0]
        // 8 is only 5 dB above the dip (3) between it and the higher 10
        #expect(SpectrumMeasurements.peaks(trace, excursionDB: 6, count: 5).map(\.bin) == [1])
        #expect(SpectrumMeasurements.peaks(trace, excursionDB: 5, count: 5).map(\.bin) == [1, 3])
        // a plateau counts once, by its first bin; the trace's ends are never peaks
        #expect(SpectrumMeasurements.peaks([0, 9, 9, 9, 0, 20], excursionDB: 6, count: 5).map(\.bin) == [1])
        // no data is no peak and no dip
        #expect(SpectrumMeasurements.peaks([0, .nan, 12, 0], excursionDB: 6, count: 5).map(\.bin) == [2])
    }

    @Test func peaksAgreeWithTheSlowReferenceOnRandomTraces() {
        var state: UInt64 = 7
        for round in 0..<300 {
            let n = 1 + round % 97
            let trace: [Float] = (0..<n).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let draw = Int(state >> 58)  // 0…63: small integers make plateaus and ties
                return draw == 0 ? .nan : Float(draw % 24)
            }
            let excursion = Float(round % 7)
            let fast = SpectrumMeasurements.peaks(trace, excursionDB: excursion, count: n).map(\.bin)
            #expect(fast == Self.referencePeaks(trace, excursion: excursion), "trace \(trace), excursion \(excursion)")
        }
    }

    @Test func occupiedBandwidthOfAFlatBandIsItsMiddle99Percent() throws {
        // ten bins of equal power, 1 kHz each from 100 kHz: 0.5 % of the power lies in the first 0.05 bin
        let flat = [Float](repeating: -20, count: 10)
        let band = try #require(SpectrumMeasurements.occupiedBandwidth(flat, startHz: 100_000, binWidthHz: 1000, percent: 99))
        #expect(abs(band.startHz - 100_050) < 1e-6 && abs(band.stopHz - 109_950) < 1e-6, "\(band)")
        // one bin 40 dB over nine: total 1 + 9·10⁻⁴; 0.5 % of it (5.0045·10⁻³) is past bins 0–3 (4·10⁻⁴ together),
        // so the band starts 4.6045·10⁻³ into bin 4 and stops 4.5045·10⁻³ before its end
        var tone = [Float](repeating: -40, count: 10)
        tone[4] = 0
        let narrow = try #require(SpectrumMeasurements.occupiedBandwidth(tone, startHz: 0, binWidthHz: 1000, percent: 99))
        let tail = (1 + 9e-4) * 0.005
        #expect(abs(narrow.startHz - (4000 + (tail - 4e-4) * 1000)) < 1e-6, "\(narrow)")
        #expect(abs(narrow.stopHz - (5000 - (tail - 5e-4) * 1000)) < 1e-6, "\(narrow)")
        #expect(SpectrumMeasurements.occupiedBandwidth([.nan, .nan], startHz: 0, binWidthHz: 1) == nil)
    }

    @Test func holdsKeepTheLargestTheSmallestAndTheLinearMeanPerBin() {
        var high = TraceHold(kind: .max), low = TraceHold(kind: .min), mean = TraceHold(kind: .avg)
        let sweeps: [[Float]] = [[-10, -30, .nan], [-20, -10, .nan], [-10, -20, .nan]]
        for sweep in sweeps {
            high.add(startHz: 0, binWidthHz: 10, decibels: sweep)
            low.add(startHz: 0, binWidthHz: 10, decibels: sweep)
            mean.add(startHz: 0, binWidthHz: 10, decibels: sweep)
        }
        #expect(high.decibels[0...1] == [-10, -10] && high.decibels[2].isNaN)
        #expect(low.decibels[0...1] == [-20, -30])
        // bin 0: (0.1 + 0.01 + 0.1) / 3 = 0.07 → −11.55 dB (not the −13.3 dB mean of the dB values)
        #expect(abs(Double(mean.decibels[0]) - 10 * log10(0.21 / 3)) < 1e-4)
        #expect(!high.add(startHz: 5, binWidthHz: 10, decibels: [0, 0, 0]) && high.skipped == 1 && high.sweeps == 3)
        #expect(high.binCenterHz(1) == 15)
    }
}
