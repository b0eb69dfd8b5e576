import Signals
import USBDriver

/// The bytes a serial-analyzer emulator has still to send on its bulk IN
/// endpoint, as a FIFO of messages (an echo, a sweep, a prompt), cut into
/// USB packets. Each message may wait for a time (a sweep takes time to
/// measure) and faults may strike packets; the queue counts which counted
/// messages left whole and which were damaged, for the resilience tests.
final class SerialReplyQueue {
    private struct Message {
        var bytes: [UInt8]
        var sent = 0
        /// monotonic time before which nothing of it goes out [s]
        var readyAt: Double
        /// a sweep the accounting follows
        var counted: Bool
        var damaged = false
    }

    /// full-speed bulk packet size [bytes]
    let packetSize: Int
    private var messages: [Message] = []
    private var injector: FaultInjector?
    private let deviceName: String

    /// counted messages that went out without a fault touching them
    private(set) var intactMessages = 0
    /// counted messages a drop, an inserted byte or an unplug hit
    private(set) var damagedMessages = 0

    init(packetSize: Int = 64, faults: EmulatorFaults?, deviceName: String) {
        self.packetSize = packetSize
        injector = faults.map(FaultInjector.init)
        self.deviceName = deviceName
    }

    var isEmpty: Bool { messages.isEmpty }
    var isUnplugged: Bool { injector?.unplugged ?? false }

    func append(_ bytes: [UInt8], readyAt: Double = 0, counted: Bool = false) {
        guard !bytes.isEmpty else { return }
        messages.append(Message(bytes: bytes, readyAt: readyAt, counted: counted))
    }

    /// Forgets what has not been sent (the host purged, or the firmware
    /// started over); a counted message cut short counts as damaged.
    func clear() {
        for message in messages where message.counted && message.sent > 0 { damagedMessages += 1 }
        messages.removeAll(keepingCapacity: true)
    }

    /// Writes the next packet into `buffer`; returns its length (0: nothing
    /// ready, or a stalled or lost packet). Throws once unplugged.
    func fill(into buffer: UnsafeMutableRawBufferPointer, now: Double) throws(USBError) -> Int {
        if isUnplugged { throw .disconnected(device: deviceName) }
        let limit = min(packetSize, buffer.count)
        guard limit > 0 else { return 0 }
        // collect up to one packet from the ready messages at the front
        var taken = 0
        var touched: [Int] = []
        var index = 0
        while taken < limit, index < messages.count, messages[index].readyAt <= now {
            let message = messages[index]
            let count = min(limit - taken, message.bytes.count - message.sent)
            message.bytes.withUnsafeBytes { source in
                buffer.baseAddress!.advanced(by: taken)
                    .copyMemory(from: source.baseAddress!.advanced(by: message.sent), byteCount: count)
            }
            taken += count
            touched.append(index)
            if message.sent + count < message.bytes.count { break }
            index += 1
        }
        guard taken > 0 else { return 0 }
        var decision = FaultInjector.Decision.deliver
        if var injector {
            decision = injector.decide(length: taken)
            self.injector = injector
        }
        switch decision {
        case .stall:
            return 0
        case .disconnect:
            for message in messages where message.counted { damagedMessages += 1 }
            messages.removeAll()
            throw .disconnected(device: deviceName)
        case .deliver, .drop, .corrupt:
            break
        }
        // advance the messages the packet took bytes from
        var remaining = taken
        for position in touched {
            let count = min(remaining, messages[position].bytes.count - messages[position].sent)
            messages[position].sent += count
            remaining -= count
            if decision != .deliver { messages[position].damaged = true }
        }
        retireSentMessages()
        switch decision {
        case .drop:
            return 0
        case .corrupt(let position) where taken < buffer.count:
            let at = min(position, taken)
            let moved = UnsafeMutableRawBufferPointer(rebasing: buffer[at..<taken])
            buffer.baseAddress!.advanced(by: at + 1).copyMemory(from: moved.baseAddress!, byteCount: moved.count)
            // 0xff: no marker, no digit, no line end of either protocol
            buffer[at] = 0xff
            return taken + 1
        default:
            return taken
        }
    }

    private func retireSentMessages() {
        var finished = 0
        while finished < messages.count, messages[finished].sent == messages[finished].bytes.count {
            if messages[finished].counted {
                if messages[finished].damaged { damagedMessages += 1 } else { intactMessages += 1 }
            }
            finished += 1
        }
        if finished > 0 { messages.removeFirst(finished) }
    }
}
