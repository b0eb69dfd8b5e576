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

    @Argument(help: "A WFDB record (path with or without .hea), an EDF/EDF+ file (.edf) or a CSV file to replay; \"synthetic\" or nothing for the synthetic ECG.")
    var source: String?

    @OptionGroup var sourceOptions: ECGSourceOptions

    @OptionGroup var viewOptions: ECGViewOptions

    func validate() throws {
        try sourceOptions.validate(sourcePath: source)
    }

    func run() throws {
        try viewOptions.run(source: sourceOptions.request, sourcePath: source).run()
    }
}
