import ArgumentParser
import CommandOptions
import Capture
import DSP
import Runs

/// Pictures and tables of a capture.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a capture as a waterfall PNG or a CSV table.",
        discussion: """
            --png: frequency across, time down (UTC), colours from the quietest to the loudest value drawn; \
            --start/--end crop in time (ISO 8601 like 2018-11-18T03:32:00Z, Unix seconds, or +SECONDS after the \
            first frame), --low/--high in frequency (e.g. 88.08M). The plot is at least 256 px tall: fewer rows are \
            repeated.
            --csv: wide = one row per frame, a column per bin centre [Hz]; long = time,frequency_hz,power_db. \
            pandas reads either in one call: pd.read_csv(f, index_col="time", parse_dates=["time"]) (wide) or \
            pd.read_csv(f, parse_dates=["time"]) (long).
            --csv with --trace max|min|avg: one row per device bin over the whole capture, \
            frequency_hz,power_db at bin centres (avg: the mean in linear power) — a night's recording summed up, \
            or a reference trace.
            --csv with --scan-format wwb|wsm|sdb2: the held trace as a Wireless Workbench or WSM scan: dBm only \
            (a dBuV capture converted; an uncalibrated one refused unless --assume-dbm), one point per --scan-step \
            (default 25 kHz) on one grid of whole kHz, finer bins merged by their maximum.
            """
    )

    @Argument(help: "Input capture.")
    var input: String

    @Option(help: "Write a waterfall PNG here.")
    var png: String?

    @Option(help: "Write a CSV table here ('-' for stdout).")
    var csv: String?

    @Option(help: "CSV layout: wide or long.")
    var layout: CSVLayoutArgument = .init(layout: .wide)

    @Option(help: "CSV: one row per bin, the capture's max, min or avg (linear power) trace.")
    var trace: TraceHold.Kind?

    @Option(help: "PNG: first time drawn.")
    var start: TimeArgument?
    @Option(help: "PNG: last time drawn.")
    var end: TimeArgument?
    @Option(help: "PNG: lowest frequency drawn [Hz, k/M/G suffix].")
    var low: FrequencyArgument?
    @Option(help: "PNG: highest frequency drawn [Hz, k/M/G suffix].")
    var high: FrequencyArgument?
    @Option(help: "PNG: most data rows of the plot (frames share a row beyond, by maximum).")
    var maxRows: Int = 2000
    @Option(help: "PNG: most columns of the plot.")
    var maxColumns: Int = 2000

    @OptionGroup(title: "Coordination scan") var scan: ScanExportOptions

    @Option(help: "Write occupancy as a PNG heat map here: channel across, time of day (UTC) down (needs --threshold).")
    var occupancy: String?
    @Option(help: "--occupancy: the slot of the day each row counts, e.g. 15m or 1h.", transform: TimeSpan.init(parsing:))
    var slot: TimeSpan?
    @OptionGroup(title: "Occupancy heat map") var occupancyCount: OccupancyCountOptions

    @OptionGroup var inputOptions: CaptureInputOptions
    @OptionGroup var bandPlanOption: BandPlanOption
    @OptionGroup var axisOption: FrequencyAxisOption

    func validate() throws {
        guard [png, csv, occupancy].compactMap({ $0 }).count == 1 else {
            throw ValidationError("give one of --png OUT.png, --csv OUT.csv or --occupancy OUT.png")
        }
        if occupancy != nil { _ = try occupancyCount.requiredThreshold(for: "--occupancy") }
        if scan.format != nil && csv == nil { throw ValidationError("--scan-format writes a CSV: give --csv OUT.csv") }
        if let slot = slot?.seconds, slot > 86_400 { throw ValidationError("--slot: at most a day") }
        if trace != nil && csv == nil { throw ValidationError("--trace writes a CSV: give --csv OUT.csv") }
        if axisOption.logFrequency && png == nil { throw ValidationError("--log-frequency draws the waterfall PNG: give --png OUT.png") }
        if let low, let high, low.hertz >= high.hertz { throw ValidationError("--low must be below --high") }
        guard (1...20_000).contains(maxRows), (1...20_000).contains(maxColumns) else {
            throw ValidationError("--max-rows and --max-columns must be 1…20000")
        }
    }

    func run() throws {
        let output: ExportRequest.Output
        if let png {
            output = .png(path: png, crop: WaterfallCrop(start: start?.bound, end: end?.bound, lowHz: low?.hertz, highHz: high?.hertz),
                          maxRows: maxRows, maxColumns: maxColumns)
        } else if let occupancy {
            output = .occupancy(png: occupancy, settings: OccupancySettings(
                band: nil, channels: try occupancyCount.channelRule(),
                threshold: try occupancyCount.requiredThreshold(for: "--occupancy"), intervalSeconds: nil, output: .text,
                busyHour: false), slotSeconds: slot?.seconds ?? 900)
        } else if let csv, let scanFormat = scan.format {
            output = .scan(csv: csv, layout: scanFormat, settings: try scan.settings(kind: trace ?? .max))
        } else if let csv, let trace {
            output = .trace(csv: csv, kind: trace)
        } else {
            output = .table(csv: csv ?? "-", layout: layout.layout)
        }
        printError(try ExportRun.run(ExportRequest(input: input, format: try inputOptions.format(of: input),
                                                   readOptions: inputOptions.readOptions, output: output,
                                                   bandPlan: try bandPlanOption.plan(), logFrequency: axisOption.logFrequency)))
    }
}
