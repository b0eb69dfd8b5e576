import ArgumentParser
import Capture
import DSP
import ECG
import Foundation
import Runs
import Signals
import ViewModels

extension TraceHold.Kind: ExpressibleByArgument {}
extension ScanExporter.Layout: ExpressibleByArgument {}

/// `--start/--end`: ISO 8601, Unix seconds, or +SECONDS after the first frame.
public struct TimeArgument: ExpressibleByArgument {
    public var bound: WaterfallCrop.TimeBound
    public init?(argument: String) {
        if argument.hasPrefix("+"), let seconds = Double(argument.dropFirst()), seconds.isFinite {
            bound = .afterStart(seconds)
        } else if let seconds = Double(argument), seconds.isFinite {
            bound = .absolute(seconds)
        } else {
            let formatter = ISO8601DateFormatter()
            guard let date = formatter.date(from: argument) else { return nil }
            bound = .absolute(date.timeIntervalSince1970)
        }
    }
}

/// `--layout` values.
public struct CSVLayoutArgument: ExpressibleByArgument {
    public var layout: CSVExporter.Layout
    public init(layout: CSVExporter.Layout) { self.layout = layout }
    public init?(argument: String) {
        guard let layout = CSVExporter.Layout(rawValue: argument) else { return nil }
        self.layout = layout
    }
    public var defaultValueDescription: String { layout.rawValue }
    public static var allValueStrings: [String] { CSVExporter.Layout.allCases.map(\.rawValue) }
}

/// The view `watch` and `replay` start in: any AnalyzerMode by its title
/// (plot, waterfall, meter, persistence), so a new view is offered here too.
public struct ViewChoice: ExpressibleByArgument, Equatable, Sendable {
    public var mode: AnalyzerMode

    public init(_ mode: AnalyzerMode) { self.mode = mode }

    public init?(argument: String) {
        guard let mode = AnalyzerMode(title: argument.lowercased()) else { return nil }
        self.mode = mode
    }

    public static let plot = ViewChoice(.plot)
    public var defaultValueDescription: String { mode.title }
    public static var allValueStrings: [String] { AnalyzerMode.allCases.map(\.title) }
    /// "plot, waterfall, meter, persistence" for help texts
    public static var listed: String { allValueStrings.joined(separator: ", ") }
}

/// `--waterfall-rate ROWS_PER_S` on watch and replay: how many waterfall
/// rows a second (each the max of the frames in its slot).
public struct WaterfallRateOption: ParsableArguments {
    @Option(name: .customLong("waterfall-rate"),
            help: ArgumentHelp("Waterfall rows per second, 0.5 to 30 (default 2); each row holds the peak of every "
                + "frame in its time slot, so 30 gives a ~30 frames/s source one row per frame.",
                valueName: "ROWS_PER_S"))
    public var rowsPerSecond: Double = WaterfallHistory.defaultRowsPerSecond

    public init() {}

    public func validate() throws {
        let limits = WaterfallHistory.rowsPerSecondLimits
        guard rowsPerSecond.isFinite, limits.contains(rowsPerSecond) else {
            throw ValidationError("--waterfall-rate \(rowsPerSecond): expected \(FrequencyFormat.trimmed(limits.lowerBound, maxFractionDigits: 1)) "
                + "to \(FrequencyFormat.trimmed(limits.upperBound, maxFractionDigits: 1)) rows per second")
        }
    }
}

/// --from/--to as a usage error, checked before anything is read.
public func validateExcerpt(from: Double?, to: Double?) throws {
    if let problem = ECGExcerpt.problem(from: from, to: to) { throw ValidationError(problem) }
}
