import Foundation
import Signals
import Testing

@Suite struct FrequencyScaleTests {
    func range(_ lower: Double, _ upper: Double) -> FrequencyRange { FrequencyRange(lowerHz: lower, upperHz: upper)! }

    @Test func logarithmicColumnsHaveEqualRatios() {
        let scale = FrequencyScale(band: range(30e6, 1e9), logarithmic: true)
        #expect(scale.isLogarithmic)
        // the geometric mean is halfway across
        #expect(abs(scale.hz(atFraction: 0.5) - (30e6 * 1e9).squareRoot()) < 1)
        for c in 0..<100 {
            let ratio = scale.lowerHz(ofColumn: c + 1, of: 100) / scale.lowerHz(ofColumn: c, of: 100)
            #expect(abs(ratio - pow(1e9 / 30e6, 0.01)) < 1e-12)
            // a column's centre maps back to the column
            #expect(scale.column(ofHz: scale.centerHz(ofColumn: c, of: 100), of: 100) == c)
        }
        #expect(scale.column(ofHz: 1e9 * 0.999999, of: 100) == 99)
        #expect(scale.column(ofHz: 10e6, of: 100) < 0)
        let linear = FrequencyScale.linear(range(30e6, 1e9))
        #expect(abs(linear.hz(atFraction: 0.5) - 515e6) < 1)
    }

    @Test func aBandFromZeroIsLinearAndRefused() {
        let scale = FrequencyScale(band: range(0, 30e6), logarithmic: true)
        #expect(!scale.isLogarithmic)
        #expect(throws: LogFrequencyError.self) { try LogFrequencyError.check(range(0, 30e6)) }
        #expect(throws: Never.self) { try LogFrequencyError.check(range(150e3, 30e6)) }
        let message = LogFrequencyError(band: range(0, 30e6)).description
        #expect(!message.contains("\n") && message.contains("0 Hz"))
    }

    @Test func ticksAreOneTwoFiveDecades() {
        #expect(FrequencyScale(band: range(30e6, 1e9), logarithmic: true).logTicks(targetCount: 8)
                    == [50e6, 100e6, 200e6, 500e6, 1e9])
        #expect(FrequencyScale(band: range(150e3, 30e6), logarithmic: true).logTicks(targetCount: 8)
                    == [200e3, 500e3, 1e6, 2e6, 5e6, 10e6, 20e6])
        // room for more: 1…9 × 10ⁿ
        let dense = FrequencyScale(band: range(30e6, 1e9), logarithmic: true).logTicks(targetCount: 30)
        #expect(dense.first == 30e6 && dense.contains(70e6) && dense.last == 1e9 && dense.count == 17)
        // many decades, little room: decades only, then every other
        #expect(FrequencyScale(band: range(1e3, 1e9), logarithmic: true).logTicks(targetCount: 7)
                    == [1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9])
        #expect(FrequencyScale(band: range(1e3, 1e9), logarithmic: true).logTicks(targetCount: 4) == [1e3, 1e5, 1e7, 1e9])
        #expect(FrequencyScale.linear(range(30e6, 1e9)).logTicks(targetCount: 8).isEmpty)
    }

    /// Under a decade (the FM band of a real rtl_power capture, 82.62–110.55 MHz) 1…9 × 10ⁿ
    /// gives only 90M and 100M: the axis takes a linear axis's 1-2-5 steps instead.
    @Test func aBandUnderADecadeGetsLinearSteps() {
        let ticks = FrequencyScale(band: range(82.62e6, 110.55e6), logarithmic: true).logTicks(targetCount: 24)
        // 27.93 MHz / 24 = 1.16 MHz: the next 1-2-5 step is 2 MHz, from 84 to 110 MHz
        let expected = stride(from: 84.0, through: 110.0, by: 2.0).map { $0 * 1e6 }
        #expect(ticks.count == expected.count)
        for (tick, value) in zip(ticks, expected) { #expect(abs(tick - value) < 1) }
        // a wider view of the same band still gets the decades' own values
        #expect(FrequencyScale(band: range(82.62e6, 110.55e6), logarithmic: true).logTicks(targetCount: 4) == [90e6, 100e6])
    }
}
