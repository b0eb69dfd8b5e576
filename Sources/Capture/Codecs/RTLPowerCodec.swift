/// rtl_power's CSV: one line per hop, read and written byte for byte.
struct RTLPowerCodec: PathReaderCodec, SinkWriterCodec {
    typealias Reader = RTLPowerCSVReader
    typealias Writer = RTLPowerFrameWriter
    let name = "rtl_power"
    let summary = "rtl_power's CSV (one line per hop)"
    // rtl_power prints whole seconds: "YYYY-MM-DD, HH:MM:SS, Hz low, …"; so
    // did hackrf_sweep 2018.01.1, whose lines have another structure
    let recognition = CaptureRecognition(
        firstLine: .init(pattern: #"^\d{4}-\d{2}-\d{2}, ?\d{2}:\d{2}:\d{2},"#, extensions: ["csv", "txt"],
                         example: "2024-05-01, 12:00:00, Hz low, Hz high, Hz step, samples, dB, …",
                         structure: { !HackRFSweepCodec.hasSweepStructure($0) }))
}

extension CaptureFormat {
    public static let rtlPower = CaptureFormat(RTLPowerCodec())
}
