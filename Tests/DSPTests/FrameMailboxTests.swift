import Testing
import Signals
@testable import DSP

@Suite struct FrameMailboxTests {
    private func frame(_ values: [Float], start: Double = 100, width: Double = 10, at time: Double = 0) -> SpectrumFrame {
        SpectrumFrame(startHz: start, binWidthHz: width, timestamp: time, powerDB: values)
    }

    private var empty: SpectrumFrame { frame([]) }

    @Test func emptyMailboxGivesNothing() {
        var taken = empty
        #expect(FrameMailbox().take(into: &taken) == 0)
        #expect(taken.powerDB.isEmpty)
    }

    @Test func framesBetweenTakesArePeakHeld() {
        let mailbox = FrameMailbox()
        mailbox.post(frame([-90, -90, -90], at: 1))
        mailbox.post(frame([-90, -20, -90], at: 2)) // a burst seen in one frame only
        mailbox.post(frame([-80, -90, .nan], at: 3))
        var taken = empty
        #expect(mailbox.take(into: &taken) == 3)
        #expect(taken.powerDB == [-80, -20, -90])
        #expect(taken.timestamp == 3)
        #expect(mailbox.take(into: &taken) == 0)
        mailbox.post(frame([-70, -70, -70], at: 4))
        #expect(mailbox.take(into: &taken) == 1)
        #expect(taken.powerDB == [-70, -70, -70])
    }

    @Test func aNewGeometryReplacesThePendingFrame() {
        let mailbox = FrameMailbox()
        mailbox.post(frame([-10, -10]))
        mailbox.post(frame([-90, -90, -90], start: 200))
        var taken = empty
        #expect(mailbox.take(into: &taken) == 2)
        #expect(taken.startHz == 200)
        #expect(taken.powerDB == [-90, -90, -90])
    }

    @Test func takenFramesAreNotChangedByLaterPosts() {
        let mailbox = FrameMailbox()
        mailbox.post(frame([-50, -50]))
        var first = empty
        #expect(mailbox.take(into: &first) == 1)
        mailbox.post(frame([0, 0]))
        mailbox.post(frame([1, 1]))
        #expect(first.powerDB == [-50, -50])
        var second = empty
        #expect(mailbox.take(into: &second) == 2)
        #expect(second.powerDB == [1, 1])
    }

    @Test func clearDropsWhatIsPending() {
        let mailbox = FrameMailbox()
        mailbox.post(frame([-50, -50]))
        mailbox.clear()
        var taken = empty
        #expect(mailbox.take(into: &taken) == 0)
    }
}

extension SpectrumFrame: CustomTestStringConvertible {
    public var testDescription: String { "frame(\(startHz) Hz, \(powerDB.count) bins)" }
}
