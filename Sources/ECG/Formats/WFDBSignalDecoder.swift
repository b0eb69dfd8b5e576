/// Decodes the interleaved samples of one WFDB signal file into ADC units.
///
/// Formats (WFDB signal(5) specification):
/// - 16: each sample a little-endian two's-complement int16;
/// - 212: pairs of 12-bit two's-complement samples in 3 bytes: byte 0 is the
///   low 8 bits of the first, the low nibble of byte 1 its high 4 bits, the high
///   nibble of byte 1 the high 4 bits of the second, byte 2 its low 8 bits.
///   Pairs run over the interleaved stream, so they may straddle frames.
///
/// A frame holds each signal's samples in header order; a signal with `xN`
/// in its format has N consecutive samples in every frame (N × the frame rate).
public enum WFDBSignalDecoder {
    public static let supportedFormats: Set<Int> = [16, 212]

    /// adu value WFDB writes for a missing sample, per format
    public static func invalidSample(format: Int) -> Int16 {
        format == 212 ? -2048 : Int16.min
    }

    /// Complete frames a data file of `byteCount` bytes holds after `byteOffset`.
    public static func availableFrames(byteCount: Int, format: Int, samplesPerFrame: [Int], byteOffset: Int) -> Int {
        let frameSize = max(1, samplesPerFrame.reduce(0, +))
        let available = max(0, byteCount - byteOffset)
        // samples of all signals the data holds (complete samples only): format 212 packs two in three bytes
        let samples = format == 16 ? available / 2 : (available / 3) * 2 + (available % 3 >= 2 ? 1 : 0)
        return samples / frameSize
    }

    /// Decodes `signalCount` interleaved signals of one sample per frame from `bytes` (a whole file).
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, format: Int, signalCount: Int, byteOffset: Int,
        frameCount: Int?, file: String
    ) throws -> [[Int16]] {
        try decode(bytes, format: format, samplesPerFrame: Array(repeating: 1, count: max(0, signalCount)),
                   byteOffset: byteOffset, frameCount: frameCount, file: file)
    }

    /// Decodes interleaved signals from `bytes` (a whole file). A frame holds
    /// `samplesPerFrame[s]` consecutive samples of signal `s`, signal after signal.
    /// - Parameters:
    ///   - frameCount: frames the header declares, or nil to use all data
    ///   - file: the data file's name for errors
    /// - Returns: one array of samples [adu] per signal, frames × its samples per frame long
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, format: Int, samplesPerFrame: [Int], byteOffset: Int,
        frameCount: Int?, file: String
    ) throws -> [[Int16]] {
        guard supportedFormats.contains(format) else {
            throw ECGError(file: file, "format \(format) not supported (supported: 16, 212)")
        }
        guard !samplesPerFrame.isEmpty else { throw ECGError(file: file, "no signals to decode") }
        guard samplesPerFrame.allSatisfy({ (1...WFDBSignalSpec.maximumSamplesPerFrame).contains($0) }) else {
            throw ECGError(file: file, "samples per frame must be 1 to \(WFDBSignalSpec.maximumSamplesPerFrame)")
        }
        guard byteOffset <= bytes.count else {
            throw ECGError(file: file, location: .byte(bytes.count),
                           "file ends before the header's byte offset \(byteOffset)")
        }
        let frameSize = samplesPerFrame.reduce(0, +)
        let availableFrames = Self.availableFrames(byteCount: bytes.count, format: format, samplesPerFrame: samplesPerFrame,
                                                   byteOffset: byteOffset)
        // a record of one sample per frame counts "samples per signal", as its header does
        let unit = frameSize == samplesPerFrame.count ? "samples per signal" : "frames"
        let frames: Int
        if let declared = frameCount {
            if declared > availableFrames {
                throw ECGError(file: file, location: .byte(bytes.count),
                               "data ends after \(availableFrames) of the \(declared) \(unit) the header declares")
            }
            if availableFrames > declared {
                throw ECGError(file: file, location: .byte(byteOffset + byteCount(format: format, samples: declared * frameSize)),
                               "data holds \(availableFrames) \(unit), the header declares \(declared): wrong sample count or format in the header")
            }
            frames = declared
        } else {
            frames = availableFrames
        }
        var output = samplesPerFrame.map { [Int16](repeating: 0, count: frames * $0) }
        let base = bytes.baseAddress.map { UnsafeRawPointer($0) + byteOffset }
        guard let base, frames > 0 else { return output }
        for signal in samplesPerFrame.indices {
            let perFrame = samplesPerFrame[signal]
            // index of this signal's first sample in the interleaved stream
            let first = samplesPerFrame[..<signal].reduce(0, +)
            output[signal].withUnsafeMutableBufferPointer { out in
                if format == 16 && perFrame == 1 {
                    // the common case (one sample per frame, 16-bit) without the general loop's
                    // per-sample bookkeeping: reading was a twentieth of `ecg classify`'s time
                    for frame in 0..<frames {
                        let offset = 2 * (frame * frameSize + first)
                        out[frame] = Int16(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: Int16.self))
                    }
                    return
                }
                var position = 0
                for frame in 0..<frames {
                    let start = frame * frameSize + first
                    for index in start..<start + perFrame {
                        out[position] = format == 16 ? sample16(base, index) : sample212(base, index)
                        position += 1
                    }
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
