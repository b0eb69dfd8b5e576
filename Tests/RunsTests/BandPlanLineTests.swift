@testable import DSP
import Foundation
import Signals
import Testing
@testable import Runs

/// `meter` and `events` lines name the allocation of their band (`--band-plan`).
@Suite struct BandPlanLineTests {
    static let plan = BandPlan(name: "t", source: "t", allocations: [
        .init(startHz: 87.5e6, stopHz: 108e6, label: "FM broadcast"),
        .init(startHz: 88e6, stopHz: 88.2e6, label: "NHK \"FM\" Osaka"),
        .init(startHz: 118e6, stopHz: 137e6, label: "Airband"),
    ])
    static let band = FrequencyRange(lowerHz: 88.05e6, upperHz: 88.15e6)!

    /// The JSON object of `line`, parsed by Foundation (so the escaping is checked too).
    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func aMeterReadingCarriesTheLabelOfTheAllocationHoldingItsBand() throws {
        let line = MeterLine.format(time: 1_700_000_000, band: Self.band, decibels: -42, sweeps: 3, json: true,
                                    bandPlan: Self.plan)
        #expect(try Self.object(line)["band"] as? String == "NHK \"FM\" Osaka")
        let wide = MeterLine.format(time: 1_700_000_000, band: FrequencyRange(lowerHz: 90e6, upperHz: 100e6)!,
                                    decibels: -42, sweeps: 3, json: true, bandPlan: Self.plan)
        #expect(try Self.object(wide)["band"] as? String == "FM broadcast")
        // outside every allocation, or without a plan: no key at all
        let outside = MeterLine.format(time: 1_700_000_000, band: FrequencyRange(lowerHz: 110e6, upperHz: 112e6)!,
                                       decibels: -42, sweeps: 3, json: true, bandPlan: Self.plan)
        #expect(try Self.object(outside)["band"] == nil)
        let none = MeterLine.format(time: 1_700_000_000, band: Self.band, decibels: -42, sweeps: 3, json: true)
        #expect(try Self.object(none)["band"] == nil)
        #expect(!none.contains("band"))
        // the text line says it too
        let text = MeterLine.format(time: 1_700_000_000, band: Self.band, decibels: -42, sweeps: 3, json: false,
                                    bandPlan: Self.plan)
        #expect(text.hasSuffix("  in NHK \"FM\" Osaka"), "\(text)")
    }

    @Test func eachPeakNamesItsOwnAllocation() throws {
        let measurements = BandMeasurements(occupied: nil, peaks: [
            (hz: 88.1e6, decibels: -20), (hz: 98e6, decibels: -30), (hz: 112e6, decibels: -40),
        ])
        let line = MeterLine.format(time: 1_700_000_000, band: FrequencyRange(lowerHz: 87e6, upperHz: 120e6)!,
                                    decibels: -10, sweeps: 1, json: true, measurements: measurements, bandPlan: Self.plan)
        let peaks = try #require(try Self.object(line)["peaks"] as? [[String: Any]])
        #expect(peaks.map { $0["band"] as? String } == ["NHK \"FM\" Osaka", "FM broadcast", nil])
    }

    @Test func anEventCarriesTheLabelAtItsPeak() throws {
        let event = DetectedEvent(start: 1_700_000_000, end: 1_700_000_002, peakHz: 125e6, peakDB: -30,
                                  startHz: 120e6, stopHz: 130e6, sweeps: 4)
        let json = EventLine.format(event, unit: .dB, json: true, bandPlan: Self.plan)
        #expect(try Self.object(json)["band"] as? String == "Airband")
        #expect(try Self.object(EventLine.open(event, unit: .dB, bandPlan: Self.plan))["band"] as? String == "Airband")
        #expect(EventLine.format(event, unit: .dB, json: false, bandPlan: Self.plan).hasSuffix("  in Airband"))
        #expect(try Self.object(EventLine.format(event, unit: .dB, json: true))["band"] == nil)
        var elsewhere = event
        elsewhere.peakHz = 140e6
        #expect(try Self.object(EventLine.format(elsewhere, unit: .dB, json: true, bandPlan: Self.plan))["band"] == nil)
    }
}
