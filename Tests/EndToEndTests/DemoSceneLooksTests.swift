import Foundation
import Testing

/// The demo device as `tscope sweep` reads it: it should look like the air
/// (compared with the real rtl_power FM captures in shared/data): a flat
/// floor, a dozen FM stations well above it, sparse 2.4 GHz packets.
@Suite(.serialized) struct DemoSceneLooksTests {
    /// (frequency [Hz], level [dB]) of every bin of a hackrf_sweep CSV, the
    /// sweeps averaged in linear power per bin (as rtl_power averages)
    func bins(_ csv: String) -> [(Double, Double)] {
        var sums: [Double: (power: Double, count: Int)] = [:]
        for line in csv.split(separator: "\n") {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count > 6, let low = Double(fields[2]), let width = Double(fields[4]) else { continue }
            for (index, field) in fields[6...].enumerated() {
                guard let level = Double(field) else { continue }
                let hz = low + width * (Double(index) + 0.5)
                let sum = sums[hz] ?? (0, 0)
                sums[hz] = (sum.power + pow(10, level / 10), sum.count + 1)
            }
        }
        return sums.map { ($0.key, 10 * log10($0.value.power / Double($0.value.count))) }.sorted { $0.0 < $1.0 }
    }

    @Test func fmBandHasADozenStationsThirtyToFiftyDBOverAFlatFloor() throws {
        let result = try run(Paths.tscope, ["sweep", "--device", "demo", "-f", "88:108", "-w", "100000", "-N", "10"])
        #expect(result.status == 0, "\(result.stderr)")
        let spectrum = bins(result.stdoutText)
        try #require(spectrum.count > 150)
        let sorted = spectrum.map(\.1).sorted()
        let floor = sorted[sorted.count / 5]
        // flat: the quietest half of the band (averaged noise) lies within a few dB
        #expect(sorted[sorted.count * 2 / 5] - sorted[sorted.count / 10] < 6, "\(sorted)")
        // stations: local maxima 20 dB or more over the floor, at least 0.5 MHz apart
        var stations: [(Double, Double)] = []
        for index in 1..<(spectrum.count - 1) {
            let (hz, level) = spectrum[index]
            guard level > floor + 20, level >= spectrum[index - 1].1, level >= spectrum[index + 1].1 else { continue }
            if let last = stations.last, hz - last.0 < 500_000 {
                if level > last.1 { stations[stations.count - 1] = (hz, level) }
            } else {
                stations.append((hz, level))
            }
        }
        #expect((8...15).contains(stations.count), "\(stations)")
        for (hz, level) in stations {
            #expect(level - floor >= 27 && level - floor <= 53, "\(hz): \(level - floor) dB over the floor")
        }
    }

    @Test func wifiAndBluetoothPacketsLeaveMostOfTheISMBandQuiet() throws {
        // one sweep is a few milliseconds of air: most bins hear no packet
        let result = try run(Paths.tscope, ["sweep", "--device", "demo", "-f", "2400:2480", "-w", "250000", "-N", "20"])
        #expect(result.status == 0, "\(result.stderr)")
        // every bin of every sweep, not averaged: a packet is in one sweep
        var spectrum: [(Double, Double)] = []
        for line in result.stdoutText.split(separator: "\n") {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count > 6 else { continue }
            spectrum += fields[6...].compactMap { Double($0) }.map { (0, $0) }
        }
        try #require(spectrum.count > 1000)
        let sorted = spectrum.map(\.1).sorted()
        let floor = sorted[sorted.count / 5]
        let loud = spectrum.filter { $0.1 > floor + 15 }.count
        let fraction = Double(loud) / Double(spectrum.count)
        // bursts are there, but far from a carpet
        #expect(loud > 0)
        #expect(fraction < 0.2, "\(fraction) of bins hold a packet")
    }
}
