import ArgumentParser
import Runs

/// `tscope screenshot`: a saved terminal screen (`tmux capture-pane -p -e`)
/// drawn as a PNG by tscope's own code (Tools/readme-pictures makes the
/// README's pictures with it).
struct ScreenshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screenshot",
        abstract: "Draw a saved terminal screen (tmux capture-pane -p -e) as a PNG.")

    @Argument(help: "The screen: text with SGR colour sequences.")
    var input: String
    @Argument(help: "The PNG to write.")
    var output: String
    @Option(help: "Columns of the screen.")
    var width: Int
    @Option(help: "Rows of the screen.")
    var height: Int
    @Option(help: "Pixels per font pixel (1–4).")
    var scale: Int = 2

    func validate() throws {
        guard (1...1000).contains(width), (1...1000).contains(height) else {
            throw ValidationError("--width and --height: 1 to 1000 cells")
        }
        guard (1...4).contains(scale) else { throw ValidationError("--scale: 1 to 4") }
    }

    func run() throws {
        try ScreenshotRun.run(input: input, output: output, width: width, height: height, scale: scale)
    }
}
