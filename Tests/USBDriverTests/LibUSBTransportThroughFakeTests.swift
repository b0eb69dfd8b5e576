import CLibUSB
import Foundation
import Testing
@testable import USBDriver

/// LibUSBTransport end to end: this test re-runs the test binary with
/// LD_LIBRARY_PATH pointing at the freshly built fake libusb; in that child
/// (TSCOPE_USB_CHILD_DIR set) the same test hosts a toy emulator on a socket
/// and drives it through LibUSBTransport, so every libusb call the transport
/// makes goes through Tools/fakeusb.
@Suite struct LibUSBTransportThroughFakeTests {
    static let childDirectoryVariable = "TSCOPE_USB_CHILD_DIR"

    @Test func libusbTransportDrivesTheToyThroughTheFake() throws {
        if let dir = ProcessInfo.processInfo.environment[Self.childDirectoryVariable] {
            try Self.checksInChild(directory: dir)
            return
        }
        let dir = try FakeLibUSBEndToEndTests.buildFakeAndClient()
        defer { try? FileManager.default.removeItem(at: dir) }
        let child = try FakeLibUSBEndToEndTests.run(
            [CommandLine.arguments[0], "--testing-library", "swift-testing",
             "--filter", "libusbTransportDrivesTheToyThroughTheFake"],
            environment: ["LD_LIBRARY_PATH": dir.path, Self.childDirectoryVariable: dir.path])
        #expect(child.status == 0, "\(child.output)")
        #expect(child.output.contains("1 test") && child.output.contains("passed"), "\(child.output)")
    }

    static func checksInChild(directory: String) throws {
        // the fake identifies itself; a real libusb here means LD_LIBRARY_PATH did not apply
        #expect(String(cString: libusb_get_version().pointee.rc) == "-tscope-fake")
        let toy = ToyEmulator()
        toy.nakEvery = 3
        let server = try EmulatorSocketServer(emulator: toy, socketPath: directory + "/child.sock")
        defer { server.stop() }
        setenv("TSCOPE_FAKEUSB_SOCKET", server.socketPath, 1) // read by the fake's first libusb_init

        let devices = try USBEnumerator.devices(matching: [(0x1209, 0x0001)])
        var expected = ToyEmulator.info
        expected.bus = 1
        expected.address = 1
        #expect(devices == [expected])
        #expect(try USBEnumerator.devices(matching: [(0x1d50, 0x6089)]).isEmpty)

        #expect(throws: USBError.notFound(device: "Toy with serial nope")) {
            try LibUSBTransport.open(vendorID: 0x1209, productID: 0x0001, serial: "nope", deviceName: "Toy")
        }
        // the toy has one interface: a second one to claim is an error naming it, and nothing stays claimed
        #expect(throws: USBError.self) {
            try LibUSBTransport.open(vendorID: 0x1209, productID: 0x0001, alsoClaim: [1], deviceName: "Toy")
        }
        let transport = try LibUSBTransport.open(vendorID: 0x1209, productID: 0x0001, serial: "TOY-0001",
                                                 detachKernelDriver: true, deviceName: "Toy")
        #expect(transport.deviceInfo == expected)
        try transport.controlOut(ControlSetup(requestType: .vendorOut, request: 1, value: 3, index: 4),
                                 data: [1, 2, 3], timeoutMS: 100)
        #expect(try transport.controlIn(ControlSetup(requestType: .vendorIn, request: 2), length: 8, timeoutMS: 100)
                == [3, 2, 1])
        #expect(throws: USBError.stalled(operation: "control IN (type 0xc0 req 7 value 0 index 0)")) {
            try transport.controlIn(ControlSetup(requestType: .vendorIn, request: 7), length: 1, timeoutMS: 100)
        }
        #expect(try transport.bulkOut(endpoint: 0x02, data: [7, 7], timeoutMS: 100) == 2)

        let recorder = StreamRecorder()
        try transport.startBulkStream(endpoint: 0x81, transferSize: 16384, transfersInFlight: 4,
                                      onData: recorder.onData, onEnd: recorder.onEnd)
        #expect(recorder.wait(seconds: 10) { $0.blocks.count >= 50 })
        transport.stopBulkStream()
        transport.stopBulkStream()
        #expect(recorder.isContiguous)
        #expect(recorder.blocks.first == 0)
        #expect(recorder.endings.count == 1 && recorder.endings.first! == nil)

        // unplug mid-stream: onEnd(.disconnected) exactly once, then close is quiet
        let unplugged = StreamRecorder()
        try transport.startBulkStream(endpoint: 0x81, transferSize: 16384, transfersInFlight: 4,
                                      onData: unplugged.onData, onEnd: unplugged.onEnd)
        #expect(unplugged.wait(seconds: 10) { $0.blocks.count >= 10 })
        server.stop()
        #expect(unplugged.wait(seconds: 10) { !$0.endings.isEmpty })
        transport.close()
        transport.close()
        #expect(unplugged.endings == [.disconnected(device: "Toy")])
        #expect(unplugged.isContiguous)
        #expect(toy.recordedControlOuts.count == 1)
        #expect(toy.recordedBulkOuts == [[7, 7]])
    }
}
