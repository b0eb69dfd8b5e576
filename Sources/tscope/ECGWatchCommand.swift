import ArgumentParser
import CommandOptions
import Foundation
import Runs

/// `tscope ecg watch`: live ECG strips or the 12-lead printout in the terminal.
struct ECGWatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch ECG strips live (sweep drawing, heart rate, rhythm, events).",
        discussion: """
            Keys: space pause/resume, ←/→ strip length (2.5–10 s), ↑/↓ gain, v strip ↔ 12-lead, \
            l next leads, e event list (↑/↓ select, x delete), t heart-rate trend (against the .atr or --target-hr), [ ] synthetic sample rate, \
            - + refresh rate, < > replay speed, q quit. A record's .atr beats (an EDF+ file's beat annotations) are marked ▾ above the rhythm strip, other annotations written ◆text.
            """
    )

    enum LayoutChoice: String, ExpressibleByArgument, CaseIterable {
        case strip
        case twelveLead = "12-lead"
    }

    @Argument(help: "A WFDB record (path with or without .hea), an EDF/EDF+ file (.edf) or a CSV file to replay; \"synthetic\" or nothing for the synthetic ECG.")
    var source: String?

    @OptionGroup var sourceOptions: ECGSourceOptions

    @Option(name: .customLong("strip"), help: "Strip length [s] (2.5–10).")
    var stripSeconds: Double = 10

    @Option(help: "Refresh rate [frames/s] (5–60).")
    var fps: Double = 30

    @Option(help: "strip or 12-lead (default: 12-lead when the source has the leads).")
    var layout: LayoutChoice?

    @Option(name: .customLong("target-hr"), help: "Target heart-rate zone A:B [beats/min] drawn in the trend (key t).")
    var targetHeartRate: String?

    /// --target-hr as a range, nil when not given
    func targetZone() throws -> ClosedRange<Double>? {
        guard let targetHeartRate else { return nil }
        let parts = targetHeartRate.split(separator: ":").map { Double($0) }
        guard parts.count == 2, let low = parts[0], let high = parts[1], low >= 20, high <= 250, low < high else {
            throw ValidationError("--target-hr \(targetHeartRate): expected A:B beats/min with 20 ≤ A < B ≤ 250, e.g. 60:100")
        }
        return low...high
    }

    func validate() throws {
        try sourceOptions.validate(sourcePath: source)
        guard stripSeconds.isFinite, stripSeconds >= 2.5, stripSeconds <= 10 else {
            throw ValidationError("--strip \(stripSeconds): expected 2.5 to 10 s")
        }
        guard fps.isFinite, fps >= 5, fps <= 60 else { throw ValidationError("--fps \(fps): expected 5 to 60") }
        _ = try targetZone()
    }

    func run() throws {
        var run = ECGViewerRun(source: sourceOptions.request, sourcePath: source, stripSeconds: stripSeconds, refreshRate: fps)
        run.layout = layout.map { $0 == .strip ? .strip : .twelveLead }
        run.targetZone = try targetZone()
        try run.run()
    }
}
