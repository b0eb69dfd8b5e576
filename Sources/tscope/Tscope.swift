import ArgumentParser
import CommandOptions
import Devices
import Runs
import ThreadKit

@main
struct Tscope: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tscope",
        abstract: "A terminal spectrum analyzer for USB analyzers (\(AnalyzerKind.modelsText())) and ECG "
            + "streams, with built-in demo devices.",
        discussion: """
            With no command, tscope runs `watch`. `tscope --version` is `tscope version`.

            EXIT STATUS: 0 success; 1 runtime failure (device, file, full disk); 64 usage error (an unknown option or a bad \
            value). record, serve, sweep and emulate take SIGINT, SIGTERM and SIGHUP as "stop": they finish and exit 0. Every \
            other command ends by the signal (after restoring the terminal in the views), which the shell reports as 128+N: \
            130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
            """,
        subcommands: [WatchCommand.self, MeterCommand.self, EventsCommand.self, OccupancyCommand.self, MeasureCommand.self, ZeroSpanCommand.self, CalibrateCommand.self, SweepCommand.self, DevicesCommand.self, RecordCommand.self,
                      ServeCommand.self, ReplayCommand.self, ConvertCommand.self, ExportCommand.self, ECGCommand.self, EmulateCommand.self,
                      ScreenshotCommand.self, VersionCommand.self],
        defaultSubcommand: WatchCommand.self
    )

    /// `tscope --version` alone runs `version` (the default subcommand would take it for one of its options).
    static func main() {
        SignalWatch.unblockAllSignals()
        let arguments = Array(CommandLine.arguments.dropFirst())
        main(arguments == ["--version"] ? ["version"] : arguments)
    }
}
