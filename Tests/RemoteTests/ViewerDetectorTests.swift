#if SensorLink
import DSP
import Foundation
@testable import Remote
import Signals
import Testing

/// Each viewer's detector on the sensor, in process (no network): the
/// levels it asks for are picked from frames that carry every detector,
/// frames it could not take yet are merged as that detector combines a
/// longer dwell, and the dwell it is told is its detector's.
struct ViewerDetectorTests {
    static let band = FrequencyRange(lowerHz: 100e6, upperHz: 100.004e6)!

    /// a hub whose analyzer runs `detector`, and one viewer asking for `wanted` at full resolution
    static func viewer(sensorDetector: SpectrumDetector = .peak, fromSamples: Bool = true,
                       wanted: String) throws -> (SensorHub, ViewerFeed) {
        let hub = SensorHub(
            analyzer: .init(name: "Test", kind: "hackrf", serial: nil, unit: .dB, isDemo: true,
                            tunableRange: FrequencyRange(lowerHz: 1e6, upperHz: 6e9)!, stallSeconds: 1,
                            detector: sensorDetector, detectsFromSamples: fromSamples),
            sweep: band, binWidthHz: 1e3, retune: { _, _ in })
        let feed = try #require(hub.join(peer: "ipv4:127.0.0.1:5000", mayControl: false))
        var request = Tscope_Remote_V1_ViewRequest()
        request.fullResolution = true
        request.detector = wanted
        try hub.apply(request, from: feed)
        return (hub, feed)
    }

    /// four bins; each detector's plane is its level in every bin
    static func frame(peak: Float, average: Float, sample: Float, cisprAverage: Float = -99,
                      carriesEvery: Bool = true) -> SpectrumFrame {
        let bins = 4
        let levels = DetectorLevels(peak: Array(repeating: peak, count: bins),
                                    average: Array(repeating: average, count: bins),
                                    sample: Array(repeating: sample, count: bins),
                                    cisprAverage: Array(repeating: cisprAverage, count: bins))
        return SpectrumFrame(startHz: band.lowerHz, binWidthHz: 1e3, timestamp: 1, powerDB: levels.peak,
                             everyDetector: carriesEvery ? levels : nil)
    }

    /// The messages waiting for the viewer up to and including its frame, notices apart.
    static func frameAndNotices(_ feed: ViewerFeed) async throws -> (Tscope_Remote_V1_Frame, [String]) {
        var notices: [String] = []
        for _ in 0..<8 {
            let message = try #require(await feed.next())
            switch message.message {
            case .frame(let frame): return (frame, notices)
            case .notice(let text): notices.append(text)
            default: continue
            }
        }
        Issue.record("no frame among the first 8 messages")
        throw CancellationError()
    }

    @Test func twoFramesMergeAsEachDetectorCombinesADwell() async throws {
        // the sensor runs peak; each viewer asks for its own
        let cases: [(wanted: String, expected: Float)] = [
            // the linear mean of −10 and −20 dB: 10·log10((0.1 + 0.01) / 2) = −12.596 dB
            ("average", -12.596), ("rms", -12.596),
            // the larger of 0 and +5
            ("peak", 5),
            // the newer: −33
            ("sample", -33),
            // the linear mean of the voltages of −20 and −40 dB: 20·log10((0.1 + 0.01) / 2) = −25.193 dB
            ("cispr-average", -25.193),
        ]
        for (wanted, expected) in cases {
            let (hub, feed) = try Self.viewer(wanted: wanted)
            hub.publish(Self.frame(peak: 0, average: -10, sample: -30, cisprAverage: -20), counters: .init())
            hub.publish(Self.frame(peak: 5, average: -20, sample: -33, cisprAverage: -40), counters: .init())
            let (frame, notices) = try await Self.frameAndNotices(feed)
            #expect(notices.isEmpty, "\(wanted): \(notices)")
            #expect(frame.merged == 2, "\(wanted): \(frame.merged) frames merged")
            #expect(frame.detector == (wanted == "rms" ? "rms" : wanted))
            #expect(frame.power.count == 4)
            for level in frame.power {
                #expect(abs(level - expected) < 0.01, "\(wanted): \(level) dB, expected \(expected)")
            }
            hub.close()
        }
    }

    @Test func aViewerWithoutADetectorGetsTheSensorsOwn() async throws {
        let (hub, feed) = try Self.viewer(sensorDetector: .average, wanted: "")
        hub.publish(Self.frame(peak: 0, average: -10, sample: -30), counters: .init())
        let (frame, notices) = try await Self.frameAndNotices(feed)
        #expect(notices.isEmpty)
        #expect(frame.detector == "average")
        // powerDB is the sensor's own detector's (here built from the peak plane: 0 dB)
        #expect(frame.power.allSatisfy { $0 == 0 })
    }

    @Test func aDetectorTheFramesLackIsToldOnceAndTheSensorsIsSent() async throws {
        let (hub, feed) = try Self.viewer(sensorDetector: .peak, wanted: "sample")
        hub.publish(Self.frame(peak: 3, average: -10, sample: -30, carriesEvery: false), counters: .init())
        let (first, notices) = try await Self.frameAndNotices(feed)
        #expect(first.detector == "peak" && first.power.allSatisfy { $0 == 3 })
        #expect(notices == ["detector sample not served: this sensor's analyzer makes peak levels only "
            + "(its `serve --detector`); these frames are peak"])
        hub.publish(Self.frame(peak: 4, average: -10, sample: -30, carriesEvery: false), counters: .init())
        let (_, again) = try await Self.frameAndNotices(feed)
        #expect(again.isEmpty, "told once: \(again)")
    }

    @Test func anAnalyzerThatDetectsByItselfIsNotExcused() async throws {
        // a tinySA's levels are its own detector's; --detector changes nothing locally either
        let (hub, feed) = try Self.viewer(sensorDetector: .peak, fromSamples: false, wanted: "average")
        hub.publish(Self.frame(peak: 3, average: -10, sample: -30, carriesEvery: false), counters: .init())
        let (_, notices) = try await Self.frameAndNotices(feed)
        #expect(notices.isEmpty, "\(notices)")
    }

    @Test func anUnknownDetectorIsRefusedInWords() async throws {
        let (hub, feed) = try Self.viewer(wanted: "quasi-peak")
        hub.publish(Self.frame(peak: 3, average: -10, sample: -30), counters: .init())
        let (frame, notices) = try await Self.frameAndNotices(feed)
        #expect(notices == ["detector quasi-peak unknown: sample, peak, average, rms, cispr-average; these frames are peak"])
        #expect(frame.detector == "peak")
    }

    @Test func theDwellToldIsTheViewersDetectors() async throws {
        let (hub, feed) = try Self.viewer(wanted: "sample")
        // a HackRF sweep at N = 400: sample watches one FFT, the others the whole block
        let sample = DwellTiming.hackRFSweep(fftSize: 400, detector: .sample, steps: 10)
        let peak = DwellTiming.hackRFSweep(fftSize: 400, detector: .peak, steps: 10)
        #expect(sample.dwellSeconds < peak.dwellSeconds)
        hub.updateTiming([.sample: sample, .peak: peak])
        hub.publish(Self.frame(peak: 3, average: -10, sample: -30), counters: .init())
        let (frame, _) = try await Self.frameAndNotices(feed)
        #expect(frame.hasDwell)
        #expect(frame.dwell.dwellSeconds == sample.dwellSeconds && frame.dwell.revisitSeconds == sample.revisitSeconds)
        #expect(!frame.dwell.realtime)
    }
}
#endif
