import ArgumentParser

@main
struct Tscope: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tscope",
        abstract: "A terminal spectrum analyzer for USB analyzers (HackRF One), with a built-in demo device.",
        subcommands: [WatchCommand.self, SweepCommand.self, DevicesCommand.self, EmulateCommand.self,
                      ConvertCommand.self, ExportCommand.self],
        defaultSubcommand: WatchCommand.self
    )
}
