import Foundation
import Signals
import Testing
@testable import DSP

/// The logarithmic column layout (`--log-frequency`) through the same
/// decimator as the linear one: checked against column edges computed here
/// from their definition, lower · (upper / lower)^(c / columns).
@Suite struct LogColumnDecimatorTests {
    func range(_ lower: Double, _ upper: Double) -> FrequencyRange { FrequencyRange(lowerHz: lower, upperHz: upper)! }

    /// The definition written out: edges by pow, every bin whose centre lies in a column, max or linear mean.
    static func reference(startHz: Double, binWidthHz: Double, bins: [Float], lower: Double, upper: Double,
                          columns: Int, detector: ColumnDetector) -> [Float] {
        func edge(_ c: Int) -> Double { lower * pow(upper / lower, Double(c) / Double(columns)) }
        func centre(_ i: Int) -> Double { startHz + (Double(i) + 0.5) * binWidthHz }
        return (0..<columns).map { c in
            var members = bins.indices.filter { centre($0) >= edge(c) && centre($0) < edge(c + 1) }
            if members.isEmpty {
                let middle = (edge(c) + edge(c + 1)) / 2
                let under = Int(((middle - startHz) / binWidthHz).rounded(.down))
                if bins.indices.contains(under) { members = [under] }
            }
            let values = members.map { bins[$0] }.filter { !$0.isNaN }
            guard !values.isEmpty else { return .nan }
            switch detector {
            case .peak: return values.max()!
            case .mean:
                return Float(10 * log10(values.map { pow(10, Double($0) / 10) }.reduce(0, +) / Double(values.count)))
            }
        }
    }

    @Test func decadesSplitEvenly() {
        // 10 Hz–1 kHz in two columns: [10, 100) and [100, 1000); bins of 1 Hz from 0
        let bins = (0..<1000).map { Float($0 < 100 ? -50 : -20) }
        let frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: bins)
        let out = ColumnDecimator(detector: .peak).decimate(frame, scale: FrequencyScale(band: range(10, 1000), logarithmic: true),
                                                            columns: 2)
        #expect(out == [-50, -20])
        // linear, the same band splits at 505 Hz: the first column holds loud bins too
        #expect(ColumnDecimator().decimate(frame, visible: range(10, 1000), columns: 2) == [-20, -20])
    }

    @Test func aToneLandsInItsLogColumnAndTheMeanKeepsEveryBin() {
        // 30 MHz–1 GHz, 100 kHz bins: a one-bin tone at 100 MHz, over a flat floor
        let start = 30e6, width = 100e3
        var bins = [Float](repeating: -90, count: Int((1e9 - start) / width))
        let tone = Int((100e6 - start) / width)
        bins[tone] = -30
        let frame = SpectrumFrame(startHz: start, binWidthHz: width, timestamp: 0, powerDB: bins)
        let scale = FrequencyScale(band: range(30e6, 1e9), logarithmic: true)
        let columns = 160
        let peak = ColumnDecimator(detector: .peak).decimate(frame, scale: scale, columns: columns)
        let expected = Int((log(frame.binCenterHz(tone) / 30e6) / log(1e9 / 30e6) * Double(columns)).rounded(.down))
        #expect(peak[expected] == -30)
        #expect(peak.indices.allSatisfy { $0 == expected || peak[$0] == -90 })
        // the mean over the tone's column: its bins counted from the edges, the tone's linear power shared among them
        let mean = ColumnDecimator(detector: .mean).decimate(frame, scale: scale, columns: columns)
        let lowEdge = 30e6 * pow(1e9 / 30e6, Double(expected) / Double(columns))
        let highEdge = 30e6 * pow(1e9 / 30e6, Double(expected + 1) / Double(columns))
        let members = bins.indices.filter { frame.binCenterHz($0) >= lowEdge && frame.binCenterHz($0) < highEdge }.count
        let wanted = 10 * log10((pow(10, -3.0) + Double(members - 1) * pow(10, -9.0)) / Double(members))
        #expect(abs(Double(mean[expected]) - wanted) < 0.01, "\(members) bins: \(mean[expected]) vs \(wanted)")
        // low columns are narrower than high ones: 30 MHz's column holds fewer bins than 1 GHz's
        #expect(scale.narrowestColumnHz(columns: columns) < (1e9 - 30e6) / Double(columns) / 5)
    }

    @Test(arguments: [ColumnDetector.peak, .mean])
    func fastPathMatchesTheReferenceOnRandomFrames(detector: ColumnDetector) {
        var rng = SeededRandom(seed: 7)
        let decimator = ColumnDecimator(detector: detector)
        for trial in 0..<150 {
            let count = Int.random(in: 1...800, using: &rng)
            let start = Double.random(in: 1e3...1e9, using: &rng)
            let width = Double.random(in: 1...1e5, using: &rng)
            var bins = (0..<count).map { _ in Float.random(in: -140...0, using: &rng) }
            for _ in 0..<(count / 10) { bins[Int.random(in: 0..<count, using: &rng)] = .nan }
            let span = Double(count) * width
            let lower = max(1, start + span * Double.random(in: -0.5...0.9, using: &rng))
            let upper = lower + span * Double.random(in: 0.01...3, using: &rng)
            let columns = Int.random(in: 1...300, using: &rng)
            let frame = SpectrumFrame(startHz: start, binWidthHz: width, timestamp: 0, powerDB: bins)
            let fast = decimator.decimate(frame, scale: FrequencyScale(band: range(lower, upper), logarithmic: true), columns: columns)
            let reference = Self.reference(startHz: start, binWidthHz: width, bins: bins, lower: lower, upper: upper,
                                           columns: columns, detector: detector)
            let tolerance: Float = detector == .peak ? 0 : 1e-3
            let same = fast.count == reference.count && zip(fast, reference).allSatisfy { a, b in
                (a.isNaN && b.isNaN) || abs(a - b) <= tolerance
            }
            #expect(same, "trial \(trial)")
        }
    }
}
