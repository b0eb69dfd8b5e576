/// Raw complex sample layouts: interleaved I then Q, little-endian.
public enum IQSampleFormat: String, Sendable, CaseIterable {
    /// unsigned 8-bit, offset 127.5 (RTL-SDR `.cu8`, SigMF `cu8`)
    case cu8
    /// signed 8-bit (HackRF `.cs8`, SigMF `ci8`)
    case cs8
    /// signed 16-bit (SigMF `ci16_le`)
    case cs16
    /// 32-bit float (SigMF `cf32_le`)
    case cf32

    /// bytes per complex sample (I and Q)
    public var bytesPerSample: Int {
        switch self {
        case .cu8, .cs8: return 2
        case .cs16: return 4
        case .cf32: return 8
        }
    }

    /// SigMF `core:datatype` names (spec: sigmf-spec.md, "Dataset Format")
    public init?(sigmfDatatype: String) {
        switch sigmfDatatype {
        case "cu8", "cu8_le", "cu8_be": self = .cu8
        case "ci8", "ci8_le", "ci8_be": self = .cs8
        case "ci16_le": self = .cs16
        case "cf32_le": self = .cf32
        default: return nil
        }
    }

    /// Converts `count` complex samples to floats scaled so full scale is ±1.
    func convert(_ bytes: UnsafeRawBufferPointer, count: Int, into out: UnsafeMutablePointer<Float>) {
        let values = 2 * count
        switch self {
        case .cu8:
            for i in 0..<values { out[i] = (Float(bytes[i]) - 127.5) / 127.5 }
        case .cs8:
            for i in 0..<values { out[i] = Float(Int8(bitPattern: bytes[i])) / 128 }
        case .cs16:
            for i in 0..<values {
                out[i] = Float(Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self))) / 32768
            }
        case .cf32:
            for i in 0..<values {
                let value = Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
                // NaN/inf samples would poison a whole spectrum: count them as silence
                out[i] = value.isFinite ? value : 0
            }
        }
    }
}

extension IQSampleFormat {
    /// what raw I/Q needs on the command line, for hints (from the reader of
    /// a .bin that is not hackrf_sweep -B, and from detection)
    public static let commandLineHint = "--in-format cu8 --rate RATE --center FREQ (or cs8, cs16, cf32)"
}
