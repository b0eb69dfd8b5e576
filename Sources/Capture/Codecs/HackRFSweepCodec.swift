import Foundation

/// hackrf_sweep's text output: one CSV line per 5 MHz block.
struct HackRFSweepCodec: PathReaderCodec, WritableCaptureCodec {
    typealias Reader = HackRFSweepCSVReader
    let name = "hackrf_sweep"
    let summary = "hackrf_sweep's CSV (one line per block)"
    // hackrf_sweep prints microseconds after the seconds ("HH:MM:SS.ffffff,")
    // since 2019; its 2018.01.1 release whole seconds, as rtl_power does, so
    // such a line is told by its structure (`hasSweepStructure`)
    let recognition = CaptureRecognition(
        firstLine: .init(pattern: #"^\d{4}-\d{2}-\d{2}, ?\d{2}:\d{2}:\d{2}[.,]"#, extensions: ["csv", "txt"],
                         example: "2024-05-01, 12:00:00.123456, Hz low, Hz high, Hz bin width, samples, dB, …",
                         structure: { HackRFSweepCodec.hasSweepStructure($0) }))

    /// Whether a first line is hackrf_sweep's: a time with a fraction (no
    /// other sweep tool prints one), or a 5 MHz block holding exactly
    /// (high − low)/step values. rtl_power's hop lines hold one value more
    /// (it prints its last bin twice), and its hops are the tuner's width.
    static func hasSweepStructure(_ line: Substring) -> Bool {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard fields.count >= 7 else { return false }
        if fields[1].contains(".") { return true }
        guard let low = Double(fields[2]), let high = Double(fields[3]), let step = Double(fields[4]),
              step > 0, high > low else { return false }
        let values = fields.count - 6
        return abs((high - low) - HackRFSweepFrameWriter.sliceWidthHz) < 1 && abs(Double(values) - (high - low) / step) < 0.5
    }

    func makeWriter(path: String, options: CaptureWriteOptions) throws -> any SpectrumFrameWriter {
        HackRFSweepFrameWriter(sink: try makeSink(path: path), layout: .text)
    }
}

extension CaptureFormat {
    public static let hackrfSweep = CaptureFormat(HackRFSweepCodec())
}
