/// hackrf_sweep's text output: one CSV line per 5 MHz block.
struct HackRFSweepCodec: PathReaderCodec, WritableCaptureCodec {
    typealias Reader = HackRFSweepCSVReader
    let name = "hackrf_sweep"
    let summary = "hackrf_sweep's CSV (one line per block)"
    // hackrf_sweep prints microseconds after the seconds: "HH:MM:SS.ffffff,"
    let recognition = CaptureRecognition(
        firstLine: .init(pattern: #"^\d{4}-\d{2}-\d{2}, ?\d{2}:\d{2}:\d{2}\.\d"#, extensions: ["csv", "txt"]))

    func makeWriter(path: String, options: CaptureWriteOptions) throws -> any SpectrumFrameWriter {
        HackRFSweepFrameWriter(sink: try makeSink(path: path), layout: .text)
    }
}

extension CaptureFormat {
    public static let hackrfSweep = CaptureFormat(HackRFSweepCodec())
}
