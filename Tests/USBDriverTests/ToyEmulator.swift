import Foundation
import ThreadKitTesting
import USBDriver

/// A tiny firmware for transport tests (ids 1209:0001, pid.codes' test range):
/// - control OUT request 1 stores its data; control IN request 2 returns the
///   stored data reversed; control IN request 3 stalls;
/// - bulk IN 0x81 sends consecutive u32 LE counter words from 0 (whole words only);
/// - bulk OUT 0x02 takes everything.
/// Options: NAK every `nakEvery`-th bulk IN call; fail bulk IN with
/// `failure` once `failAfterWords` words went out; `fastFill` writes only the
/// first word of each buffer (for throughput runs).
final class ToyEmulator: FirmwareEmulator, @unchecked Sendable {
    static let info = USBDeviceInfo(vendorID: 0x1209, productID: 0x0001, bcdDevice: 0x0102,
                                    manufacturer: "tscope", product: "Toy Emulator", serialNumber: "TOY-0001",
                                    bus: 9, address: 9)

    var nakEvery = 0
    var failAfterWords: UInt32?
    var failure = USBError.disconnected(device: "Toy Emulator")
    var fastFill = false

    /// guards the records below: tests read them while a host calls in
    private let lock = NSLock()
    private var nextWord: UInt32 = 0
    private var bulkInCalls = 0
    private var controlOuts: [(ControlSetup, [UInt8])] = []
    private var bulkOuts: [[UInt8]] = []
    private var stored: [UInt8] = []

    var deviceInfo: USBDeviceInfo { Self.info }

    var recordedControlOuts: [(ControlSetup, [UInt8])] { lock.withLock { controlOuts } }
    var recordedBulkOuts: [[UInt8]] { lock.withLock { bulkOuts } }
    var wordsSent: UInt32 { lock.withLock { nextWord } }

    func controlOut(_ setup: ControlSetup, data: [UInt8]) throws(USBError) {
        lock.lock()
        defer { lock.unlock() }
        controlOuts.append((setup, data))
        guard setup.request == 1 else { throw .stalled(operation: "toy request \(setup.request)") }
        stored = data
    }

    func controlIn(_ setup: ControlSetup, length: Int) throws(USBError) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        guard setup.request == 2 else { throw .stalled(operation: "toy request \(setup.request)") }
        return Array(stored.reversed().prefix(length))
    }

    func bulkIn(endpoint: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(USBError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard endpoint == 0x81 else { throw .stalled(operation: "bulk IN on endpoint \(endpoint)") }
        bulkInCalls += 1
        if nakEvery > 0 && bulkInCalls % nakEvery == 0 { return 0 }
        if let limit = failAfterWords, nextWord >= limit { throw failure }
        let words = buffer.count / 4
        if fastFill {
            buffer.storeBytes(of: nextWord.littleEndian, toByteOffset: 0, as: UInt32.self)
            nextWord &+= UInt32(words)
            return words * 4
        }
        for i in 0..<words {
            buffer.storeBytes(of: nextWord.littleEndian, toByteOffset: 4 * i, as: UInt32.self)
            nextWord &+= 1
        }
        return words * 4
    }

    func bulkOut(endpoint: UInt8, data: [UInt8]) throws(USBError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        bulkOuts.append(data)
        return data.count
    }
}

/// Collects what a stream delivers, from the transport's thread.
final class StreamRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var firstWords: [UInt32] = []
    private var contiguous = true
    /// nil until the first block: a stream may start anywhere in the counter
    private var expectedWord: UInt32?
    private var ends: [USBError?] = []

    var onData: BulkDataHandler {
        { [self] bytes in
            lock.withLock {
                guard bytes.count >= 4 else { return }
                let first = bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian
                firstWords.append(first)
                for offset in stride(from: 0, to: bytes.count - 3, by: 4) {
                    let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian
                    if let expectedWord, word != expectedWord { contiguous = false }
                    expectedWord = word &+ 1
                }
            }
        }
    }

    var onEnd: BulkEndHandler { { [self] error in lock.withLock { ends.append(error) } } }

    var blocks: [UInt32] { lock.withLock { firstWords } }
    var isContiguous: Bool { lock.withLock { contiguous } }
    var endings: [USBError?] { lock.withLock { ends } }

    /// Waits up to `seconds` of real time for `condition`; true if it came true.
    func wait(seconds: Double, until condition: (StreamRecorder) -> Bool) -> Bool {
        waitForCondition(timeoutSeconds: seconds, pollSeconds: 0.002) { condition(self) }
    }
}
