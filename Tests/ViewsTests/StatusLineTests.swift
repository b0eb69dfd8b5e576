import Signals
import Terminal
import Testing
import ViewModels
@testable import Views

/// The header row keeps a message (a stall, a write error) in sight: after
/// the figures where the row has room, right after the device where not.
struct StatusLineTests {
    static func line(width: Int, message: String?) -> String {
        var buffer = Buffer(width: width, height: 1)
        var status = SpectrumStatus(deviceName: "recording live.tscope", isDemo: false, binWidthHz: 98_040,
                                    framesPerSecond: 0, droppedBlocks: 0, badBlocks: 0)
        status.message = message
        StatusLine().draw(.init(status: status, band: FrequencyRange(lowerHz: 88e6, upperHz: 108e6)!, paused: false,
                                viewFacts: nil, row: Rect(x: 0, y: 0, width: width, height: 1)), into: &buffer)
        return buffer.lines[0]
    }

    @Test func aMessageComesFirstWhenTheLineIsShort() {
        let stall = "reconnecting… (no data from recording live.tscope for 5 s; lost 7 s ago)"
        let narrow = Self.line(width: 80, message: stall)
        #expect(narrow.hasPrefix(" recording live.tscope │ reconnecting… (no data"), "\(narrow)")
        let wide = Self.line(width: 240, message: stall)
        #expect(wide.contains("│ bad 0 │ reconnecting… (no data from recording live.tscope for 5 s; lost 7 s ago)"), "\(wide)")
        let quiet = Self.line(width: 80, message: nil)
        #expect(quiet.hasPrefix(" recording live.tscope │ span 20 MHz │ bin 98.04 kHz │ 0 fps"), "\(quiet)")
    }
}
