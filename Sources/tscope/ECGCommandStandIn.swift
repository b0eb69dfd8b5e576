import ArgumentParser

/// Stand-in for the `tscope ecg` command group that the ECG sources branch
/// defines; at merge, delete this file and add `ECGWatchCommand.self` to that
/// group's subcommands.
struct ECGCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ecg",
        abstract: "ECG: watch strips and the 12-lead printout.",
        subcommands: [ECGWatchCommand.self]
    )
}
