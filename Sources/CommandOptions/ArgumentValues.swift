import ArgumentParser
import Capture
import DSP
import ECG
import Foundation
import Runs
import Signals
import ViewModels

extension TraceHold.Kind: ExpressibleByArgument {}

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

/// --from/--to as a usage error, checked before anything is read.
public func validateExcerpt(from: Double?, to: Double?) throws {
    if let problem = ECGExcerpt.problem(from: from, to: to) { throw ValidationError(problem) }
}
