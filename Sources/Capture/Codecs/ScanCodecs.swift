/// The scan files of wireless-microphone frequency coordination, read as
/// captures of one frame per scan (`Sources/Capture/Scans`); `export
/// --scan-format` writes the first three (`ScanExporter`).

/// Shure Wireless Workbench's native scan (XML), `.sdb2` and the older `.sdb`.
struct SDB2Codec: ReadableCaptureCodec {
    let name = "sdb2"
    let summary = "Wireless Workbench scan (.sdb2 XML)"
    let recognition = CaptureRecognition(extensions: ["sdb2", "sdb"], isText: true)

    func makeReader(path: String, options: CaptureReadOptions) throws -> any SpectrumFrameReader {
        try SDB2ScanReader.read(path: path, options: options)
    }
}

/// Two-column MHz,dBm scan: the CSV Wireless Workbench imports, RF Explorer's single-signal export.
struct WWBCSVCodec: ReadableCaptureCodec {
    let name = "wwb"
    let summary = "MHz,dBm scan (WWB CSV, RF Explorer single)"
    // "571.0500,-77.2": a frequency, one separator, a level (a decimal comma only where the separator is not
    // a comma), and the line's end
    let recognition = CaptureRecognition(firstLine: .init(
        pattern: #"^\d{1,6}(\.\d+)?(,-?\d{1,4}(\.\d+)?|[;|\t ] ?-?\d{1,4}([.,]\d+)?)\r?(\n|$)"#, extensions: ["csv", "txt"],
        example: "571.050,-77.2"))

    func makeReader(path: String, options: CaptureReadOptions) throws -> any SpectrumFrameReader {
        try TwoColumnScanReader.read(path: path, options: options)
    }
}

/// Sennheiser Wireless Systems Manager's scan CSV.
struct WSMCodec: ReadableCaptureCodec {
    let name = "wsm"
    let summary = "Sennheiser WSM scan (kHz;%;dBm rows)"
    let recognition = CaptureRecognition(firstLine: .init(pattern: "^Receiver;", extensions: ["csv"],
                                                          example: "Receiver;…"))

    func makeReader(path: String, options: CaptureReadOptions) throws -> any SpectrumFrameReader {
        try WSMScanReader.read(path: path, options: options)
    }
}

/// RF Explorer for Windows' multi-sweep CSV export.
struct RFExplorerCSVCodec: ReadableCaptureCodec {
    let name = "rfexplorer"
    let summary = "RF Explorer's cumulative CSV (one row a sweep)"
    let recognition = CaptureRecognition(firstLine: .init(pattern: "^" + RFExplorerScanReader.signature,
                                                          extensions: ["csv"],
                                                          example: "RF Explorer CSV data file: …"))

    func makeReader(path: String, options: CaptureReadOptions) throws -> any SpectrumFrameReader {
        try RFExplorerScanReader.read(path: path, options: options)
    }
}

/// A Rigol DSA800 analyzer's saved CSV trace.
struct RigolTraceCodec: ReadableCaptureCodec {
    let name = "rigol_dsa"
    let summary = "Rigol DSA800 CSV trace (Hz, level rows)"
    let recognition = CaptureRecognition(firstLine: .init(pattern: #"^Trace\d,\r?\n"#, extensions: ["csv"],
                                                          example: "Trace1,"))

    func makeReader(path: String, options: CaptureReadOptions) throws -> any SpectrumFrameReader {
        try RigolTraceScanReader.read(path: path, options: options)
    }
}

extension CaptureFormat {
    public static let sdb2 = CaptureFormat(SDB2Codec())
    public static let wwbCSV = CaptureFormat(WWBCSVCodec())
    public static let wsm = CaptureFormat(WSMCodec())
    public static let rfExplorerCSV = CaptureFormat(RFExplorerCSVCodec())
    public static let rigolTrace = CaptureFormat(RigolTraceCodec())
}
