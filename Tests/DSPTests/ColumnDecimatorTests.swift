import Foundation
import Signals
import Testing
@testable import DSP

/// The definition, written out plainly: every column scans every bin.
enum ReferenceDecimator {
    static func decimate(
        startHz: Double, binWidthHz: Double, bins: [Float], visible: FrequencyRange, columns: Int,
        detector: ColumnDetector
    ) -> [Float] {
        let columnWidth = visible.spanHz / Double(columns)
        func centre(_ i: Int) -> Double { startHz + (Double(i) + 0.5) * binWidthHz }
        var out = [Float](repeating: .nan, count: columns)
        for c in 0..<columns {
            let lower = visible.lowerHz + Double(c) * columnWidth
            let upper = visible.lowerHz + Double(c + 1) * columnWidth
            var members = bins.indices.filter { centre($0) >= lower && centre($0) < upper }
            if members.isEmpty {
                let under = Int(((lower + upper) / 2 - startHz) / binWidthHz + 1e6) - 1_000_000
                if bins.indices.contains(under) { members = [under] }
            }
            let values = members.map { bins[$0] }.filter { !$0.isNaN }
            guard !values.isEmpty else { continue }
            switch detector {
            case .peak:
                out[c] = values.max()!
            case .mean:
                let linear = values.map { pow(10, Double($0) / 10) }.reduce(0, +) / Double(values.count)
                out[c] = Float(10 * log10(linear))
            }
        }
        return out
    }
}

@Suite struct ColumnDecimatorTests {
    func range(_ lower: Double, _ upper: Double) -> FrequencyRange { FrequencyRange(lowerHz: lower, upperHz: upper)! }

    func frame(start: Double, width: Double, _ bins: [Float]) -> SpectrumFrame {
        SpectrumFrame(startHz: start, binWidthHz: width, timestamp: 0, powerDB: bins)
    }

    func same(_ a: [Float], _ b: [Float], tolerance: Float) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            (x.isNaN && y.isNaN) || (x == y) || abs(x - y) <= tolerance
        }
    }

    @Test func handCheckedFullPartialAndWideViews() {
        // 4 bins of 100 Hz from 0 Hz, centres 50, 150, 250, 350.
        let f = frame(start: 0, width: 100, [-10, -20, -30, -40])
        let decimator = ColumnDecimator()
        #expect(decimator.decimate(f, visible: range(0, 400), columns: 2) == [-10, -30])
        // Wider than the data: outer columns have no data.
        let wide = decimator.decimate(f, visible: range(-200, 600), columns: 4)
        #expect(wide[0].isNaN && wide[3].isNaN)
        #expect(Array(wide[1...2]) == [-10, -30])
        // Narrower: columns of 50 Hz; [100,150) holds no centre → bin under 125 Hz.
        #expect(decimator.decimate(f, visible: range(50, 250), columns: 4) == [-10, -20, -20, -30])
        decimator.detector = .mean
        let mean = decimator.decimate(f, visible: range(0, 400), columns: 2)
        #expect(abs(mean[0] - Float(10 * log10((0.1 + 0.01) / 2))) < 1e-4)
    }

    @Test func nanBinsAreIgnoredAndAllNaNColumnsStayNaN() {
        let f = frame(start: 0, width: 1, [.nan, -5, .nan, .nan])
        let out = ColumnDecimator().decimate(f, visible: range(0, 4), columns: 2)
        #expect(out[0] == -5)
        #expect(out[1].isNaN)
    }

    @Test func oneBinBurstSurvivesPeakAndIsDilutedByMean() {
        var rng = SeededRandom(seed: 21)
        var bins = (0..<8192).map { _ in Float(-80 + Double.random(in: -1...1, using: &rng)) }
        let burst = 5000
        bins[burst] = -40  // +40 dB above the floor, one bin
        let f = frame(start: 100e6, width: 2441.4, bins)
        let visible = f.range!
        let peak = ColumnDecimator(detector: .peak).decimate(f, visible: visible, columns: 80)
        let mean = ColumnDecimator(detector: .mean).decimate(f, visible: visible, columns: 80)
        let column = Int((f.binCenterHz(burst) - visible.lowerHz) / (visible.spanHz / 80))
        #expect(peak[column] == -40)
        #expect(peak.indices.filter { $0 != column }.allSatisfy { peak[$0] < -78 })
        // ~102 bins share the column: the mean lifts the floor by ≈ 10·log10(10⁴/102) ≈ 20 dB, not 40.
        #expect(mean[column] > -62 && mean[column] < -58)
    }

    @Test(arguments: [ColumnDetector.peak, .mean])
    func fastPathMatchesTheReferenceOnRandomFrames(detector: ColumnDetector) {
        var rng = SeededRandom(seed: 99)
        let decimator = ColumnDecimator(detector: detector)
        for trial in 0..<200 {
            let count = Int.random(in: 1...600, using: &rng)
            let start = Double.random(in: -1e6...1e9, using: &rng)
            let width = Double.random(in: 0.5...1e5, using: &rng)
            var bins = (0..<count).map { _ in Float.random(in: -140...0, using: &rng) }
            for _ in 0..<(count / 10) { bins[Int.random(in: 0..<count, using: &rng)] = .nan }
            let span = Double(count) * width
            // Visible band from well inside to well outside the data.
            let lower = start + span * Double.random(in: -0.5...0.9, using: &rng)
            let upper = lower + span * Double.random(in: 0.01...2, using: &rng)
            let columns = Int.random(in: 1...300, using: &rng)
            let f = frame(start: start, width: width, bins)
            let visible = range(lower, upper)
            let fast = decimator.decimate(f, visible: visible, columns: columns)
            // A second pass hits the cached geometry.
            let again = decimator.decimate(f, visible: visible, columns: columns)
            let reference = ReferenceDecimator.decimate(
                startHz: start, binWidthHz: width, bins: bins, visible: visible, columns: columns, detector: detector)
            let tolerance: Float = detector == .peak ? 0 : 1e-3
            #expect(same(fast, reference, tolerance: tolerance), "trial \(trial)")
            #expect(same(again, fast, tolerance: 0))
        }
    }

    @Test func geometryChangeRecomputesColumns() {
        let decimator = ColumnDecimator()
        let f = frame(start: 0, width: 1, [1, 2, 3, 4])
        #expect(decimator.decimate(f, visible: range(0, 4), columns: 2) == [2, 4])
        #expect(decimator.decimate(f, visible: range(0, 4), columns: 4) == [1, 2, 3, 4])
        #expect(decimator.decimate(frame(start: 2, width: 1, [1, 2, 3, 4]), visible: range(0, 4), columns: 2)[1] == 2)
    }

    @Test func badGeometryGivesNaNNotACrash() {
        let decimator = ColumnDecimator()
        for width in [0.0, -1, .nan, .infinity] {
            let out = decimator.decimate(frame(start: 0, width: width, [1, 2]), visible: range(0, 2), columns: 3)
            #expect(out.count == 3 && out.allSatisfy(\.isNaN))
        }
        let noBins = decimator.decimate(frame(start: 0, width: 1, []), visible: range(0, 2), columns: 2)
        #expect(noBins.count == 2 && noBins.allSatisfy(\.isNaN))
        let noColumns = decimator.decimate(frame(start: 0, width: 1, [1]), visible: range(0, 2), columns: 0)
        #expect(noColumns.isEmpty)
    }
}
