import Foundation
import Testing
@testable import Signals

@Suite struct PowerColorMapTests {
    @Test func endsAreNearBlackNavyAndWhite() {
        #expect(PowerColorMap.color(normalized: 0) == .init(red: 0, green: 0, blue: 10))
        #expect(PowerColorMap.color(normalized: 1) == .init(red: 255, green: 255, blue: 255))
        #expect(PowerColorMap.color(normalized: -3) == PowerColorMap.color(normalized: 0))
        #expect(PowerColorMap.color(normalized: .nan) == PowerColorMap.color(normalized: 0))
        #expect(PowerColorMap.color(normalized: 7) == PowerColorMap.color(normalized: 1))
    }

    @Test func passesThroughTheNamedHuesInOrder() {
        // navy → dark blue → blue → cyan → green → yellow → red → white, at the stops' levels
        func at(_ stop: Int) -> PowerColorMap.RGB { PowerColorMap.interpolated(PowerColorMap.stops[stop].level) }
        let blue = at(2), cyan = at(3), green = at(4), yellow = at(5), red = at(6)
        #expect(PowerColorMap.stops[2].level == PowerColorMap.blueLevel && PowerColorMap.stops[6].level == PowerColorMap.redLevel)
        #expect(blue.blue > 150 && blue.green < 100 && blue.red < 30)
        #expect(cyan.blue > 150 && cyan.green > 150 && cyan.red < 50)
        #expect(green.green > green.red + 100 && green.green > green.blue + 100)
        #expect(yellow.red > 200 && yellow.green > 200 && yellow.blue < 60)
        #expect(red.red > 200 && red.green < 60 && red.blue < 60)
        // the floor is the darkest colour and the top the brightest
        func sum(_ c: PowerColorMap.RGB) -> Int { Int(c.red) + Int(c.green) + Int(c.blue) }
        let sums = PowerColorMap.table.map(sum)
        #expect(sums.min() == sum(PowerColorMap.table[0]))
        #expect(sums.max() == sum(PowerColorMap.table[PowerColorMap.tableSize - 1]))
        // the stops rise, and neighbouring table entries differ (no two levels share a colour)
        #expect(zip(PowerColorMap.stops, PowerColorMap.stops.dropFirst()).allSatisfy { $0.level < $1.level })
        #expect(zip(PowerColorMap.table, PowerColorMap.table.dropFirst()).allSatisfy { $0 != $1 })
    }

    /// sRGB relative luminance (IEC 61966-2-1 linearisation, Rec. 709 weights), 0 black … 1 white
    static func luminance(_ c: PowerColorMap.RGB) -> Double {
        func linear(_ v: UInt8) -> Double {
            let x = Double(v) / 255
            return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(c.red) + 0.7152 * linear(c.green) + 0.0722 * linear(c.blue)
    }

    @Test func theLowerQuarterIsDarkAndSignalsAboveTheBlueAreBright() {
        // an autoscaled, peak-held floor sits a tenth to a third of the window up: dark as gqrx's and SDR++'s
        for level in stride(from: 0.0, through: 0.33, by: 0.01) {
            #expect(Self.luminance(PowerColorMap.interpolated(level)) <= 0.03, "\(level)")
        }
        // from cyan up every colour is several times brighter than any floor colour
        for level in stride(from: 0.53, through: 1.0, by: 0.01) {
            #expect(Self.luminance(PowerColorMap.interpolated(level)) >= 0.2, "\(level)")
        }
    }

    @Test func tableMatchesTheDirectMap() {
        for index in stride(from: 0, to: PowerColorMap.tableSize, by: 17) {
            let level = Double(index) / Double(PowerColorMap.tableSize - 1)
            #expect(PowerColorMap.table[index] == PowerColorMap.interpolated(level))
        }
        // a level between entries takes the nearest entry
        #expect(PowerColorMap.color(normalized: 0.5) == PowerColorMap.interpolated((0.5 * 255).rounded() / 255))
    }
}
