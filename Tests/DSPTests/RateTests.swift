import Testing
@testable import DSP

@Suite struct FrameRateLimiterTests {
    /// Offers frames at `inputRate` for `seconds` and counts what passes.
    func emitted(limit: Double, inputRate: Double, seconds: Double, start: Double = 1000) -> [Double] {
        var limiter = FrameRateLimiter(maxFramesPerSecond: limit)
        var times: [Double] = []
        let frames = Int(inputRate * seconds)
        for k in 0..<frames {
            let t = start + Double(k) / inputRate
            if limiter.shouldEmit(at: t) { times.append(t) }
        }
        return times
    }

    @Test func capsTheRateWithoutDrift() {
        // 100 frames/s offered, 30 allowed: over 60 s exactly 30/s pass
        // (deadline grid, not now + period, which would give 25/s here).
        let times = emitted(limit: 30, inputRate: 100, seconds: 60)
        #expect(abs(times.count - 1800) <= 1)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 >= 0.03 - 1e-9 && $0 <= 0.04 + 1e-9 })
    }

    @Test func passesEverythingBelowTheLimit() {
        #expect(emitted(limit: 30, inputRate: 20, seconds: 10).count == 200)
        #expect(emitted(limit: 30, inputRate: 30, seconds: 10).count == 300)
    }

    @Test func resyncsAfterAStallInsteadOfBursting() {
        var limiter = FrameRateLimiter(maxFramesPerSecond: 10)
        let first = limiter.shouldEmit(at: 0)
        let tooSoon = limiter.shouldEmit(at: 0.05)
        #expect(first && !tooSoon)
        // 5 s stall, then frames every 10 ms: no catch-up burst.
        var passed = 0
        for k in 0..<10 where limiter.shouldEmit(at: 5 + Double(k) * 0.01) { passed += 1 }
        #expect(passed == 1)
        let onTheNewGrid = limiter.shouldEmit(at: 5.1)
        #expect(onTheNewGrid)
    }

    @Test func clockSteppingBackRestartsTheGrid() {
        var limiter = FrameRateLimiter(maxFramesPerSecond: 10)
        let answers = [100, 50, 50.05].map { limiter.shouldEmit(at: $0) }
        #expect(answers == [true, true, false])
    }

    @Test func noLimitForNonsenseRates() {
        for rate in [0.0, -3, .nan, .infinity] {
            var limiter = FrameRateLimiter(maxFramesPerSecond: rate)
            let answers = [1.0, 1, 1].map { limiter.shouldEmit(at: $0) }
            #expect(answers == [true, true, true])
        }
    }
}

@Suite struct RateMeterTests {
    @Test(arguments: [2.0, 30.0, 1000.0])
    func measuresASteadyRate(rate: Double) {
        var meter = RateMeter(windowSeconds: 1, capacity: 256)
        var t = 10.0
        var last = t
        for _ in 0..<Int(rate * 3) { meter.record(at: t); last = t; t += 1 / rate }
        // Asked between events, as a status line would be.
        let measured = meter.rate(at: last + 0.25 / rate)
        #expect(abs(measured - rate) / rate < 1e-6)
    }

    @Test func fallsToZeroWhenEventsStop() {
        var meter = RateMeter()
        for k in 0..<30 { meter.record(at: Double(k) / 30) }
        let running = meter.rate(at: 1)
        let stopped = meter.rate(at: 2.5)
        #expect(abs(running - 30) < 1e-6)
        #expect(stopped == 0)
    }

    @Test func followsARateChange() {
        var meter = RateMeter()
        var t = 0.0
        for _ in 0..<60 { meter.record(at: t); t += 1.0 / 30 }
        for _ in 0..<20 { meter.record(at: t); t += 1.0 / 10 }
        let measured = meter.rate(at: t)
        #expect(abs(measured - 10) < 1e-6)
    }
}
