import ArgumentParser
import Runs
import ViewModels

/// How `ecg watch` draws: strip length, refresh rate, strip or 12-lead, and the heart-rate target zone.
public struct ECGViewOptions: ParsableArguments {
    public init() {}

    public enum LayoutChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
        case strip
        case twelveLead = "12-lead"
    }

    @Option(name: .customLong("strip"), help: "Strip length [s] (2.5–10).")
    public var stripSeconds: Double = 10

    @Option(help: "Refresh rate [frames/s] (5–60).")
    public var fps: Double = 30

    @Option(help: "strip or 12-lead (default: 12-lead when the source has the leads).")
    public var layout: LayoutChoice?

    @Option(name: .customLong("target-hr"), help: "Target heart-rate zone A:B [beats/min] drawn in the trend (key t).")
    public var targetHeartRate: String?

    /// --target-hr as a range, nil when not given
    public func targetZone() throws -> ClosedRange<Double>? {
        guard let targetHeartRate else { return nil }
        let parts = targetHeartRate.split(separator: ":").map { Double($0) }
        guard parts.count == 2, let low = parts[0], let high = parts[1], low >= 20, high <= 250, low < high else {
            throw ValidationError("--target-hr \(targetHeartRate): expected A:B beats/min with 20 ≤ A < B ≤ 250, e.g. 60:100")
        }
        return low...high
    }

    public func validate() throws {
        guard stripSeconds.isFinite, stripSeconds >= 2.5, stripSeconds <= 10 else {
            throw ValidationError("--strip \(stripSeconds): expected 2.5 to 10 s")
        }
        guard fps.isFinite, fps >= 5, fps <= 60 else { throw ValidationError("--fps \(fps): expected 5 to 60") }
        _ = try targetZone()
    }

    /// The viewer run of `source` drawn as these options say.
    public func run(source: ECGSourceRequest, sourcePath: String?) throws -> ECGViewerRun {
        var run = ECGViewerRun(source: source, sourcePath: sourcePath, stripSeconds: stripSeconds, refreshRate: fps)
        run.layout = layout.map { $0 == .strip ? .strip : .twelveLead }
        run.targetZone = try targetZone()
        return run
    }
}
