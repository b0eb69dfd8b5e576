import ArgumentParser

@main
struct Tscope: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tscope",
        abstract: "A terminal spectrum analyzer for USB analyzers (HackRF One), with a built-in demo device.",
        subcommands: [WatchCommand.self, MeterCommand.self, SweepCommand.self, DevicesCommand.self, RecordCommand.self,
                      ReplayCommand.self, ECGCommand.self, EmulateCommand.self],
        defaultSubcommand: WatchCommand.self
    )
}
