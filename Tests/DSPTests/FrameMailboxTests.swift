import Testing
import Signals
@testable import DSP

@Suite struct FrameMailboxTests {
    private func frame(_ values: [Float], start: Double = 100, width: Double = 10, at time: Double = 0) -> SpectrumFrame {
        SpectrumFrame(startHz: start, binWidthHz: width, timestamp: time, powerDB: values)
    }

    @Test func emptyMailboxGivesNothing() {
        #expect(FrameMailbox().take() == nil)
    }

    @Test func framesBetweenTakesArePeakHeld() {
        let mailbox = FrameMailbox()
        mailbox.post(frame([-90, -90, -90], at: 1))
        mailbox.post(frame([-90, -20, -90], at: 2)) // a burst seen in one frame only
        mailbox.post(frame([-80, -90, .nan], at: 3))
        let taken = mailbox.take()
        #expect(taken?.combined == 3)
        #expect(taken?.frame.powerDB == [-80, -20, -90])
        #expect(taken?.frame.timestamp == 3)
        #expect(mailbox.take() == nil)
        mailbox.post(frame([-70, -70, -70], at: 4))
        #expect(mailbox.take()?.frame.powerDB == [-70, -70, -70])
    }

    @Test func aNewGeometryReplacesThePendingFrame() {
        let mailbox = FrameMailbox()
        mailbox.post(frame([-10, -10]))
        mailbox.post(frame([-90, -90, -90], start: 200))
        let taken = mailbox.take()
        #expect(taken?.frame.startHz == 200)
        #expect(taken?.frame.powerDB == [-90, -90, -90])
    }

    @Test func takenFramesAreNotChangedByLaterPosts() {
        let mailbox = FrameMailbox()
        mailbox.post(frame([-50, -50]))
        let first = mailbox.take()
        mailbox.post(frame([0, 0]))
        mailbox.post(frame([1, 1]))
        #expect(first?.frame.powerDB == [-50, -50])
        #expect(mailbox.take()?.frame.powerDB == [1, 1])
    }
}

extension SpectrumFrame: CustomTestStringConvertible {
    public var testDescription: String { "frame(\(startHz) Hz, \(powerDB.count) bins)" }
}
