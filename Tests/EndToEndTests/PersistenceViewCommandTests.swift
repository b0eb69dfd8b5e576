import Foundation
import Signals
import Testing

/// The persistence (density) view of the built binary under tmux, as a user
/// starts it: `--view persistence` on watch (the demo's pulsed transmitter at
/// 1030 MHz: levels that vary frame to frame) and on replay.
@Suite(.serialized) struct PersistenceViewCommandTests {
    /// 24-bit colour whatever the test runner's environment says (it may set NO_COLOR)
    static let truecolor = "env -u NO_COLOR COLORTERM=truecolor"

    /// Truecolour half-block pixels of a `capture-pane -e` screen inside the
    /// columns `columns` (the image), as RGB triples.
    static func pixels(_ screen: String, columns: Range<Int>) -> [PowerColorMap.RGB] {
        var result: [PowerColorMap.RGB] = []
        let pattern = try! NSRegularExpression(pattern: "\u{1b}\\[([0-9;]*)m")
        for line in screen.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = String(line)
            var column = 0
            var foreground: PowerColorMap.RGB?, background: PowerColorMap.RGB?
            var index = text.startIndex
            while index < text.endIndex {
                if text[index] == "\u{1b}",
                   let match = pattern.firstMatch(in: text, range: NSRange(index..<text.endIndex, in: text)),
                   match.range.location == NSRange(index..<text.endIndex, in: text).location,
                   let range = Range(match.range, in: text), let parameters = Range(match.range(at: 1), in: text) {
                    let values = text[parameters].split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
                    var i = 0
                    while i < values.count {
                        switch values[i] {
                        case 0: foreground = nil; background = nil
                        case 39: foreground = nil
                        case 49: background = nil
                        case let code where (code == 38 || code == 48) && i + 4 < values.count && values[i + 1] == 2:
                            let rgb = PowerColorMap.RGB(red: UInt8(clamping: values[i + 2]), green: UInt8(clamping: values[i + 3]),
                                                        blue: UInt8(clamping: values[i + 4]))
                            if values[i] == 38 { foreground = rgb } else { background = rgb }
                            i += 4
                        default: break
                        }
                        i += 1
                    }
                    index = range.upperBound
                    continue
                }
                if columns.contains(column) {
                    if text[index] == "▀" {
                        if let foreground { result.append(foreground) }
                        if let background { result.append(background) }
                    } else if text[index] == "▄", let foreground {
                        result.append(foreground)
                    }
                }
                column += 1
                index = text.index(after: index)
            }
        }
        return result
    }

    /// Checks a persistence screen: the legend in percent of time, both axes, and density colours
    /// (several of the map's colours, from rare to steady) in the image.
    static func checkPersistenceScreen(_ tmux: TmuxSession, width: Int, unit: String) throws {
        let screen = try #require(tmux.waitFor("0.1%", timeoutSeconds: 20), "\(tmux.screen())")
        for label in ["100%", "10%", "1%", "time", unit, "dB"] {
            #expect(screen.contains(label), "\(label) at \(width) columns:\n\(screen)")
        }
        #expect(screen.contains("┤") && screen.contains("┬"), "axes:\n\(screen)")
        // let a few seconds of frames build the densities
        usleep(5_000_000)
        let colored = tmux.screenWithColors()
        // the image lies between the level axis (6 cells) and the legend (8 cells and the handle column)
        let image = Self.pixels(colored, columns: 6..<(width - 9))
        let palette = Set(PowerColorMap.table.map { "\($0.red),\($0.green),\($0.blue)" })
        let mapped = image.filter { palette.contains("\($0.red),\($0.green),\($0.blue)") }
        #expect(mapped.count > 50, "\(mapped.count) density pixels (\(image.count) coloured) at \(width) columns")
        // rare and frequent levels: distinct colours of the map, not one flat colour
        let distinct = Set(mapped.map { "\($0.red),\($0.green),\($0.blue)" })
        #expect(distinct.count >= 8, "\(distinct.count) colours at \(width) columns")
    }

    @Test(arguments: [(80, 24), (160, 48), (240, 70)])
    func watchStartsInThePersistenceViewWithLegendAxesAndDensityColours(width: Int, height: Int) throws {
        let tmux = try #require(try TmuxSession(width: width, height: height),
                                "Tools/install-deps --test installs tmux")
        try tmux.type("\(Self.truecolor) \(Paths.tscope.path) watch --device demo --view persistence --band 1000:1060; echo \"STAT\"\"US=$?\"")
        try Self.checkPersistenceScreen(tmux, width: width, unit: "GHz")
        if width >= 160 {
            #expect(tmux.screen().contains("persistence 5 s"), "\(tmux.screen())")
            // ] lengthens the persistence time, Tab goes on to the plot
            try tmux.keys("]")
            #expect(tmux.waitFor("persistence 10 s", timeoutSeconds: 5) != nil, "\(tmux.screen())")
            try tmux.keys("Tab")
            #expect(tmux.waitForAbsence(of: "0.1%", timeoutSeconds: 5), "\(tmux.screen())")
            try tmux.keys("4")
            #expect(tmux.waitFor("0.1%", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        }
        try tmux.keys("q")
        let done = try #require(tmux.waitFor("STATUS=", timeoutSeconds: 10), "\(tmux.screen())")
        #expect(done.contains("STATUS=0"))
    }

    @Test func replayStartsInThePersistenceView() throws {
        let tmux = try #require(try TmuxSession(width: 160, height: 48),
                                "Tools/install-deps --test installs tmux")
        let directory = try Paths.temporaryDirectory("persistence-replay")
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorded = try run(Paths.tscope, ["record", "--device", "demo", "--band", "1000:1060", "--duration", "8",
                                              "--output", directory.path + "/"])
        #expect(recorded.status == 0, "stderr: \(recorded.stderr)")
        let path = recorded.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        try tmux.type("\(Self.truecolor) \(Paths.tscope.path) replay \(path) --view persistence; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("REPLAY", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        try Self.checkPersistenceScreen(tmux, width: 160, unit: "GHz")
        try tmux.keys("q")
        let done = try #require(tmux.waitFor("STATUS=", timeoutSeconds: 10), "\(tmux.screen())")
        #expect(done.contains("STATUS=0"))
    }

    /// A steady carrier at 305.5 MHz and, on the same frequency 25 dB
    /// stronger, a 20 ms burst every 2 s — about 1 % of the time (one frame
    /// or two of every sixty) — watched in real time: the plot's live trace
    /// shows the carrier nearly always; the persistence view shows both, the
    /// burst's levels above the carrier's in the same columns, at 80×24,
    /// 160×48 and 240×70.
    @Test(arguments: [(80, 24), (160, 48), (240, 70)])
    func aOnePercentBurstShowsAboveTheSteadyCarrier(width: Int, height: Int) throws {
        let tmux = try #require(try TmuxSession(width: width, height: height),
                                "Tools/install-deps --test installs tmux")
        // the first burst at 0.5 s, while the level window still follows the peaks seen
        try tmux.type("\(Self.truecolor) \(Paths.tscope.path) watch --device demo --view persistence --band 300:310 "
            + "--demo-generator 305.5:-45 --demo-pulse 305.5:-20:20000:2000:500; echo \"STAT\"\"US=$?\"")
        _ = try #require(tmux.waitFor("0.1%", timeoutSeconds: 20), "\(tmux.screen())")
        // three bursts' worth of frames
        usleep(5_000_000)
        let screen = tmux.screen()
        let rows = screen.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        // image cells: half blocks between the level axis (6 cells) and the legend (9 cells)
        func marked(_ row: [Character]) -> [Int] {
            row.indices.filter { $0 >= 7 && $0 < width - 9 && "▀▄█".contains(row[$0]) }
        }
        let plotRows = Array(rows.dropFirst().prefix(height - 3))
        let carrierColumns = Set(plotRows.flatMap(marked))
        #expect(!carrierColumns.isEmpty, "\(screen)")
        // the topmost marked row: the burst, only near 305.5 MHz (0.55 of the image's width)
        let top = try #require(plotRows.firstIndex { !marked($0).isEmpty }, "\(screen)")
        let imageWidth = Double(width - 9 - 7)
        for column in marked(plotRows[top]) {
            let fraction = Double(column - 7) / imageWidth
            #expect(abs(fraction - 0.55) < 0.06, "a mark at \(fraction) of the width in row \(top):\n\(screen)")
        }
        // the carrier: marks in the same columns well below the burst (25 dB lower), and the floor below that
        let burstColumns = Set(marked(plotRows[top]))
        let below = plotRows.indices.filter { $0 > top + 2 && !Set(marked(plotRows[$0])).isDisjoint(with: burstColumns) }
        #expect(!below.isEmpty, "no carrier under the burst:\n\(screen)")
        try tmux.keys("q")
        let done = try #require(tmux.waitFor("STATUS=", timeoutSeconds: 10), "\(tmux.screen())")
        #expect(done.contains("STATUS=0"))
    }

    @Test func anUnknownViewIsRefusedNamingTheViews() throws {
        let result = try run(Paths.tscope, ["watch", "--device", "demo", "--view", "dpx"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("persistence"), "\(result.stderr)")
    }
}
