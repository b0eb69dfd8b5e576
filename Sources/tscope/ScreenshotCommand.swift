import ArgumentParser
import CommandOptions
import Capture
import Foundation
import Runs
import Signals
import Terminal

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
        guard let data = FileManager.default.contents(atPath: input) else {
            throw CommandError("\(input): cannot read the screen")
        }
        let buffer = ANSIScreenText.parse(String(decoding: data, as: UTF8.self), width: width, height: height)
        try draw(buffer)
    }

    private func draw(_ buffer: Buffer) throws {
        try ScreenPicture.write(columns: width, rows: height, scale: scale, to: output) { x, y in
            let cell = buffer.cell(x: x, y: y) ?? .blank
            var fg = cell.foreground.rgb(whenDefault: (204, 204, 204))
            var bg = cell.background.rgb(whenDefault: (0, 0, 0))
            if cell.style.attributes.contains(.inverse) { swap(&fg, &bg) }
            if cell.style.attributes.contains(.dim) { fg = (fg.0 / 2 + bg.0 / 2, fg.1 / 2 + bg.1 / 2, fg.2 / 2 + bg.2 / 2) }
            return ScreenPicture.Cell(scalar: cell.scalar,
                                      foreground: PowerColorMap.RGB(red: fg.0, green: fg.1, blue: fg.2),
                                      background: PowerColorMap.RGB(red: bg.0, green: bg.1, blue: bg.2))
        }
    }
}
