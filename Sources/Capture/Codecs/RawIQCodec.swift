/// Raw interleaved I/Q samples in one layout, read as spectra; the file says
/// nothing of its rate and centre, so `--rate` and `--center` give them.
struct RawIQCodec: ReadableCaptureCodec {
    let sampleFormat: IQSampleFormat

    var name: String { sampleFormat.rawValue }

    var summary: String {
        switch sampleFormat {
        case .cu8: return "raw I/Q, unsigned 8-bit (rtl_sdr)"
        case .cs8: return "raw I/Q, signed 8-bit (hackrf_transfer)"
        case .cs16: return "raw I/Q, signed 16-bit little-endian"
        case .cf32: return "raw I/Q, 32-bit float little-endian (GNU Radio)"
        }
    }

    /// the extensions tools give this layout (GNU Radio's and SDR++'s, and the short ones)
    var recognition: CaptureRecognition {
        switch sampleFormat {
        case .cu8: return CaptureRecognition(extensions: ["cu8", "u8"])
        case .cs8: return CaptureRecognition(extensions: ["cs8", "s8"])
        case .cs16: return CaptureRecognition(extensions: ["cs16", "s16"])
        case .cf32: return CaptureRecognition(extensions: ["cf32", "fc32"])
        }
    }


    func makeReader(path: String, options: CaptureReadOptions) throws -> any SpectrumFrameReader {
        try IQSpectrumReader(path: path, format: sampleFormat, options: options.iq)
    }
}

extension CaptureFormat {
    public static let cu8 = CaptureFormat(RawIQCodec(sampleFormat: .cu8))
    public static let cs8 = CaptureFormat(RawIQCodec(sampleFormat: .cs8))
    public static let cs16 = CaptureFormat(RawIQCodec(sampleFormat: .cs16))
    public static let cf32 = CaptureFormat(RawIQCodec(sampleFormat: .cf32))
}
