import ArgumentParser
import Capture
import DSP
import ECG
import Foundation
import Runs
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

/// The view `watch` starts in.
public enum ViewChoice: String, ExpressibleByArgument, CaseIterable {
    case plot, waterfall, meter

    public var mode: AnalyzerMode {
        switch self {
        case .plot: return .plot
        case .waterfall: return .waterfall
        case .meter: return .meter
        }
    }
}

/// --from/--to as a usage error, checked before anything is read.
public func validateExcerpt(from: Double?, to: Double?) throws {
    if let problem = ECGExcerpt.problem(from: from, to: to) { throw ValidationError(problem) }
}
