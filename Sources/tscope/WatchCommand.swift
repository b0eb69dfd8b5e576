import ArgumentParser
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "watch")
}
