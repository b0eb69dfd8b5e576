/// Pure decoders of the three profiles' notifications. Each takes the bytes of
/// one notification (one PropertiesChanged "Value" from BlueZ) and returns what
/// it carries, or nil for a notification that is too short or malformed; the
/// caller counts those (`BLENotificationCounts`). None of them traps on any input.

/// The Kardia-style board: each notification is one or more little-endian
/// IEEE 754 float32 samples, amplitude in mV, at the rate the board is set to
/// (not in the data: `--rate`).
public enum KardiaDecoder {
    /// Appends the notification's samples [mV] to `samples`; false (nothing
    /// appended) when it is empty, not a whole number of float32s, or holds a
    /// value that is not finite.
    public static func decode(_ bytes: [UInt8], into samples: inout [Float]) -> Bool {
        guard !bytes.isEmpty, bytes.count % 4 == 0 else { return false }
        let start = samples.count
        samples.reserveCapacity(start + bytes.count / 4)
        var offset = 0
        while offset < bytes.count {
            let bits = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
                | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
            let value = Float(bitPattern: bits)
            guard value.isFinite else {
                samples.removeSubrange(start...)
                return false
            }
            samples.append(value)
            offset += 4
        }
        return true
    }
}

/// One Heart Rate Measurement (characteristic 0x2A37 of the Heart Rate Service
/// 0x180D), as the Bluetooth SIG's GATT Specification Supplement defines it
/// ("Heart Rate Measurement"; Heart Rate Service 1.0): a flags byte, then the
/// rate (uint8, or uint16 when flags bit 0 is set), the energy expended
/// (uint16, kJ, when bit 3 is set) and zero or more RR intervals (uint16 each,
/// 1/1024 s, when bit 4 is set) to the end of the value. Bits 1–2 are the
/// sensor contact status: bit 2 says contact detection is supported, bit 1 that
/// contact is detected. A strap may change its flags from one notification to
/// the next (RR present in one, absent in the next; 8-bit then 16-bit rate).
public struct HeartRateMeasurement: Equatable, Sendable {
    public enum SensorContact: Equatable, Sendable {
        /// the sensor does not report contact (bit 2 clear)
        case notSupported
        case notDetected
        case detected
    }

    /// heart rate [beats/min]
    public var heartRate: Int
    public var sensorContact: SensorContact
    /// energy expended since the last reset [kJ], when present
    public var energyExpended: Int?
    /// RR intervals [1/1024 s], oldest first
    public var rrIntervals: [UInt16]

    public init(heartRate: Int, sensorContact: SensorContact, energyExpended: Int? = nil, rrIntervals: [UInt16] = []) {
        self.heartRate = heartRate
        self.sensorContact = sensorContact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
    }

    /// RR intervals [s]
    public var rrSeconds: [Double] { rrIntervals.map { Double($0) / 1024 } }

    /// The measurement in `bytes`; nil when the value is shorter than its flags
    /// say, or the RR field is not a whole number of uint16s.
    public static func decode(_ bytes: [UInt8]) -> HeartRateMeasurement? {
        guard let flags = bytes.first else { return nil }
        var offset = 1
        func uint16() -> Int? {
            guard offset + 2 <= bytes.count else { return nil }
            defer { offset += 2 }
            return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
        }
        let rate: Int
        if flags & 0x01 != 0 {
            guard let value = uint16() else { return nil }
            rate = value
        } else {
            guard offset < bytes.count else { return nil }
            rate = Int(bytes[offset])
            offset += 1
        }
        let contact: SensorContact = flags & 0x04 == 0 ? .notSupported : flags & 0x02 != 0 ? .detected : .notDetected
        var energy: Int?
        if flags & 0x08 != 0 {
            guard let value = uint16() else { return nil }
            energy = value
        }
        var intervals: [UInt16] = []
        if flags & 0x10 != 0 {
            guard (bytes.count - offset) % 2 == 0 else { return nil }
            while let value = uint16() { intervals.append(UInt16(value)) }
        }
        return HeartRateMeasurement(heartRate: rate, sensorContact: contact, energyExpended: energy, rrIntervals: intervals)
    }
}

