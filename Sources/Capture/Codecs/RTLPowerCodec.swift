/// rtl_power's CSV: one line per hop, read and written byte for byte.
struct RTLPowerCodec: ReadableCaptureCodec, WritableCaptureCodec {
    let name = "rtl_power"
    let summary = "rtl_power's CSV (one line per hop)"
    // rtl_power prints whole seconds: "YYYY-MM-DD, HH:MM:SS, Hz low, …"
    let recognition = CaptureRecognition(
        firstLine: .init(pattern: #"^\d{4}-\d{2}-\d{2}, ?\d{2}:\d{2}:\d{2},"#, extensions: ["csv", "txt"]))

    func makeReader(path: String, options: CaptureReadOptions) throws -> any SpectrumFrameReader {
        try RTLPowerCSVReader(path: path, options: options)
    }

    func makeWriter(path: String, options: CaptureWriteOptions) throws -> any SpectrumFrameWriter {
        RTLPowerFrameWriter(sink: try makeSink(path: path))
    }
}

extension CaptureFormat {
    public static let rtlPower = CaptureFormat(RTLPowerCodec())
}
