import Foundation
import Signals
import Testing
@testable import Capture

/// `export --png … --band-plan`: the allocations as coloured bars under the
/// plot with their labels, clear of each other and of the plot.
@Suite struct PNGBandPlanTests {
    static let red = PowerColorMap.RGB(red: 255, green: 0, blue: 0)
    static let green = PowerColorMap.RGB(red: 0, green: 255, blue: 0)
    /// on 433–434 MHz: ISM 433.05–434.79 MHz running out on the right, a channel nested in it
    static let plan = BandPlan(name: "t", source: "t", allocations: [
        .init(startHz: 433.05e6, stopHz: 434.79e6, label: "ISM 433.92 MHz", color: red),
        .init(startHz: 433.4e6, stopHz: 433.6e6, label: "LoRa", color: green),
    ])

    @Test func barsAndLabelsGoUnderThePlot() throws {
        let directory = try temporaryDirectory("png-band-plan")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("plan.png").path
        var exporter = PNGWaterfallExporter()
        exporter.bandPlan = Self.plan
        let summary = try exporter.export(open: { PNGReadabilityTests.tenThousand() }, to: path, title: "plan")
        let plain = try PNGWaterfallExporter().export(open: { PNGReadabilityTests.tenThousand() },
                                                      to: directory.appendingPathComponent("plain.png").path, title: "plan")
        let picture = try RGBImage.readPNG(path: path)
        let plotHeight = summary.plotRows * summary.rowHeight
        #expect(Self.plan.laneCount == 1)
        #expect(summary.height == plain.height + WaterfallBandPlanStrip.height(lanes: 1))
        #expect(summary.width == plain.width)
        let left = PNGWaterfallExporter.leftMargin
        let barY = PNGWaterfallExporter.topMargin + plotHeight + WaterfallBandPlanStrip.gap + 1
        // 433–434 MHz over the plot's columns
        func column(_ hz: Double) -> Int { left + Int((hz - 433e6) / 1e6 * Double(summary.plotColumns)) }
        #expect(picture.pixel(column(433.02e6), barY) == PNGWaterfallExporter.background)
        #expect(picture.pixel(column(433.2e6), barY) == Self.red)
        #expect(picture.pixel(column(433.5e6), barY) == Self.green, "the nested one on top")
        #expect(picture.pixel(column(433.9e6), barY) == Self.red)
        #expect(picture.pixel(left + summary.plotColumns - 1, barY) == Self.red, "runs to the edge")
        // an end tick below the bar at 433.05 MHz, none at the right edge (the allocation goes on)
        let tickY = barY + WaterfallBandPlanStrip.barHeight + 1
        #expect(picture.pixel(column(433.05e6), tickY) == Self.red)
        #expect(picture.pixel(left + summary.plotColumns - 1, tickY) == PNGWaterfallExporter.background)
        // both labels, below the bars, the wide one beside the nested one, none overlapping
        let planLabels = summary.labels.filter { $0.y > PNGWaterfallExporter.topMargin + plotHeight }
        #expect(Set(planLabels.map(\.text)) == ["ISM 433.92 MHz", "LoRa"], "\(planLabels)")
        let lora = try #require(planLabels.first { $0.text == "LoRa" })
        #expect(abs(lora.x + lora.width / 2 - column(433.5e6)) <= 2)
        for (index, label) in summary.labels.enumerated() {
            for other in summary.labels[(index + 1)...] { #expect(!label.overlaps(other), "\(label) \(other)") }
            #expect(label.y + label.height <= picture.height)
        }
        let ism = try #require(planLabels.first { $0.text.hasPrefix("ISM") })
        #expect(ism.x > column(433.6e6) || ism.x + ism.width < column(433.4e6), "clear of the nested bar")
    }

    @Test func allocationsOverlappingInPartGetARowEach() throws {
        let directory = try temporaryDirectory("png-band-plan-lanes")
        defer { try? FileManager.default.removeItem(at: directory) }
        // on 433–434 MHz: two allocations overlapping in part, 433.1–433.6 and 433.4–433.9 MHz
        let plan = BandPlan(name: "o", source: "o", allocations: [
            .init(startHz: 433.1e6, stopHz: 433.6e6, label: "first", color: Self.red),
            .init(startHz: 433.4e6, stopHz: 433.9e6, label: "second", color: Self.green),
        ])
        #expect(plan.laneCount == 2)
        var exporter = PNGWaterfallExporter()
        exporter.bandPlan = plan
        let path = directory.appendingPathComponent("lanes.png").path
        let summary = try exporter.export(open: { PNGReadabilityTests.tenThousand() }, to: path, title: "lanes")
        let picture = try RGBImage.readPNG(path: path)
        let plain = try PNGWaterfallExporter().export(open: { PNGReadabilityTests.tenThousand() },
                                                      to: directory.appendingPathComponent("plain.png").path, title: "lanes")
        #expect(summary.height == plain.height + WaterfallBandPlanStrip.height(lanes: 2))
        let left = PNGWaterfallExporter.leftMargin
        func column(_ hz: Double) -> Int { left + Int((hz - 433e6) / 1e6 * Double(summary.plotColumns)) }
        let firstRow = PNGWaterfallExporter.topMargin + summary.plotRows * summary.rowHeight + WaterfallBandPlanStrip.gap + 1
        let secondRow = firstRow + WaterfallBandPlanStrip.laneHeight
        // where both hold, each keeps its own colour in its own row
        #expect(picture.pixel(column(433.5e6), firstRow) == Self.red)
        #expect(picture.pixel(column(433.5e6), secondRow) == Self.green)
        #expect(picture.pixel(column(433.2e6), secondRow) == PNGWaterfallExporter.background)
        let texts = summary.labels.map(\.text)
        #expect(texts.contains("first") && texts.contains("second"))
    }

    @Test func aPlanWithNothingInTheBandDrawsAnEmptyStrip() throws {
        let directory = try temporaryDirectory("png-band-plan-empty")
        defer { try? FileManager.default.removeItem(at: directory) }
        var exporter = PNGWaterfallExporter()
        exporter.bandPlan = BandPlan(name: "far", source: "far", allocations: [.init(startHz: 1e9, stopHz: 2e9, label: "far")])
        let summary = try exporter.export(open: { PNGReadabilityTests.tenThousand() },
                                          to: directory.appendingPathComponent("far.png").path, title: "far")
        #expect(!summary.labels.contains { $0.text == "far" })
    }
}
