import Signals
import Testing
@testable import Terminal

@Suite struct ColorModeTests {
    @Test func detectionFollowsEnvironment() {
        #expect(ColorMode.detect(environment: ["NO_COLOR": "1", "COLORTERM": "truecolor"]) == .none)
        #expect(ColorMode.detect(environment: ["NO_COLOR": "", "COLORTERM": "truecolor"]) == .trueColor)
        #expect(ColorMode.detect(environment: ["COLORTERM": "24bit"]) == .trueColor)
        #expect(ColorMode.detect(environment: ["COLORTERM": "yes", "TERM": "xterm"]) == .palette256)
        #expect(ColorMode.detect(environment: [:]) == .palette256)
    }

    @Test func knownColoursMapToTheirPaletteEntries() {
        #expect(Xterm256.nearestIndex(r: 0, g: 0, b: 0) == 16)
        #expect(Xterm256.nearestIndex(r: 255, g: 255, b: 255) == 231)
        #expect(Xterm256.nearestIndex(r: 255, g: 0, b: 0) == 196)
        #expect(Xterm256.nearestIndex(r: 95, g: 135, b: 175) == 16 + 36 + 12 + 3)
        #expect(Xterm256.nearestIndex(r: 128, g: 128, b: 128) == 244)
        #expect(Xterm256.nearestIndex(r: 8, g: 8, b: 8) == 232)
        #expect(ColorMode.palette256.resolve(.rgb(255, 0, 0)) == .indexed(196))
        #expect(ColorMode.trueColor.resolve(.rgb(255, 0, 0)) == .rgb(255, 0, 0))
        #expect(ColorMode.none.resolve(.indexed(3)) == .default)
    }

    /// the mapping against a search over all 240 entries
    @Test func nearestIndexMatchesExhaustiveSearch() {
        var random = SeededRandom(seed: 0x5EED)
        for _ in 0..<3000 {
            let (r, g, b) = (UInt8.random(in: 0...255, using: &random),
                             UInt8.random(in: 0...255, using: &random),
                             UInt8.random(in: 0...255, using: &random))
            func distance(_ index: UInt8) -> Int {
                let (pr, pg, pb) = Xterm256.rgb(ofIndex: index)!
                return (pr - Int(r)) * (pr - Int(r)) + (pg - Int(g)) * (pg - Int(g)) + (pb - Int(b)) * (pb - Int(b))
            }
            let best = (16...255).map { distance(UInt8($0)) }.min()!
            #expect(distance(Xterm256.nearestIndex(r: r, g: g, b: b)) == best, "rgb \(r) \(g) \(b)")
        }
    }
}
