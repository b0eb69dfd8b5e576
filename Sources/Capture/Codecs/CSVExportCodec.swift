/// tscope's table export (wide or long), for pandas and spreadsheets; not
/// read back (its header line starts "time,", which detection names).
struct CSVExportCodec: WritableCaptureCodec {
    let name = "csv"
    let summary = "a tscope CSV export (a table for pandas)"
    let recognition = CaptureRecognition(firstLine: .init(pattern: "^time,", extensions: ["csv"], example: "time,…"))
    // no outputExtensions: .csv is rtl_power's and hackrf_sweep's too, --format decides

    func makeWriter(path: String, options: CaptureWriteOptions) throws -> any SpectrumFrameWriter {
        CSVExporter(sink: try makeSink(path: path), layout: options.csvLayout, unit: options.metadata?.levelUnit ?? .dB)
    }
}

extension CaptureFormat {
    public static let csv = CaptureFormat(CSVExportCodec())
}
