import Foundation
import Testing
@testable import ECG

/// The rhythm engine over beat times alone: seconds, heart rate, unreadable stretches, episodes.
@Suite struct BeatRhythmMonitorTests {
    /// beats every `interval` samples from `start` for `count` beats
    static func regular(from start: Int, interval: Int, count: Int) -> [Int] { (0..<count).map { start + $0 * interval } }

    @Test func aRegularListIsSinusRhythmAtItsRate() {
        // 75 beats/min on a 1 kHz clock for 5 minutes
        let list = BeatList(name: "regular", sampleRate: 1000, samples: Self.regular(from: 0, interval: 800, count: 375))
        let analysis = BeatRhythmAnalysis.analyze(list)
        #expect(analysis.secondCodes.count == 299)   // the last beat at 299.2 s
        #expect(analysis.secondCodes.dropFirst(5).allSatisfy { $0 == .normal }, "\(Set(analysis.secondCodes))")
        #expect(abs((analysis.heartRate ?? 0) - 75) < 0.01)
        #expect(analysis.afBurden == 0)
        #expect(analysis.episodes.isEmpty)
    }

    /// A list with 20 s missing (a detector that lost the signal) is unreadable there, then reads again.
    @Test func aGapIsUnreadableNotARhythm() {
        let before = Self.regular(from: 0, interval: 800, count: 150)          // 0–119.2 s
        let after = Self.regular(from: 140_000, interval: 800, count: 150)     // 140–259.2 s
        let list = BeatList(name: "gap", sampleRate: 1000, samples: before + after, endSample: 260_000)
        let analysis = BeatRhythmAnalysis.analyze(list)
        let codes = analysis.secondCodes
        #expect(codes.count == 260)
        // seconds 124…140 (beyond a 3 s gap, before the next beat) are unreadable
        #expect(codes[123..<139].allSatisfy { $0 == .unreadable }, "\(codes[118..<145])")
        #expect(!codes.contains(.af))
        #expect(codes.suffix(60).allSatisfy { $0 == .normal }, "\(Set(codes.suffix(60)))")
        #expect(analysis.episodes.contains { $0.code == .unreadable })
    }

    @Test func anAFEpisodeGoesOnThroughUnreadableBeats() {
        var log = RhythmEventLog()
        for second in 1...40 { log.observe(.af, time: Double(second), heartRate: 110) }
        for second in 41...70 { log.observe(.unreadable, time: Double(second), heartRate: nil) }
        for second in 71...100 { log.observe(.af, time: Double(second), heartRate: 110) }
        for second in 101...130 { log.observe(.normal, time: Double(second), heartRate: 70) }
        let af = log.events.filter { $0.code == .af }
        #expect(af.count == 1)
        #expect(af.first?.time == 1 && af.first?.end == 100, "\(af)")
        // noisy signal still ends one (a signal's bridge is unchanged)
        var noisy = RhythmEventLog()
        for second in 1...40 { noisy.observe(.af, time: Double(second), heartRate: 110) }
        for second in 41...70 { noisy.observe(.noisy, time: Double(second), heartRate: nil) }
        for second in 71...110 { noisy.observe(.af, time: Double(second), heartRate: 110) }
        #expect(noisy.events.filter { $0.code == .af }.count == 2)
    }

    /// Beats fed one at a time as they arrive (a strap's RR intervals) give the same seconds as the list read whole.
    @Test func beatsFedAsTheyArriveReadAsTheWholeList() {
        var samples = Self.regular(from: 0, interval: 800, count: 100)
        // an irregular stretch after 80 s
        var time = samples.last!
        for index in 0..<120 {
            time += [430, 910, 620, 1180, 540, 760][index % 6]
            samples.append(time)
        }
        let whole = BeatRhythmMonitor(BeatList(name: "whole", sampleRate: 1000, samples: samples))
        let live = BeatRhythmMonitor(liveName: "live", sampleRate: 1000)
        var next = 0
        var second = 1
        while whole.sample(atSecond: second) <= samples.last! {
            while next < samples.count, samples[next] <= live.sample(atSecond: second) {
                live.append(beatAt: samples[next])
                next += 1
            }
            whole.advance(toSecond: second)
            live.advance(toSecond: second)
            #expect(live.status.code == whole.status.code && live.heartRate == whole.heartRate, "second \(second)")
            second += 1
        }
        #expect(live.beatCount == whole.beatCount && live.rhythm.afBurden == whole.rhythm.afBurden)
        // a beat at or before the last one is ignored
        live.append(beatAt: samples.last!)
        #expect(live.beatCount == whole.beatCount)
    }
}
