import Devices
import USBDriver

/// An RTL-SDR whose register replies are the input: `RTLSDRDevice.open`
/// (baseband init, tuner probe, R82xx init with its status reads and PLL
/// lock checks), then sample rate, frequency and gain, as `tscope` drives a
/// dongle. Each control IN takes one byte from the input: 0xff fails the
/// transfer (timeout), 0xfe stalls it, otherwise its low bits say how many of
/// the bytes that follow are returned (short, exact or none), so replies of
/// any length and content reach the driver. Control OUT fails when the next
/// input byte is 0xfd. Errors thrown are the expected answer; a trap is a finding.
func fuzzRTLSDRRegister(_ bytes: UnsafeRawBufferPointer) {
    let transport = ScriptedRTLSDRTransport(bytes)
    guard let device = try? RTLSDRDevice.open(transport: transport) else { return }
    for rate: UInt32 in [2_400_000, 250_000, 3_200_000] { _ = try? device.setSampleRate(rate) }
    for hz: UInt32 in [100_000_000, 27_000_000, 1_700_000_000, 24_000_000] { try? device.setCenterFrequency(hz) }
    try? device.setGain(RTLSDRGain.nearest(dB: 29.7))
    try? device.setDigitalAGC(true)
    try? device.resetBuffer()
    device.powerDown()
}

/// Answers control transfers from the fuzz input; once it runs out every
/// transfer times out, so the driver's error paths end the run.
// @unchecked: the fuzz harness drives it from one thread only.
private final class ScriptedRTLSDRTransport: USBTransport, @unchecked Sendable {
    let deviceInfo = USBDeviceInfo(vendorID: RTLSDRProtocol.vendorID, productID: RTLSDRProtocol.productID)
    private let script: [UInt8]
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { script = Array(bytes) }

    private func next() -> UInt8? {
        guard offset < script.count else { return nil }
        defer { offset += 1 }
        return script[offset]
    }

    func controlOut(_ setup: ControlSetup, data: [UInt8], timeoutMS: UInt32) throws(USBError) {
        guard offset < script.count else { throw .timeout(operation: "control out", milliseconds: timeoutMS) }
        if script[offset] == 0xfd {
            offset += 1
            throw .io(operation: "control out", detail: "fuzzed failure")
        }
    }

    func controlIn(_ setup: ControlSetup, length: Int, timeoutMS: UInt32) throws(USBError) -> [UInt8] {
        guard let control = next(), control != 0xff else { throw .timeout(operation: "control in", milliseconds: timeoutMS) }
        if control == 0xfe { throw .stalled(operation: "control in") }
        // 0: nothing, 1: one byte short, 2: exact, 3: one byte more than asked (a broken device)
        let count = max(0, [0, length - 1, length, length + 1][Int(control & 3)])
        var reply: [UInt8] = []
        while reply.count < count, let byte = next() { reply.append(byte) }
        return reply
    }

    func bulkIn(endpoint: UInt8, length: Int, timeoutMS: UInt32) throws(USBError) -> [UInt8] {
        throw .timeout(operation: "bulk in", milliseconds: timeoutMS)
    }

    func bulkOut(endpoint: UInt8, data: [UInt8], timeoutMS: UInt32) throws(USBError) -> Int { data.count }

    func startBulkStream(endpoint: UInt8, transferSize: Int, transfersInFlight: Int,
                         onData: @escaping BulkDataHandler, onEnd: @escaping BulkEndHandler) throws(USBError) {
        throw .unsupported("no streaming in the register harness")
    }

    func stopBulkStream() {}
    func close() {}
}
