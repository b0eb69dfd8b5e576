import Foundation
import Testing
@testable import ECG

/// `ECGRecording.excerpt` (`ecg convert --from/--to`) on made-up records whose every sample says its index.
@Suite struct ECGRecordingExcerptTests {
    static func signal(_ label: String, rate: Double, seconds: Double) -> ECGSignal {
        let count = Int(rate * seconds)
        return ECGSignal(label: label, sampleRate: rate, units: "mV", gain: 1000, baseline: 0, digitalRange: -32768...32767,
                         missingValue: nil, digital: (0..<count).map { Int16(truncatingIfNeeded: $0) })
    }

    /// A 500 Hz lead beside a 250 Hz one (two samples a frame): --from 0.003 s lands on the 250 Hz grid at
    /// 0.004 s, so both start at the same instant (samples 1 and 2) and end together.
    @Test func signalsAtMultiplesOfTheSlowestRateStayAligned() throws {
        let recording = ECGRecording(name: "r", signals: [Self.signal("slow", rate: 250, seconds: 4),
                                                          Self.signal("fast", rate: 500, seconds: 4)])
        let excerpt = try recording.excerpt(from: 0.003, to: 1.0, file: "r")
        #expect(excerpt.signals[0].digital.first == 1 && excerpt.signals[1].digital.first == 2)
        #expect(excerpt.signals[0].digital.count == 249 && excerpt.signals[1].digital.count == 498)
        let whole = try recording.excerpt(from: 0, to: 100, file: "r")
        #expect(whole.signals.map(\.digital) == recording.signals.map(\.digital))
    }

    /// Annotations inside move to the excerpt's clock; the last rhythm note before it opens it at 0 s;
    /// beats and notes outside are left out.
    @Test func annotationsMoveAndTheRhythmInForceOpensTheExcerpt() throws {
        var recording = ECGRecording(name: "r", signals: [Self.signal("ECG", rate: 100, seconds: 10)])
        recording.annotations = [ECGAnnotation(onset: 0.5, text: "(N", isBeat: false),
                                 ECGAnnotation(onset: 1.0, text: "N", isBeat: true),
                                 ECGAnnotation(onset: 2.0, text: "(AFIB", isBeat: false),
                                 ECGAnnotation(onset: 3.5, text: "N", isBeat: true),
                                 ECGAnnotation(onset: 4.0, duration: 3, text: "artefact", isBeat: false),
                                 ECGAnnotation(onset: 6.0, text: "N", isBeat: true)]
        let excerpt = try recording.excerpt(from: 3, to: 6, file: "r")
        #expect(excerpt.annotations.map(\.text) == ["(AFIB", "N", "artefact"])
        #expect(excerpt.annotations.map(\.onset) == [0, 0.5, 1.0])
        #expect(excerpt.annotations[2].duration == 2, "an event running past the end is cut at it")
        #expect(excerpt.signals[0].digital.first == 300 && excerpt.signals[0].digital.count == 300)
        // an excerpt opening on a rhythm note of its own is not given the one before as well
        let atChange = try recording.excerpt(from: 2, to: 4, file: "r")
        #expect(atChange.annotations.map(\.text) == ["(AFIB", "N"])
        // out of time order, as EDF+ may store them: the latest rhythm before the start still wins
        recording.annotations.reverse()
        #expect(try recording.excerpt(from: 3, to: 6, file: "r").annotations.first?.text == "(AFIB")
    }

    /// The start time moves on by whole seconds, across midnight and the year's end.
    @Test func theStartTimeMovesOnAcrossMidnight() throws {
        var recording = ECGRecording(name: "r", signals: [Self.signal("ECG", rate: 100, seconds: 60)])
        recording.start = ECGStartTime(hour: 23, minute: 59, second: 50, date: (31, 12, 2014))
        let excerpt = try recording.excerpt(from: 15.25, to: nil, file: "r")
        #expect(excerpt.start == ECGStartTime(hour: 0, minute: 0, second: 5, date: (1, 1, 2015)))
        #expect(excerpt.notes.count == 1 && excerpt.notes[0].contains("15.250 s in"))
        #expect(throws: ECGError.self) { try recording.excerpt(from: 60, to: nil, file: "r") }
        #expect(throws: ECGError.self) { try recording.excerpt(from: 5, to: 5, file: "r") }
        #expect(throws: ECGError.self) { try recording.excerpt(from: -1, to: nil, file: "r") }
    }
}