/// Polar Measurement Data (PMD), the Polar H10's raw ECG, as the Polar BLE
/// SDK's published documentation of the PMD service describes it
/// (github.com/polarofficial/polar-ble-sdk, technical_documentation: "Polar
/// Measurement Data Specification for 3rd party"). The client writes requests
/// to the control point (…5c81…) and reads answers there, which start with
/// 0xF0 (a read of the control point instead returns the supported
/// measurements, starting with 0x0F); data comes as notifications of the data
/// characteristic (…5c82…).
public enum PolarPMD {
    /// measurement type 0: ECG
    public static let ecgMeasurementType: UInt8 = 0x00
    /// the leading byte of a control-point answer
    public static let controlPointResponse: UInt8 = 0xF0
    /// op code 2: start measurement
    public static let startMeasurement: UInt8 = 0x02
    /// op code 3: stop measurement
    public static let stopMeasurement: UInt8 = 0x03
    /// the only ECG rate the H10 offers [Hz]
    public static let ecgSampleRate = 130.0

    /// Start ECG: op 0x02, type 0 (ECG); setting 0 (sample rate): one value,
    /// uint16 130; setting 1 (resolution): one value, uint16 14 [bits].
    public static let startECGRequest: [UInt8] = [0x02, 0x00, 0x00, 0x01, 0x82, 0x00, 0x01, 0x01, 0x0E, 0x00]

    /// Stop ECG: op 0x03, type 0.
    public static let stopECGRequest: [UInt8] = [0x03, 0x00]

    /// A control-point answer: 0xF0, the op code answered, the measurement
    /// type, an error code (0 success), then more-frames and parameters.
    public struct ControlPointResponse: Equatable, Sendable {
        public var opCode: UInt8
        public var measurementType: UInt8
        public var errorCode: UInt8

        public var succeeded: Bool { errorCode == 0 }

        /// The answer in `bytes`, nil for anything that is not one (a read of the features, a short value).
        public static func decode(_ bytes: [UInt8]) -> ControlPointResponse? {
            guard bytes.count >= 4, bytes[0] == PolarPMD.controlPointResponse else { return nil }
            return ControlPointResponse(opCode: bytes[1], measurementType: bytes[2], errorCode: bytes[3])
        }

        /// The documented meaning of the error code.
        public var errorText: String {
            switch errorCode {
            case 0: "success"
            case 1: "invalid op code"
            case 2: "invalid measurement type"
            case 3: "not supported"
            case 4: "invalid length"
            case 5: "invalid parameter"
            case 6: "already in state"
            case 7: "invalid resolution"
            case 8: "invalid sample rate"
            case 9: "invalid range"
            case 10: "invalid MTU"
            case 11: "invalid number of channels"
            case 12: "invalid state"
            case 13: "device in charger"
            default: "error \(errorCode)"
            }
        }
    }

    /// One ECG data frame: byte 0 the measurement type (0, ECG), bytes 1–8 the
    /// sensor's timestamp (uint64 little-endian, ns), byte 9 the frame type (0:
    /// uncompressed), then samples of 3 bytes each, little-endian signed, µV.
    public struct ECGFrame: Equatable, Sendable {
        /// the sensor's timestamp of the frame [ns]
        public var timestamp: UInt64
        /// samples [µV]
        public var microvolts: [Int32]

        /// The frame in `bytes`; nil when it is not an uncompressed ECG frame or
        /// its samples are not whole 3-byte values.
        public static func decode(_ bytes: [UInt8]) -> ECGFrame? {
            guard bytes.count >= 10, bytes[0] == PolarPMD.ecgMeasurementType, bytes[9] == 0x00 else { return nil }
            let payload = bytes.count - 10
            guard payload % 3 == 0 else { return nil }
            var timestamp: UInt64 = 0
            for index in 0..<8 { timestamp |= UInt64(bytes[1 + index]) << (8 * UInt64(index)) }
            var samples: [Int32] = []
            samples.reserveCapacity(payload / 3)
            var offset = 10
            while offset < bytes.count {
                let raw = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
                // sign-extend the 24-bit value
                samples.append(Int32(bitPattern: raw << 8) >> 8)
                offset += 3
            }
            return ECGFrame(timestamp: timestamp, microvolts: samples)
        }
    }
}
