/// Decodes the interleaved samples of one WFDB signal file into ADC units.
///
/// Formats (WFDB signal(5) specification):
/// - 16: each sample a little-endian two's-complement int16;
/// - 212: pairs of 12-bit two's-complement samples in 3 bytes: byte 0 is the
///   low 8 bits of the first, the low nibble of byte 1 its high 4 bits, the high
///   nibble of byte 1 the high 4 bits of the second, byte 2 its low 8 bits.
///   Pairs run over the interleaved stream, so they may straddle frames.
public enum WFDBSignalDecoder {
    public static let supportedFormats: Set<Int> = [16, 212]

    /// adu value WFDB writes for a missing sample, per format
    public static func invalidSample(format: Int) -> Int16 {
        format == 212 ? -2048 : Int16.min
    }

    /// Decodes `signalCount` interleaved signals from `bytes` (a whole file).
    /// - Parameters:
    ///   - frameCount: samples per signal the header declares, or nil to use all data
    ///   - file: the data file's name for errors
    /// - Returns: one array of samples [adu] per signal
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, format: Int, signalCount: Int, byteOffset: Int,
        frameCount: Int?, file: String
    ) throws -> [[Int16]] {
        guard supportedFormats.contains(format) else {
            throw ECGError(file: file, "format \(format) not supported (supported: 16, 212)")
        }
        guard signalCount >= 1 else { throw ECGError(file: file, "no signals to decode") }
        guard byteOffset <= bytes.count else {
            throw ECGError(file: file, location: .byte(bytes.count),
                           "file ends before the header's byte offset \(byteOffset)")
        }
        let available = bytes.count - byteOffset
        // samples of all signals the data holds (complete samples only)
        let availableSamples = format == 16 ? available / 2 : (available / 3) * 2 + (available % 3 >= 2 ? 1 : 0)
        let availableFrames = availableSamples / signalCount
        let frames: Int
        if let declared = frameCount {
            if declared > availableFrames {
                throw ECGError(file: file, location: .byte(bytes.count),
                               "data ends after \(availableFrames) of the \(declared) samples per signal the header declares")
            }
            if availableFrames > declared {
                throw ECGError(file: file, location: .byte(byteOffset + byteCount(format: format, samples: declared * signalCount)),
                               "data holds \(availableFrames) samples per signal, the header declares \(declared): wrong sample count or format in the header")
            }
            frames = declared
        } else {
            frames = availableFrames
        }
        var output = Array(repeating: [Int16](repeating: 0, count: frames), count: signalCount)
        let total = frames * signalCount
        let base = bytes.baseAddress.map { UnsafeRawPointer($0) + byteOffset }
        guard let base, total > 0 else { return output }
        for signal in 0..<signalCount {
            output[signal].withUnsafeMutableBufferPointer { out in
                var index = signal
                for frame in 0..<frames {
                    out[frame] = format == 16 ? sample16(base, index) : sample212(base, index)
                    index += signalCount
                }
            }
        }
        return output
    }

    /// bytes that `samples` interleaved samples occupy
    static func byteCount(format: Int, samples: Int) -> Int {
        format == 16 ? samples * 2 : (samples / 2) * 3 + (samples % 2) * 2
    }

    @inline(__always)
    static func sample16(_ base: UnsafeRawPointer, _ index: Int) -> Int16 {
        let low = UInt16(base.load(fromByteOffset: 2 * index, as: UInt8.self))
        let high = UInt16(base.load(fromByteOffset: 2 * index + 1, as: UInt8.self))
        return Int16(bitPattern: low | high << 8)
    }

    @inline(__always)
    static func sample212(_ base: UnsafeRawPointer, _ index: Int) -> Int16 {
        let pair = 3 * (index / 2)
        let middle = UInt16(base.load(fromByteOffset: pair + 1, as: UInt8.self))
        let raw: UInt16
        if index % 2 == 0 {
            raw = UInt16(base.load(fromByteOffset: pair, as: UInt8.self)) | (middle & 0x0F) << 8
        } else {
            raw = UInt16(base.load(fromByteOffset: pair + 2, as: UInt8.self)) | (middle & 0xF0) << 4
        }
        // sign-extend 12 bits
        return Int16(bitPattern: raw << 4) >> 4
    }
}
