import DSP
import Signals
import Terminal
import Testing
import ViewModels
@testable import Views

/// A fixed scene: 100–120 MHz, floor −80 dB, a −20 dB carrier at 110 MHz and a
/// −50 dB one at 104 MHz, 2000 bins of 10 kHz.
func fixedFrame() -> SpectrumFrame {
    var bins = [Float](repeating: -80, count: 2000)
    bins[1000] = -20
    bins[400] = -50
    return SpectrumFrame(startHz: 100e6, binWidthHz: 10e3, timestamp: 0, powerDB: bins)
}

func fixedModel(width: Int, height: Int) -> SpectrumPlotModel {
    let pixels = SpectrumPlotView.plotPixels(width: width, height: height)
    return SpectrumPlotModel(deviceLimits: FrequencyRange(lowerHz: 0, upperHz: 6e9)!,
                             visibleBand: FrequencyRange(lowerHz: 100e6, upperHz: 120e6)!,
                             referenceLevelDB: 0, displaySpanDB: 100,
                             pixelColumns: pixels.columns, pixelRows: pixels.rows)
}

let fixedStatus = SpectrumStatus(deviceName: "HackRF One", isDemo: true, binWidthHz: 10e3,
                                 framesPerSecond: 30, droppedBlocks: 0, badBlocks: 2)

func render(width: Int, height: Int, model: SpectrumPlotModel? = nil, frame: SpectrumFrame? = fixedFrame()) -> [String] {
    var buffer = Buffer(width: width, height: height)
    SpectrumPlotView().render(model: model ?? fixedModel(width: width, height: height), frame: frame,
                              status: fixedStatus, into: &buffer)
    return buffer.lines.map { line in
        var trimmed = line
        while trimmed.last == " " { trimmed.removeLast() }
        return trimmed
    }
}

@Suite struct SpectrumPlotViewTests {
    @Test func golden80x24() {
        let expected = [
            " DEMO  HackRF One │ span 20 MHz │ bin 10 kHz │ 30 fps │ dropped 0 │ bad 2",
            "    0┤",
            "     │",
            "     │",
            "     │",
            "  -20┤                                    ⢸⡇",
            "     │                                    ⢸⡇",
            "     │                                    ⢸⡇",
            "     │                                    ⢸⡇",
            "  -40┤                                    ⢸⡇",
            "     │                                    ⢸⡇",
            "     │              ⢸⡇                    ⢸⡇",
            "     │              ⢸⡇                    ⢸⡇",
            "  -60┤              ⢸⡇                    ⢸⡇",
            "     │              ⢸⡇                    ⢸⡇",
            "     │              ⢸⡇                    ⢸⡇",
            "     │              ⢸⡇                    ⢸⡇",
            "  -80┤⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉",
            "     │",
            "     │",
            " -100┤",
            "     └┬─────────────────┬─────────────────┬─────────────────┬──────────────────",
            "dB    100              105               110               115              MHz",
            " ←/→ pan   +/- zoom   ↑/↓ gain   a autoscale   space pause   q quit",
        ]
        let lines = render(width: 80, height: 24)
        #expect(lines == expected, "\n\(lines.joined(separator: "\n"))")
    }

    @Test func tinyTerminalsDropTheAxesAndNeverCrash() {
        for (width, height) in [(20, 6), (8, 3), (3, 2), (1, 1), (0, 0), (39, 9)] {
            let lines = render(width: width, height: height)
            #expect(lines.count == height)
            #expect(!lines.joined().contains("┤"), "\(width)×\(height)")
        }
        let small = render(width: 20, height: 6)
        #expect(small[0].hasPrefix(" DEMO "))
        #expect(small.dropFirst().contains { $0.contains("⢸") || $0.contains("⠉") })
    }

    @Test func pausedAndNoFrameYet() {
        var model = fixedModel(width: 80, height: 24)
        model.togglePause()
        let lines = render(width: 80, height: 24, model: model, frame: nil)
        #expect(lines[0].hasPrefix(" DEMO  PAUSED  HackRF One │"))
        // no trace without a frame
        #expect(!lines[1..<21].joined().contains { ("\u{2801}"..."\u{28FF}").contains($0) })
    }

