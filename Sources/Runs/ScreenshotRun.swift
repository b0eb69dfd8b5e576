import Capture
import Foundation
import Signals
import Terminal

/// `tscope screenshot`: a saved terminal screen (`tmux capture-pane -p -e`)
/// drawn as a PNG by tscope's own font and colours (Tools/readme-pictures
/// makes the README's pictures with it).
public enum ScreenshotRun {
    /// the colours a terminal draws with when a cell says "default": xterm's light grey on black
    static let defaultForeground: (UInt8, UInt8, UInt8) = (204, 204, 204)
    static let defaultBackground: (UInt8, UInt8, UInt8) = (0, 0, 0)

    /// Reads the screen text at `input` (width × height cells) and writes it as a PNG at `output`,
    /// each font pixel `scale` × `scale` pixels.
    public static func run(input: String, output: String, width: Int, height: Int, scale: Int) throws {
        guard let data = FileManager.default.contents(atPath: input) else {
            throw CommandError("\(input): cannot read the screen")
        }
        let buffer = ANSIScreenText.parse(String(decoding: data, as: UTF8.self), width: width, height: height)
        try ScreenPicture.write(columns: width, rows: height, scale: scale, to: output) { x, y in
            picture(of: buffer.cell(x: x, y: y) ?? .blank)
        }
    }

    /// A cell as drawn: inverse swaps its colours, dim mixes the foreground halfway to the background.
    static func picture(of cell: Cell) -> ScreenPicture.Cell {
        var fg = cell.foreground.rgb(whenDefault: defaultForeground)
        var bg = cell.background.rgb(whenDefault: defaultBackground)
        if cell.style.attributes.contains(.inverse) { swap(&fg, &bg) }
        if cell.style.attributes.contains(.dim) { fg = (fg.0 / 2 + bg.0 / 2, fg.1 / 2 + bg.1 / 2, fg.2 / 2 + bg.2 / 2) }
        return ScreenPicture.Cell(scalar: cell.scalar,
                                  foreground: PowerColorMap.RGB(red: fg.0, green: fg.1, blue: fg.2),
                                  background: PowerColorMap.RGB(red: bg.0, green: bg.1, blue: bg.2))
    }
}
