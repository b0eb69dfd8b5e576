import Foundation
import Signals
import ThreadKit
import USBDriver

/// HackRF One firmware 2022.09.1 at the USB-transfer level: answers the
/// vendor requests libhackrf, hackrf_info and hackrf_sweep send, keeps the
/// radio state, and in RX_SWEEP produces 16384-byte blocks (`7f 7f` + u64 LE
/// sweep frequency + int8 I/Q from a `DemoScene`) stepping exactly as
/// firmware/hackrf_usb/usb_api_sweep.c does.
///
/// Not thread-safe: the hosting transport serialises calls.
public final class HackRFEmulator: FirmwareEmulator {
    /// How fast blocks come out.
    public enum Pacing: Sendable, Equatable {
        /// about as fast as a real HackRF: one kept block per
        /// (1 + 2 discarded) × 8192 samples at 20 Msps plus `extraRetuneSeconds`;
        /// `bulkIn` returns 0 bytes while ahead of the clock
        case realTime(extraRetuneSeconds: Double)
        /// as fast as the host asks (benchmarks)
        case unlimited

        /// real time with the retune hidden in the discarded blocks, as the
        /// 2022.09.1 firmware does (retune ≈ 760 µs < 2 blocks = 819 µs)
        public static let realTime = Pacing.realTime(extraRetuneSeconds: 0)
    }

    public struct Options: Sendable {
        public var pacing: Pacing
        /// write `00 00` instead of `7f 7f` into every k-th block (k ≥ 1)
        public var corruptHeaderEvery: Int?
        /// throw `.disconnected` once this many blocks were sent
        public var disconnectAfterBlocks: Int?
        /// deliver nothing more (a stalled device that still answers control transfers) once this many
        /// blocks were sent, on this and every later connection
        public var stallAfterBlocks: Int?
        /// bcdDevice (USB API version)
        public var usbAPIVersion: UInt16
        /// deliver nothing for `pauseSeconds` of wall time once this many blocks were sent, then
        /// go on (an outage the host recovers from: a loose cable, a brief USB reset)
        public var pauseAfterBlocks: Int?
        public var pauseSeconds: Double = 0

        public init(pacing: Pacing = .realTime, corruptHeaderEvery: Int? = nil,
                    disconnectAfterBlocks: Int? = nil, stallAfterBlocks: Int? = nil,
                    usbAPIVersion: UInt16 = HackRFProtocol.firmwareAPI) {
            self.pacing = pacing
            self.corruptHeaderEvery = corruptHeaderEvery
            self.disconnectAfterBlocks = disconnectAfterBlocks
            self.stallAfterBlocks = stallAfterBlocks
            self.usbAPIVersion = usbAPIVersion
        }
    }

    /// What the host has set.
    public struct RadioState: Sendable, Equatable {
        public var mode: HackRFTransceiverMode = .off
        public var sampleRateHz: UInt32 = 10_000_000
        public var sampleRateDivider: UInt32 = 1
        public var basebandFilterHz: UInt32 = 0
        public var frequencyHz: UInt64 = 0
        public var lnaGainDB: UInt16 = 0
        public var vgaGainDB: UInt16 = 0
        public var ampEnabled = false
        public var antennaPowerEnabled = false
    }

    /// firmware version string VERSION_STRING_READ returns
    public static let versionString = "2022.09.1"
    /// BOARD_ID_HACKRF1_OG (libhackrf hackrf.h)
    public static let boardID: UInt8 = 2
    /// BOARD_REV_GSG_HACKRF1_R6
    public static let boardRevision: UInt8 = 0x81
    /// HACKRF_PLATFORM_HACKRF1_OG | HACKRF_PLATFORM_HACKRF1_R9
    public static let supportedPlatforms: UInt32 = (1 << 1) | (1 << 3)

