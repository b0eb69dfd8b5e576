import Synchronization
import ThreadKit
import USBDriver

/// Speaks HackRF One's sweep protocol over any `USBTransport` (libusb or an
/// emulator): configures the radio as hackrf_sweep does, starts RX_SWEEP,
/// and cuts each bulk transfer into 16384-byte blocks. Blocks without the
/// `7f 7f` header, or whose frequency the plan never steps through, are
/// counted in `badBlockCount` and skipped: never placed at a wrong frequency.
///
/// `configure`, `start` and `stop` are called from one thread; the block
/// handler runs on the transport's thread.
public final class HackRFSweepDriver: Sendable {
    /// Receives each good block: its sweep frequency [Hz] and the whole
    /// 16384 bytes (header included), valid only during the call. Runs on
    /// the transport's thread and must not block.
    public typealias BlockHandler = @Sendable (_ frequencyHz: UInt64, _ block: UnsafeRawBufferPointer) -> Void

    public let transport: USBTransport
    /// the plan of the last `configure`
    public var plan: HackRFSweepPlan? { configured.withLock { $0 } }
    private let configured = Guarded<HackRFSweepPlan?>(nil)

    private let badBlocks = Atomic<Int>(0)
    private let goodBlocks = Atomic<Int>(0)
    /// blocks skipped for a bad header or an unplanned frequency
    public var badBlockCount: Int { badBlocks.load(ordering: .relaxed) }
    /// blocks handed to the handler
    public var goodBlockCount: Int { goodBlocks.load(ordering: .relaxed) }

    /// Checks that the opened device can sweep.
    public init(transport: USBTransport) throws(USBError) {
        let info = transport.deviceInfo
        guard info.vendorID == HackRFProtocol.vendorID, info.productID == HackRFProtocol.productID else {
            throw .unsupported("device \(info.idString) is not a HackRF One (1d50:6089)")
        }
        guard info.bcdDevice >= HackRFProtocol.minimumSweepAPI else {
            throw .unsupported("HackRF firmware too old for sweep mode: USB API \(Self.apiString(info.bcdDevice)), "
                + "need \(Self.apiString(HackRFProtocol.minimumSweepAPI)) or later; update with "
                + "`hackrf_spiflash -w hackrf_one_usb.bin` (firmware 2017.02.1 or newer)")
        }
        self.transport = transport
    }

    /// "1.06" for 0x0106
    static func apiString(_ bcd: UInt16) -> String {
        let minor = String(bcd & 0xff, radix: 16)
        return "\(String(bcd >> 8, radix: 16)).\(minor.count < 2 ? "0" + minor : minor)"
    }

    /// Sends what hackrf_sweep sends before streaming: sample rate 20 MHz
    /// (divider 1), baseband filter 15 MHz, VGA and LNA gain (each must be
    /// acknowledged with 1), amplifier, antenna power, then INIT_SWEEP.
    public func configure(plan: HackRFSweepPlan, gains: HackRFGains = .sweepDefaults,
                          ampEnabled: Bool = false, antennaPower: Bool = false) throws(USBError) {
        var rate: [UInt8] = []
        LittleEndianBytes.append(HackRFSweepPlan.sampleRateHz, to: &rate)
        LittleEndianBytes.append(UInt32(1), to: &rate)
        try send(.sampleRateSet, data: rate)
        let filter = HackRFSweepPlan.basebandFilterHz
        try send(.basebandFilterBandwidthSet, value: UInt16(filter & 0xffff), index: UInt16(filter >> 16))
        try setGain(.setVGAGain, dB: gains.vgaDB, name: "VGA")
        try setGain(.setLNAGain, dB: gains.lnaDB, name: "LNA")
        try send(.ampEnable, value: ampEnabled ? 1 : 0)
        try send(.antennaEnable, value: antennaPower ? 1 : 0)
        let sweep = plan.initSweepRequest
        try send(.initSweep, value: sweep.value, index: sweep.index, data: sweep.payload)
        configured.withLock { $0 = plan }
    }

    /// Sets RX_SWEEP and starts the bulk stream (4 × 262144 bytes in flight).
    /// `onEnd` gets nil after `stop()`, else the error that ended the stream.
    public func start(onBlock: @escaping BlockHandler, onEnd: @escaping BulkEndHandler) throws(USBError) {
        guard let plan else { throw .unsupported("HackRF sweep started before configure(plan:)") }
        try send(.setTransceiverMode, value: HackRFTransceiverMode.receiveSweep.rawValue)
        do {
            try transport.startBulkStream(endpoint: HackRFProtocol.bulkInEndpoint,
                                          transferSize: HackRFProtocol.transferSize,
                                          transfersInFlight: HackRFProtocol.transfersInFlight,
                                          onData: { [self] data in ingest(data, plan: plan, onBlock: onBlock) },
                                          onEnd: onEnd)
        } catch {
            try? send(.setTransceiverMode, value: HackRFTransceiverMode.off.rawValue)
            throw error
        }
    }

    /// Stops the stream, then sets the transceiver OFF (errors ignored: the
    /// device may already be gone).
    public func stop() {
        transport.stopBulkStream()
        try? send(.setTransceiverMode, value: HackRFTransceiverMode.off.rawValue)
    }

    /// Splits one transfer into blocks and hands the good ones on. A trailing
    /// partial block counts as bad.
    package func ingest(_ transfer: UnsafeRawBufferPointer, onBlock: (UInt64, UnsafeRawBufferPointer) -> Void) {
        guard let plan else { return }
        ingest(transfer, plan: plan, onBlock: onBlock)
    }

    /// `ingest` with the plan the stream was started with (no lock per transfer).
    private func ingest(_ transfer: UnsafeRawBufferPointer, plan: HackRFSweepPlan,
                        onBlock: (UInt64, UnsafeRawBufferPointer) -> Void) {
        let size = HackRFProtocol.blockSize
        var offset = 0
        var bad = 0
        var good = 0
        while offset < transfer.count {
            let end = min(offset + size, transfer.count)
            let block = UnsafeRawBufferPointer(rebasing: transfer[offset..<end])
            offset = end
            guard block.count == size, let hz = HackRFBlockHeader.frequency(of: block), plan.isStepFrequency(hz) else {
                bad += 1
                continue
            }
            good += 1
            onBlock(hz, block)
        }
        if bad > 0 { badBlocks.add(bad, ordering: .relaxed) }
        if good > 0 { goodBlocks.add(good, ordering: .relaxed) }
    }

    func send(_ request: HackRFRequest, value: UInt16 = 0, index: UInt16 = 0, data: [UInt8] = []) throws(USBError) {
        try transport.controlOut(.hackRF(request, value: value, index: index), data: data,
                                 timeoutMS: HackRFProtocol.controlTimeoutMS)
    }

    /// SET_LNA_GAIN / SET_VGA_GAIN: control IN, gain in wIndex, reply 1 = accepted.
    func setGain(_ request: HackRFRequest, dB: Int, name: String) throws(USBError) {
        let reply = try transport.controlIn(.hackRF(request, deviceToHost: true, index: UInt16(dB)), length: 1,
                                            timeoutMS: HackRFProtocol.controlTimeoutMS)
        guard reply.count == 1, reply[0] == 1 else {
            throw .io(operation: "set \(name) gain", detail: "HackRF refused \(dB) dB (reply \(reply))")
        }
    }
}
