import Testing
@testable import Signals

@Suite struct PowerColorMapTests {
    @Test func endsAreDarkBlueAndWhite() {
        #expect(PowerColorMap.color(normalized: 0) == .init(red: 0, green: 0, blue: 48))
        #expect(PowerColorMap.color(normalized: 1) == .init(red: 255, green: 255, blue: 255))
        #expect(PowerColorMap.color(normalized: -3) == PowerColorMap.color(normalized: 0))
        #expect(PowerColorMap.color(normalized: .nan) == PowerColorMap.color(normalized: 0))
        #expect(PowerColorMap.color(normalized: 7) == PowerColorMap.color(normalized: 1))
    }

    @Test func passesThroughTheNamedHuesInOrder() {
        // dark blue → (blue) → cyan → green → yellow → red → white, at equal steps
        func at(_ step: Int) -> PowerColorMap.RGB { PowerColorMap.interpolated(Double(step) / 6) }
        let cyan = at(2), green = at(3), yellow = at(4), red = at(5)
        #expect(cyan.blue > 150 && cyan.green > 150 && cyan.red < 50)
        #expect(green.green > green.red + 100 && green.green > green.blue + 100)
        #expect(yellow.red > 200 && yellow.green > 200 && yellow.blue < 60)
        #expect(red.red > 200 && red.green < 60 && red.blue < 60)
        // the floor is the darkest colour and the top the brightest
        func sum(_ c: PowerColorMap.RGB) -> Int { Int(c.red) + Int(c.green) + Int(c.blue) }
        let sums = PowerColorMap.table.map(sum)
        #expect(sums.min() == sum(PowerColorMap.table[0]))
        #expect(sums.max() == sum(PowerColorMap.table[PowerColorMap.tableSize - 1]))
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