    public let deviceInfo: USBDeviceInfo
    public let options: Options
    /// paces the emulated device's output (tests may hand in a `ManualClock`)
    private let clock: any MonotonicClock
    public private(set) var state = RadioState()
    /// blocks produced since the emulator was made
    public private(set) var blocksSent = 0
    /// when the pause (`Options.pauseAfterBlocks`) began [monotonic s]
    private var pauseStarted: Double?
    private var pauseOver = false

    private let synthesizer: DemoSynthesizer
    private let scene: DemoScene
    private let partID: (UInt32, UInt32) = (0xa000_cb3c, 0x0062_4f4f)
    private let serialWords: [UInt32]

    // INIT_SWEEP configuration
    private var sweepRanges: [(UInt16, UInt16)] = []
    private var sweepStepHz: UInt64 = 0
    private var sweepOffsetHz: UInt64 = 0
    private var sweepStyle: HackRFSweepStyle = .linear
    private var dwellBlocks = 0
    /// sweep frequency INIT_SWEEP set and sweeping advanced [Hz]
    private var sweepFrequencyHz: UInt64 = 0
    private var stepper: HackRFSweepStepper?
    private var blocksAtThisStep = 0
    /// kept blocks since RX_SWEEP began (the scene's clock)
    private var sweepBlockIndex: UInt64 = 0
    private var sweepStartSeconds = 0.0

    // RECEIVE (plain streaming at one tuning)
    /// the scene at the receive sample rate, in continuous mode; made when the rate changes
    private var receiveSynthesizer: DemoSynthesizer?
    /// blocks of `receiveBlockSamples` since RECEIVE began (the scene's clock)
    private var receiveBlockIndex: UInt64 = 0
    private var receiveStartSeconds = 0.0
    /// complex samples per 16384-byte block of plain I/Q
    static let receiveBlockSamples = HackRFProtocol.blockSize / 2
    /// the receive path's DC offset [int8 LSB]: a real HackRF's mixer and ADC put a spike at the
    /// tuned centre some 30 dB over the floor; hackrf_sweep's offset tuning keeps it out of sweeps
    public static let receiveDCOffset = (i: 1.5, q: -1.0)

