import Capture
import DSP
import Foundation
import Signals

/// `tscope export`: a capture drawn as a waterfall PNG, or written as a CSV
/// table (wide or long), or summed up as one trace per bin.
public struct ExportRequest: Sendable {
    /// what is written, and where
    public enum Output: Sendable {
        /// a waterfall PNG, cropped in time and frequency, at most so many rows and columns
        case png(path: String, crop: WaterfallCrop, maxRows: Int, maxColumns: Int)
        /// one row per device bin over the whole capture: its max, min or avg trace
        case trace(csv: String, kind: TraceHold.Kind)
        /// every frame as a table
        case table(csv: String, layout: CSVExporter.Layout)
        /// a held trace as a wireless-microphone coordination tool's scan (Wireless Workbench, WSM)
        case scan(csv: String, layout: ScanExporter.Layout, settings: ScanExporter.Settings)
        /// occupancy as a heat map of channel × time of day (slots of `slotSeconds`, UTC)
        case occupancy(png: String, settings: OccupancySettings, slotSeconds: Double)
    }

    public var input: String
    public var format: CaptureFormat
    public var readOptions: CaptureReadOptions
    public var output: Output
    /// --band-plan: the allocations drawn under the PNG's plot; nil: none (the CSV outputs ignore it)
    public var bandPlan: BandPlan?
    /// --log-frequency: the PNG's frequency axis is logarithmic
    public var logFrequency: Bool

    public init(input: String, format: CaptureFormat, readOptions: CaptureReadOptions, output: Output,
                bandPlan: BandPlan? = nil, logFrequency: Bool = false) {
        self.bandPlan = bandPlan
        self.logFrequency = logFrequency
        self.input = input
        self.format = format
        self.readOptions = readOptions
        self.output = output
    }
}

public enum ExportRun {
    /// Writes the export and returns the line that says what was written (for stderr); damaged input is
    /// reported as the reader counted it.
    public static func run(_ request: ExportRequest) throws -> String {
        let open = { try CaptureInput.open(request.input, format: request.format, options: request.readOptions) }
        switch request.output {
        case .png(let path, let crop, let maxRows, let maxColumns):
            var exporter = PNGWaterfallExporter(crop: crop, maxRows: maxRows, maxColumns: maxColumns)
            exporter.bandPlan = request.bandPlan
            exporter.logFrequency = request.logFrequency
            // the exporter reads the capture twice (levels, then pixels): the last reader has the full counts
            var lastReader: SpectrumFrameReader?
            let title = "\(URL(fileURLWithPath: request.input).lastPathComponent)  (\(request.format.rawValue))"
            let summary = try exporter.export(open: {
                let reader = try open()
                lastReader = reader
                return reader
            }, to: path, title: title, input: request.input)
            if let lastReader { reportSkips(lastReader) }
            return "\(path): \(summary.width)×\(summary.height) px, \(summary.frames) frames, "
                + "\(FrequencyFormat.label(summary.lowHz, maxFractionDigits: 6))–"
                + "\(FrequencyFormat.label(summary.highHz, maxFractionDigits: 6)), "
                + String(format: "%.1f…%.1f dB", summary.floorDB, summary.topDB)
        case .trace(let csv, let kind):
            let reader = try open()
            let summary = try TraceExporter.export(reader, kind: kind, to: csv, input: request.input)
            reportSkips(reader)
            var line = "\(csv): \(kind.rawValue) trace of \(summary.sweeps) sweeps, \(summary.bins) bins"
            if summary.skipped > 0 { line += "; \(summary.skipped) frames with other bins left out" }
            return line
        case .scan(let csv, let layout, let settings):
            let reader = try open()
            let summary = try ScanExporter.export(reader, layout: layout, settings: settings, to: csv, input: request.input)
            reportSkips(reader)
            var line = "\(csv): \(layout.rawValue) scan, \(settings.kind.rawValue) of \(summary.sweeps) sweeps, "
                + "\(summary.points) points \(FrequencyFormat.label(Double(summary.stepHz), maxFractionDigits: 3)) apart"
            if summary.withoutData > 0 {
                line += summary.noDataWritten
                    ? "; \(summary.withoutData) without data written as \(ScanExporter.noDataValue) dBm"
                    : "; \(summary.withoutData) without data left out"
            }
            if summary.unit == .dB {
                line += "; dB taken as dBm (--assume-dbm)"
            } else if summary.unit != .dBm {
                line += String(format: "; %@ converted to dBm (%+.2f dB)", summary.unit.rawValue, summary.offsetDB)
            }
            return line
        case .occupancy(let png, let settings, let slotSeconds):
            let reader = try open()
            return try OccupancyRun.heatMap(reader, settings: settings, slotSeconds: slotSeconds, to: png,
                                            input: request.input)
        case .table(let csv, let layout):
            var conversion = try CaptureConversion(input: request.input, inputFormat: request.format, output: csv,
                                                   outputFormat: .csv, readOptions: request.readOptions)
            conversion.csvLayout = layout
            return try conversion.run()
        }
    }
}
