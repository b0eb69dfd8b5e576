import Signals
import USBDriver

/// HackRF One's USB protocol as used for sweep mode. Numbers from
/// greatscottgadgets/hackrf host/libhackrf/src/hackrf.c and
/// firmware/hackrf_usb/usb_api_sweep.c (release 2022.09.1); see
/// Firmware-Notes/hackrf-sweep.md.
public enum HackRFProtocol {
    /// USB vendor id (OpenMoko, shared by Great Scott Gadgets)
    public static let vendorID: UInt16 = 0x1d50
    /// USB product id of HackRF One
    public static let productID: UInt16 = 0x6089
    /// what tscope tunes a HackRF One to [Hz]: up to its specified 6 GHz
    /// (hackrf_sweep's own limits are wider)
    public static let tunableRange = FrequencyRange(lowerHz: 0, upperHz: 6_000e6)!
    /// lowest USB API version (bcdDevice) with RX_SWEEP (libhackrf's
    /// hackrf_start_rx_sweep requires 0x0104)
    public static let minimumSweepAPI: UInt16 = 0x0104
    /// USB API version of firmware 2022.09.1
    public static let firmwareAPI: UInt16 = 0x0106

    /// bulk IN endpoint carrying samples
    public static let bulkInEndpoint: UInt8 = 0x81
    /// bytes per libhackrf transfer
    public static let transferSize = 262_144
    /// transfers libhackrf keeps queued
    public static let transfersInFlight = 4
    /// one sweep block [bytes]: header + int8 I/Q
    public static let blockSize = 16_384
    /// `7f 7f` + u64 LE sweep frequency [bytes]
    public static let headerSize = 10
    /// first two bytes of every sweep block
    public static let headerMagic: UInt8 = 0x7f
    /// complex samples after the header: (16384 − 10) / 2
    public static let samplesAfterHeader = (blockSize - headerSize) / 2

    /// control transfer timeout the driver uses [ms] (libhackrf passes 0 =
    /// unlimited; a bound keeps an unplugged device from hanging us)
    public static let controlTimeoutMS: UInt32 = 500

    /// "2022.09.1" firmware's blocks thrown away after each retune
    /// (THROWAWAY_BUFFERS in usb_api_sweep.c)
    public static let discardedBlocksPerStep = 2
}

/// Vendor request numbers (bRequest), from libhackrf's hackrf_vendor_request.
public enum HackRFRequest: UInt8, Sendable {
    case setTransceiverMode = 1
    case sampleRateSet = 6
    case basebandFilterBandwidthSet = 7
    case boardIDRead = 14
    case versionStringRead = 15
    case setFrequency = 16
    case ampEnable = 17
    case boardPartIDSerialNumberRead = 18
    case setLNAGain = 19
    case setVGAGain = 20
    case antennaEnable = 23
    case initSweep = 26
    case operacakeGetBoards = 27
    case boardRevisionRead = 45
    case supportedPlatformRead = 46
}

/// SET_TRANSCEIVER_MODE wValue.
public enum HackRFTransceiverMode: UInt16, Sendable {
    case off = 0
    case receive = 1
    case transmit = 2
    case receiveSweep = 5
}

/// INIT_SWEEP style byte.
public enum HackRFSweepStyle: UInt8, Sendable {
    /// +step each retune
    case linear = 0
    /// +step/4 then +3·step/4, so the host keeps two clean quarters per block
    case interleaved = 1
}

/// Reading and writing the 10-byte header of a sweep block.
public enum HackRFBlockHeader {
    /// The sweep frequency [Hz] of a block, or nil unless it starts `7f 7f`.
    @inlinable
    public static func frequency(of block: UnsafeRawBufferPointer) -> UInt64? {
        guard block.count >= HackRFProtocol.headerSize,
              block[0] == HackRFProtocol.headerMagic, block[1] == HackRFProtocol.headerMagic
        else { return nil }
        var hz: UInt64 = 0
        for i in 0..<8 { hz |= UInt64(block[2 + i]) << (8 * UInt64(i)) }
        return hz
    }

    /// Writes `7f 7f` + u64 LE frequency at the start of `block`.
    @inlinable
    public static func write(frequencyHz: UInt64, into block: UnsafeMutableRawBufferPointer) {
        block[0] = HackRFProtocol.headerMagic
        block[1] = HackRFProtocol.headerMagic
        for i in 0..<8 { block[2 + i] = UInt8(truncatingIfNeeded: frequencyHz >> (8 * UInt64(i))) }
    }
}

extension ControlSetup {
    /// A HackRF vendor request to the device.
    static func hackRF(_ request: HackRFRequest, deviceToHost: Bool = false,
                       value: UInt16 = 0, index: UInt16 = 0) -> ControlSetup {
        ControlSetup(requestType: deviceToHost ? .vendorIn : .vendorOut,
                     request: request.rawValue, value: value, index: index)
    }
}

/// Little-endian byte helpers for control payloads.
enum LittleEndianBytes {
    static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(i)))) }
    }

    static func append(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(bytes[offset + i]) << (8 * UInt32(i)) }
        return v
    }

    static func uint16(_ bytes: [UInt8], at offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }
}
