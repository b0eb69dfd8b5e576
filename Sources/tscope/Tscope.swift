import ArgumentParser

@main
struct Tscope: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tscope",
        abstract: "A terminal spectrum analyzer for USB analyzers (HackRF One, RTL-SDR, tinySA, RF Explorer) and ECG "
            + "streams, with built-in demo devices.",
        subcommands: [WatchCommand.self, MeterCommand.self, SweepCommand.self, DevicesCommand.self, RecordCommand.self,
                      ReplayCommand.self, ConvertCommand.self, ExportCommand.self, ECGCommand.self, EmulateCommand.self,
                      ScreenshotCommand.self],
        defaultSubcommand: WatchCommand.self
    )
}
