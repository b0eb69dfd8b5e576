import Foundation
import Testing
import ThreadKitTesting
@testable import USBDriver

@Suite struct EmulatedTransportTests {
    @Test func controlTransfersReachTheEmulatorAndBack() throws {
        let toy = ToyEmulator()
        let transport = EmulatedTransport(emulator: toy)
        try transport.controlOut(ControlSetup(requestType: .vendorOut, request: 1, value: 5, index: 6),
                                 data: [1, 2, 3], timeoutMS: 100)
        let reply = try transport.controlIn(ControlSetup(requestType: .vendorIn, request: 2), length: 2, timeoutMS: 100)
        #expect(reply == [3, 2])
        #expect(toy.recordedControlOuts.map(\.0) == [ControlSetup(requestType: .vendorOut, request: 1, value: 5, index: 6)])
        #expect(throws: USBError.stalled(operation: "toy request 9")) {
            try transport.controlIn(ControlSetup(requestType: .vendorIn, request: 9), length: 1, timeoutMS: 100)
        }
        #expect(transport.deviceInfo == ToyEmulator.info)
    }

    @Test func synchronousBulkInRetriesThroughNaks() throws {
        let toy = ToyEmulator()
        toy.nakEvery = 1 // every call NAKs: the read must time out
        let transport = EmulatedTransport(emulator: toy)
        #expect(throws: USBError.timeout(operation: "bulk IN", milliseconds: 20)) {
            try transport.bulkIn(endpoint: 0x81, length: 8, timeoutMS: 20)
        }
        toy.nakEvery = 2
        let first = try transport.bulkIn(endpoint: 0x81, length: 8, timeoutMS: 100)
        let second = try transport.bulkIn(endpoint: 0x81, length: 8, timeoutMS: 100)
        #expect(first == [0, 0, 0, 0, 1, 0, 0, 0])
        #expect(second == [2, 0, 0, 0, 3, 0, 0, 0])
        #expect(try transport.bulkOut(endpoint: 0x02, data: [9, 9], timeoutMS: 100) == 2)
    }

    @Test func streamDeliversInOrderAndStopsCleanly() throws {
        let toy = ToyEmulator()
        toy.nakEvery = 3 // pacing by NAKs must not reorder or lose data
        let transport = EmulatedTransport(emulator: toy)
        let recorder = StreamRecorder()
        try transport.startBulkStream(endpoint: 0x81, transferSize: 1024, transfersInFlight: 4,
                                      onData: recorder.onData, onEnd: recorder.onEnd)
        #expect(throws: USBError.streamAlreadyRunning) {
            try transport.startBulkStream(endpoint: 0x81, transferSize: 1024, transfersInFlight: 4,
                                          onData: recorder.onData, onEnd: recorder.onEnd)
        }
        #expect(recorder.wait(seconds: 10) { $0.blocks.count >= 40 })
        transport.stopBulkStream()
        let deliveredAtStop = recorder.blocks.count
        #expect(recorder.isContiguous)
        #expect(recorder.blocks.prefix(3) == [0, 256, 512])
        #expect(recorder.endings.count == 1)
        #expect(recorder.endings.first.map { $0 == nil } == true)

        transport.stopBulkStream()
        transport.close()
        transport.close()
        // 20 ms of real time for a late delivery or a second end to show (it returns early if one does)
        let lateCallback = waitForCondition(timeoutSeconds: 0.02) {
            recorder.blocks.count != deliveredAtStop || recorder.endings.count != 1
        }
        #expect(!lateCallback)
        #expect(recorder.blocks.count == deliveredAtStop, "no data after stop")
        #expect(recorder.endings.count == 1, "onEnd exactly once")
        #expect(throws: USBError.disconnected(device: "Toy Emulator")) {
            try transport.controlOut(ControlSetup(requestType: .vendorOut, request: 1), data: [], timeoutMS: 100)
        }
    }

    @Test func emulatorErrorEndsTheStreamOnce() throws {
        let toy = ToyEmulator()
        toy.failAfterWords = 256 * 5
        toy.failure = .io(operation: "toy", detail: "boom")
        let transport = EmulatedTransport(emulator: toy)
        let recorder = StreamRecorder()
        try transport.startBulkStream(endpoint: 0x81, transferSize: 1024, transfersInFlight: 2,
                                      onData: recorder.onData, onEnd: recorder.onEnd)
        #expect(recorder.wait(seconds: 10) { !$0.endings.isEmpty })
        #expect(recorder.blocks == [0, 256, 512, 768, 1024])
        transport.stopBulkStream()
        transport.stopBulkStream()
        #expect(recorder.endings == [.io(operation: "toy", detail: "boom")])

        // a stream that ended by itself does not block a new one
        toy.failAfterWords = nil
        let second = StreamRecorder()
        try transport.startBulkStream(endpoint: 0x81, transferSize: 1024, transfersInFlight: 2,
                                      onData: second.onData, onEnd: second.onEnd)
        #expect(second.wait(seconds: 10) { $0.blocks.count >= 2 })
        transport.close()
        #expect(second.endings.count == 1)
    }

    @Test func invalidStreamShapeIsRejected() {
        let transport = EmulatedTransport(emulator: ToyEmulator())
        let recorder = StreamRecorder()
        #expect(throws: USBError.self) {
            try transport.startBulkStream(endpoint: 0x81, transferSize: 0, transfersInFlight: 4,
                                          onData: recorder.onData, onEnd: recorder.onEnd)
        }
        #expect(recorder.endings.isEmpty)
    }
}