    /// The HackRF's dwell per frequency and sweep time close the status line,
    /// so a user knows how short a signal can be and still be seen.
    @Test func theStatusLineSaysHowLongEachFrequencyIsWatched() {
        var status = fixedStatus
        status.dwell = DwellTiming(dwellSeconds: 409e-6, revisitSeconds: 2.4576e-3)
        var buffer = Buffer(width: 160, height: 24)
        SpectrumPlotView().render(model: fixedModel(width: 160, height: 24), frame: fixedFrame(), status: status,
                                  into: &buffer)
        #expect(buffer.lines[0].contains("│ bad 2 │ sweep dwell 409 µs / 2.46 ms"), "\(buffer.lines[0])")
        status.dwell = DwellTiming(dwellSeconds: 1e-6, revisitSeconds: 0.25)
        var other = Buffer(width: 160, height: 24)
        SpectrumPlotView().render(model: fixedModel(width: 160, height: 24), frame: fixedFrame(), status: status,
                                  into: &other)
        #expect(other.lines[0].contains("dwell 1 µs / 250 ms"), "\(other.lines[0])")
        // real time: the FFT, the overlap and the shortest burst certain to be seen at full level
        // (N + hop − 1 = 8192 + 4096 − 1 samples at 20 MS/s = 614.35 µs), and samples lost, not blocks
        status.dwell = .realtime(RealtimeAnalysis(fftSize: 8192, overlap: 0.5, sampleRateHz: 20e6, frameSeconds: 1 / 30))
        status.droppedSamples = 12
        var streamed = Buffer(width: 200, height: 24)
        SpectrumPlotView().render(model: fixedModel(width: 200, height: 24), frame: fixedFrame(), status: status,
                                  into: &streamed)
        #expect(streamed.lines[0].contains("dropped 12 samples │ bad 2"), "\(streamed.lines[0])")
        #expect(streamed.lines[0].contains("│ realtime FFT 8192, 50 % overlap │ 100 % POI ≥ 614 µs"), "\(streamed.lines[0])")
    }

    @Test func redrawingTheSameFrameChangesNothing() {
        let view = SpectrumPlotView()
        let model = fixedModel(width: 80, height: 24)
        var buffer = Buffer(width: 80, height: 24)
        view.render(model: model, frame: fixedFrame(), status: fixedStatus, into: &buffer)
        let first = buffer.lines
        let writer = DiffWriter(mode: .trueColor)
        writer.render(buffer)
        view.render(model: model, frame: fixedFrame(), status: fixedStatus, into: &buffer)
        writer.render(buffer)
        #expect(buffer.lines == first)
        #expect(writer.output.isEmpty)
    }
}

@Suite struct PlotKeyMapTests {
    private func intent(_ bytes: [UInt8]) -> PlotIntent? {
        guard case .event(let event, _) = InputParser.parse(bytes) else { return nil }
        return PlotKeyMap.intent(for: event)
    }

    @Test func keysFromByteLiterals() {
        #expect(intent([0x1B, 0x5B, 0x44]) == .pan(fractionOfSpan: -0.1))   // ESC [ D  ←
        #expect(intent([0x1B, 0x5B, 0x43]) == .pan(fractionOfSpan: 0.1))    // ESC [ C  →
        #expect(intent([0x1B, 0x4F, 0x41]) == .increaseDisplayGain)         // ESC O A  ↑ (application mode)
        #expect(intent([0x1B, 0x5B, 0x42]) == .decreaseDisplayGain)         // ESC [ B  ↓
        #expect(intent([0x2B]) == .zoom(factor: 0.5))                       // +
        #expect(intent([0x2D]) == .zoom(factor: 2))                         // -
        #expect(intent([0x20]) == .togglePause)                             // space
        #expect(intent([0x71]) == .quit)                                    // q
        #expect(intent([0x03]) == .quit)                                    // Ctrl-C in raw mode
        #expect(intent([0x61]) == .autoscale)                               // a
        #expect(intent([0x7A]) == nil)                                      // z: nothing
    }
}
