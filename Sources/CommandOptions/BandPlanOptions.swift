import ArgumentParser
import Foundation
import Signals
import ViewModels

/// `--band-plan FILE|NAME` on watch, replay, export, events and meter: a
/// band plan read from a CSV file (`start_hz,stop_hz,label[,colour]`) or
/// built in (`BuiltInBandPlans`); repeat to combine. `--band-plan help`
/// lists the built-in plans with their sources and exits.
public struct BandPlanOption: ParsableArguments {
    public init() {}

    @Option(name: .customLong("band-plan"), parsing: .singleValue, help: ArgumentHelp(
        "Band plan: a CSV file of start_hz,stop_hz,label[,colour] or a built-in plan ("
            + BuiltInBandPlans.all.map(\.name).joined(separator: ", ") + "); repeat to combine; "
            + "'help' lists them with their sources.", valueName: "FILE|NAME"))
    public var sources: [String] = []

    public func validate() throws {
        if sources.contains(where: { $0.lowercased() == "help" }) { throw CleanExit.message(BuiltInBandPlans.helpText) }
        _ = try plan()
    }

    /// The plans given, as one; nil when none was given. A file that cannot
    /// be read is one line naming it (and the line).
    public func plan() throws -> BandPlan? {
        try BandPlan.merging(sources.map { source in
            if let builtIn = BuiltInBandPlans.named(source) { return builtIn }
            guard FileManager.default.fileExists(atPath: source) else {
                throw ValidationError("--band-plan \(source): no such file, nor a built-in plan ("
                    + BuiltInBandPlans.all.map(\.name).joined(separator: ", ") + ")")
            }
            do {
                return try BandPlan.read(path: source)
            } catch {
                throw ValidationError("--band-plan \(error)")
            }
        })
    }
}

/// The band plan in the interactive views (watch, replay): `--band-plan`
/// and `--band-plan-grid` (the channel grid from the start; b toggles it),
/// and the frequency axis they are drawn on (`--log-frequency`).
public struct BandPlanViewOptions: ParsableArguments {
    public init() {}

    @OptionGroup public var bandPlan: BandPlanOption
    @OptionGroup public var axis: FrequencyAxisOption

    @Flag(name: .customLong("band-plan-grid"),
          help: "With --band-plan: faint lines at every allocation edge across the plot from the start (b toggles).")
    public var grid = false

    public func validate() throws {
        if grid && bandPlan.sources.isEmpty { throw ValidationError("--band-plan-grid needs --band-plan FILE|NAME") }
    }

    /// Puts the plan (and the grid, if asked) into the viewer's model.
    public func apply(to model: AnalyzerModel) throws {
        try axis.apply(to: model)
        guard let plan = try bandPlan.plan() else { return }
        model.setBandPlan(plan, grid: grid)
    }
}
