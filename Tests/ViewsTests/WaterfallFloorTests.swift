import DSP
import Foundation
import Signals
import Terminal
import Testing
import ViewModels
@testable import Views

/// sRGB relative luminance of a terminal colour (IEC 61966-2-1 linearisation,
/// Rec. 709 weights): 0 black … 1 white; nil for the terminal's default.
func relativeLuminance(_ color: Color) -> Double? {
    guard case .rgb(let red, let green, let blue) = color else { return nil }
    func linear(_ v: UInt8) -> Double {
        let x = Double(v) / 255
        return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)
    }
    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
}

/// The colour of half-block pixel (`x`, `pixelY`) of `buffer` (two pixel rows a cell).
func pixelColor(_ buffer: Buffer, x: Int, pixelY: Int, top: Int) -> Color {
    guard let cell = buffer.cell(x: x, y: top + pixelY / 2) else { return .default }
    let upper = pixelY % 2 == 0
    switch cell.scalar {
    case "▀": return upper ? cell.foreground : cell.background
    case "▄": return upper ? .default : cell.foreground
    default: return .default
    }
}

func mapColor(level: Float) -> Color {
    let rgb = PowerColorMap.color(normalized: level)
    return .rgb(rgb.red, rgb.green, rgb.blue)
}

@Suite struct WaterfallFloorTests {
    /// A noise floor at −80 dB mean (exponentially distributed power per bin, as an FFT bin of
    /// noise) and a carrier at −30 dB, 30 frames/s for 30 s as the viewer feeds it, the dB window
    /// autoscaled from one frame as the viewer does; the waterfall rendered at 120×36.
    @Test func theFloorIsDarkAndTheCarrierBright() throws {
        var random = SeededRandom(seed: 12)
        func frame(time: Double) -> SpectrumFrame {
            var bins = (0..<2000).map { _ -> Float in
                let power = -log(1 - Double.random(in: 0..<1, using: &random))   // exponential, mean 1
                return Float(-80 + 10 * log10(max(power, 1e-12)))
            }
            for bin in 998...1002 { bins[bin] = -30 }
            return SpectrumFrame(startHz: 100e6, binWidthHz: 10e3, timestamp: time, powerDB: bins)
        }
        let width = 120, height = 36
        let model = AnalyzerModel(plot: fixedModel(width: width, height: height), mode: .waterfall)
        let now = 2_000_000.0
        for step in 0..<900 { model.ingest(FrameDelivery(frame: frame(time: now - 30 + Double(step) / 30))) }
        let levels = frame(time: now).powerDB.withUnsafeBufferPointer { LevelStatistics().measure($0) }
        let measured = try #require(levels)
        model.plot.autoscale(floorDB: measured.floorDB, peakDB: measured.peakDB)
        var buffer = Buffer(width: width, height: height)
        AnalyzerScreen().render(model: model, frame: nil, status: fixedStatus, now: now, into: &buffer)
        let plot = WaterfallView.dataRect(in: ScreenLayout(width: width, height: height, drawerOpen: false).main)
        let carrierX = plot.x + plot.width / 2
        var floor: [Double] = [], carrier: [Double] = []
        for x in plot.x..<plot.maxX {
            for pixelY in 0..<(plot.height * 2) {
                guard let value = relativeLuminance(pixelColor(buffer, x: x, pixelY: pixelY, top: plot.y)) else { continue }
                if abs(x - carrierX) <= 0 { carrier.append(value) } else if abs(x - carrierX) > 3 { floor.append(value) }
            }
        }
        try #require(floor.count > 1000 && carrier.count > 30, "\(floor.count) \(carrier.count)")
        let floorMean = floor.reduce(0, +) / Double(floor.count)
        let carrierMean = carrier.reduce(0, +) / Double(carrier.count)
        // at most 0.30 of white, and dark as gqrx's and SDR++'s floors: the equal-step map gave 0.32 here, this one 0.017
        #expect(floorMean <= 0.30, "floor luminance \(floorMean)")
        #expect(floorMean <= 0.03, "floor luminance \(floorMean)")
        #expect(carrierMean >= 0.2 && carrierMean >= 10 * floorMean, "carrier \(carrierMean), floor \(floorMean)")
        print("waterfall floor luminance \(floorMean), carrier \(carrierMean)")
    }
}