    /// - Parameters:
    ///   - scene: what the antenna "sees"; the standard demo by default
    ///   - seed: seeds the scene's noise and bursts when `scene` is nil
    ///   - clock: paces real-time output and the pause fault
    public init(scene: DemoScene? = nil, seed: UInt64 = 1, options: Options = Options(),
                clock: any MonotonicClock = SystemClock()) {
        let scene = scene ?? DemoScene.standard(seed: seed)
        self.options = options
        self.clock = clock
        self.scene = scene
        synthesizer = DemoSynthesizer(scene: scene)
        var random = SeededRandom(seed: scene.seed ^ 0x5e71a1)
        serialWords = [0, 0, UInt32(truncatingIfNeeded: random.next()), UInt32(truncatingIfNeeded: random.next())]
        let serial = serialWords.map { word -> String in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
        deviceInfo = USBDeviceInfo(vendorID: HackRFProtocol.vendorID, productID: HackRFProtocol.productID,
                                   bcdDevice: options.usbAPIVersion, manufacturer: "Great Scott Gadgets",
                                   product: "HackRF One", serialNumber: serial)
    }

    /// the RF amplifier's gain [dB], as gr-osmosdr and SoapyHackRF give it
    public static let amplifierGainDB = 14
    /// the gains the scene's amplitudes are given at: hackrf_sweep's defaults (LNA 16 dB, VGA 20 dB, amplifier off)
    public static let referenceGainDB = 36
    /// the LNA gain of the reference [dB]: the front end's nonlinearity is modelled above it
    public static let referenceLNAGainDB = 16

    /// Exact gain steps: every level moves by the change in LNA + VGA +
    /// amplifier gain from the reference (until the 8-bit ADC clips).
    private func applyGains() {
        let total = Int(state.lnaGainDB) + Int(state.vgaGainDB) + (state.ampEnabled ? Self.amplifierGainDB : 0)
        synthesizer.relativeGainDB = Double(total - Self.referenceGainDB)
        receiveSynthesizer?.relativeGainDB = synthesizer.relativeGainDB
        // the front end (LNA and amplifier) is where the third-order products are made (DemoSynthesizer.frontEndIIP3DBm)
        let frontEnd = Int(state.lnaGainDB) + (state.ampEnabled ? Self.amplifierGainDB : 0)
        synthesizer.frontEndGainDB = Double(frontEnd - Self.referenceLNAGainDB)
        receiveSynthesizer?.frontEndGainDB = synthesizer.frontEndGainDB
    }

    // MARK: control transfers

    public func controlOut(_ setup: ControlSetup, data: [UInt8]) throws(USBError) {
        guard let request = HackRFRequest(rawValue: setup.request) else { throw .stalled(operation: "request \(setup.request)") }
        let name = "\(request)"
        switch request {
        case .setTransceiverMode:
            guard let mode = HackRFTransceiverMode(rawValue: setup.value) else { throw .stalled(operation: name) }
            try enter(mode)
        case .sampleRateSet:
            guard let hz = LittleEndianBytes.uint32(data, at: 0), let divider = LittleEndianBytes.uint32(data, at: 4),
                  divider > 0 else { throw .stalled(operation: name) }
            state.sampleRateHz = hz
            state.sampleRateDivider = divider
        case .basebandFilterBandwidthSet:
            state.basebandFilterHz = UInt32(setup.value) | UInt32(setup.index) << 16
        case .setFrequency:
            guard let mhz = LittleEndianBytes.uint32(data, at: 0), let hz = LittleEndianBytes.uint32(data, at: 4) else {
                throw .stalled(operation: name)
            }
            state.frequencyHz = UInt64(mhz) * 1_000_000 + UInt64(hz)
        case .ampEnable:
            state.ampEnabled = setup.value != 0
            applyGains()
        case .antennaEnable:
            state.antennaPowerEnabled = setup.value != 0
        case .initSweep:
            try initSweep(setup, data: data)
        default:
            throw .stalled(operation: name)
        }
    }

    public func controlIn(_ setup: ControlSetup, length: Int) throws(USBError) -> [UInt8] {
        guard let request = HackRFRequest(rawValue: setup.request) else { throw .stalled(operation: "request \(setup.request)") }
        let reply: [UInt8]
        switch request {
        case .boardIDRead:
            reply = [Self.boardID]
        case .versionStringRead:
            reply = Array(Self.versionString.utf8)
        case .boardPartIDSerialNumberRead:
            var bytes: [UInt8] = []
            for word in [partID.0, partID.1] + serialWords { LittleEndianBytes.append(word, to: &bytes) }
            reply = bytes
        case .setLNAGain:
            // firmware: max2837_set_lna_gain accepts 0…40 in steps of 8
            let ok = setup.index <= 40 && setup.index % 8 == 0
            if ok { state.lnaGainDB = setup.index }
            applyGains()
            reply = [ok ? 1 : 0]
        case .setVGAGain:
            // firmware: max2837_set_vga_gain accepts even 0…62
            let ok = setup.index <= 62 && setup.index % 2 == 0
            if ok { state.vgaGainDB = setup.index }
            applyGains()
            reply = [ok ? 1 : 0]
        case .boardRevisionRead:
            reply = [Self.boardRevision]
        case .supportedPlatformRead:
            let p = Self.supportedPlatforms
            reply = [UInt8(p >> 24), UInt8(truncatingIfNeeded: p >> 16), UInt8(truncatingIfNeeded: p >> 8),
                     UInt8(truncatingIfNeeded: p)]
        case .operacakeGetBoards:
            reply = [UInt8](repeating: 0xff, count: 8)  // HACKRF_OPERACAKE_ADDRESS_INVALID: none attached
        default:
            throw .stalled(operation: "\(request)")
        }
        return Array(reply.prefix(max(0, length)))
    }

    /// INIT_SWEEP as usb_vendor_request_init_sweep checks it.
    private func initSweep(_ setup: ControlSetup, data: [UInt8]) throws(USBError) {
        let numBytes = Int(setup.index) << 16 | Int(setup.value)
        let ranges = (data.count - 9) / 4
        guard numBytes / HackRFProtocol.blockSize >= 1, data.count >= 9, (1...10).contains(ranges),
              let step = LittleEndianBytes.uint32(data, at: 0), step >= 1,
              let offset = LittleEndianBytes.uint32(data, at: 4),
              let style = HackRFSweepStyle(rawValue: data[8])
        else { throw .stalled(operation: "INIT_SWEEP") }
        var list: [(UInt16, UInt16)] = []
        for r in 0..<ranges {
            guard let start = LittleEndianBytes.uint16(data, at: 9 + 4 * r),
                  let stop = LittleEndianBytes.uint16(data, at: 11 + 4 * r) else { throw .stalled(operation: "INIT_SWEEP") }
            list.append((start, stop))
        }
        dwellBlocks = numBytes / HackRFProtocol.blockSize
        sweepRanges = list
        sweepStepHz = UInt64(step)
        sweepOffsetHz = UInt64(offset)
        sweepStyle = style
        sweepFrequencyHz = UInt64(list[0].0) * 1_000_000
        state.frequencyHz = sweepFrequencyHz + sweepOffsetHz
    }

    private func enter(_ mode: HackRFTransceiverMode) throws(USBError) {
        if mode == .receiveSweep {
            guard !sweepRanges.isEmpty else {
                throw .unsupported("HackRF emulator: RX_SWEEP requested before INIT_SWEEP")
            }
            // sweep_mode(): odd = true, range = 0, frequency where INIT_SWEEP (or the last sweep) left it
            stepper = HackRFSweepStepper(rangesMHz: sweepRanges, stepHz: sweepStepHz, style: sweepStyle,
                                         frequencyHz: sweepFrequencyHz)
            blocksAtThisStep = 0
            sweepBlockIndex = 0
            sweepStartSeconds = clock.now
        } else {
            stepper = nil
        }
        if mode == .receive {
            let rate = receiveSampleRateHz
            guard rate >= 1e6, rate <= 20e6 else {
                throw .unsupported("HackRF emulator: RECEIVE at \(rate) S/s (set 1–20 MS/s first)")
            }
            if receiveSynthesizer?.samplesPerSecond != rate {
                let made = DemoSynthesizer(scene: scene, payloadCount: HackRFProtocol.blockSize, samplesPerSecond: rate,
                                           continuous: true)
                made.dcOffset = Self.receiveDCOffset
                made.relativeGainDB = synthesizer.relativeGainDB
                made.frontEndGainDB = synthesizer.frontEndGainDB
                receiveSynthesizer = made
            }
            receiveBlockIndex = 0
            receiveStartSeconds = clock.now
        }
        state.mode = mode
    }

    // MARK: bulk transfers

    /// seconds of radio time per kept block
    private var blockPeriodSeconds: Double {
        let samples = Double(HackRFProtocol.blockSize / 2 * (1 + HackRFProtocol.discardedBlocksPerStep))
        let extra: Double
        if case .realTime(let retune) = options.pacing { extra = retune } else { extra = 0 }
        return samples / DemoSynthesizer.sampleRateHz + extra
    }

    /// the sample rate RECEIVE streams at [S/s]
    private var receiveSampleRateHz: Double { Double(state.sampleRateHz) / Double(max(1, state.sampleRateDivider)) }
    /// seconds of radio time per block of plain I/Q
    private var receiveBlockSeconds: Double { Double(Self.receiveBlockSamples) / receiveSampleRateHz }

    public func bulkIn(endpoint: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(USBError) -> Int {
        guard endpoint == HackRFProtocol.bulkInEndpoint else { throw .stalled(operation: "bulk IN endpoint \(endpoint)") }
        let receiving = state.mode == .receive && receiveSynthesizer != nil
        guard receiving || (state.mode == .receiveSweep && stepper != nil) else { return 0 }
        var blocks = buffer.count / HackRFProtocol.blockSize
        if case .realTime = options.pacing {
            if receiving {
                // like the radio, a transfer completes only when full: a host (libhackrf's callers, SoapyHackRF)
                // may take every transfer as a whole buffer of samples
                let due = Int((clock.now - receiveStartSeconds) / receiveBlockSeconds)
                blocks = due - Int(receiveBlockIndex) >= blocks ? blocks : 0
            } else {
                let due = Int((clock.now - sweepStartSeconds) / blockPeriodSeconds) + 1
                blocks = min(blocks, max(0, due - Int(sweepBlockIndex)))
            }
        }
        if let limit = options.disconnectAfterBlocks {
            if blocksSent >= limit { throw .disconnected(device: "HackRF One (emulated)") }
            blocks = min(blocks, limit - blocksSent)
        }
        if let limit = options.stallAfterBlocks { blocks = min(blocks, max(0, limit - blocksSent)) }
        if let limit = options.pauseAfterBlocks, !pauseOver, blocksSent + blocks >= limit {
            if blocksSent < limit {
                blocks = limit - blocksSent
            } else {
                let started = pauseStarted ?? clock.now
                pauseStarted = started
                if clock.now - started < options.pauseSeconds {
                    blocks = 0
                } else {
                    pauseOver = true
                    // the radio's clock went on during the pause: no burst of blocks to catch up
                    sweepStartSeconds = clock.now - Double(sweepBlockIndex) * blockPeriodSeconds
                    if receiving {
                        receiveStartSeconds = clock.now - Double(receiveBlockIndex) * receiveBlockSeconds
                    }
                    blocks = min(blocks, 1)
                }
            }
        }
        for b in 0..<blocks {
            let block = UnsafeMutableRawBufferPointer(rebasing:
                buffer[(b * HackRFProtocol.blockSize)..<((b + 1) * HackRFProtocol.blockSize)])
            if receiving { produceReceiveBlock(into: block) } else { produceBlock(into: block) }
        }
        return blocks * HackRFProtocol.blockSize
    }

    /// One kept block at the current sweep frequency, then the firmware's step.
    private func produceBlock(into block: UnsafeMutableRawBufferPointer) {
        guard var stepping = stepper else { return }
        let frequency = stepping.frequencyHz
        HackRFBlockHeader.write(frequencyHz: frequency, into: block)
        blocksSent += 1
        if let k = options.corruptHeaderEvery, k > 0, blocksSent % k == 0 {
            block[0] = 0
            block[1] = 0
        }
        let payload = UnsafeMutableRawBufferPointer(rebasing: block[HackRFProtocol.headerSize...])
        synthesizer.render(sweepFrequencyHz: frequency, offsetHz: sweepOffsetHz, blockIndex: sweepBlockIndex,
                           timeSeconds: Double(sweepBlockIndex) * blockPeriodSeconds, into: payload)
        sweepBlockIndex += 1
        blocksAtThisStep += 1
        if blocksAtThisStep == dwellBlocks {
            stepping.advance()
            blocksAtThisStep = 0
            sweepFrequencyHz = stepping.frequencyHz
            state.frequencyHz = sweepFrequencyHz + sweepOffsetHz
        }
        stepper = stepping
    }

    /// One block of plain int8 I/Q at the tuned frequency (no header).
    private func produceReceiveBlock(into block: UnsafeMutableRawBufferPointer) {
        guard let synthesizer = receiveSynthesizer else { return }
        blocksSent += 1
        synthesizer.render(sweepFrequencyHz: state.frequencyHz, offsetHz: 0, blockIndex: receiveBlockIndex,
                           timeSeconds: Double(receiveBlockIndex) * receiveBlockSeconds, into: block)
        receiveBlockIndex += 1
    }

    public func bulkOut(endpoint: UInt8, data: [UInt8]) throws(USBError) -> Int {
        throw .stalled(operation: "bulk OUT (transmit is not emulated)")
    }
}
