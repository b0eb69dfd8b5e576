import Signals
import Terminal
import Testing
import ViewModels
import Views

/// Frame-to-frame behaviour of the spectrum view with the diff writer, at the
/// sizes the watch benchmarks use (Benchmarks/ViewsBenchmarks).
@Suite struct SpectrumPlotFrameTests {
    static let sizes = [(80, 24), (240, 70)]

    /// 8192 bins of seeded noise around −90 dB with one carrier at `carrierBin`.
    static func frame(seed: UInt32, carrierBin: Int) -> SpectrumFrame {
        var state = seed
        let power = (0..<8192).map { bin -> Float in
            state = state &* 1_664_525 &+ 1_013_904_223
            if abs(bin - carrierBin) < 4 { return -30 }
            return Float(state >> 8) / Float(1 << 24) * 12 - 96
        }
        return SpectrumFrame(startHz: 2_400_000_000, binWidthHz: 12_207.03125, timestamp: 0, powerDB: power)
    }

    static let status = SpectrumStatus(deviceName: "HackRF One (emulated)", isDemo: true,
                                       binWidthHz: 12_207.03125, framesPerSecond: 30)

    static func model(for frame: SpectrumFrame, width: Int, height: Int) -> SpectrumPlotModel {
        let pixels = SpectrumPlotView.plotPixels(width: width, height: height)
        return SpectrumPlotModel(deviceLimits: FrequencyRange(lowerHz: 0, upperHz: 6_000_000_000)!,
                                 visibleBand: frame.range!, pixelColumns: pixels.columns, pixelRows: pixels.rows)
    }

    @Test(arguments: sizes)
    func unchangedFrameWritesNoBytes(width: Int, height: Int) {
        let frame = Self.frame(seed: 1, carrierBin: 2000)
        let model = Self.model(for: frame, width: width, height: height)
        let view = SpectrumPlotView()
        let writer = DiffWriter(mode: .trueColor)
        var buffer = Buffer(width: width, height: height)
        view.render(model: model, frame: frame, status: Self.status, into: &buffer)
        writer.render(buffer)
        #expect(!writer.output.isEmpty)
        view.render(model: model, frame: frame, status: Self.status, into: &buffer)
        writer.render(buffer)
        #expect(writer.output.isEmpty)
    }

    /// Drawing B after A leaves exactly what drawing B alone does: no dots of
    /// A's trace linger where B has none.
    @Test(arguments: sizes)
    func newFrameReplacesThePreviousTrace(width: Int, height: Int) {
        let first = Self.frame(seed: 1, carrierBin: 2000)
        let second = Self.frame(seed: 2, carrierBin: 6000)
        let model = Self.model(for: first, width: width, height: height)

        let view = SpectrumPlotView()
        var buffer = Buffer(width: width, height: height)
        view.render(model: model, frame: first, status: Self.status, into: &buffer)
        view.render(model: model, frame: second, status: Self.status, into: &buffer)

        var fresh = Buffer(width: width, height: height)
        SpectrumPlotView().render(model: model, frame: second, status: Self.status, into: &fresh)
        #expect(buffer.lines == fresh.lines)
        let sameStyles = buffer.cells == fresh.cells
        #expect(sameStyles, "characters match but colours differ")
    }

    /// The diff of A → B brings a terminal showing A to exactly B: the bytes
    /// are fewer than a full redraw and not zero.
    @Test(arguments: sizes)
    func changedFrameSendsLessThanAFullRedraw(width: Int, height: Int) {
        let first = Self.frame(seed: 1, carrierBin: 2000)
        let second = Self.frame(seed: 2, carrierBin: 6000)
        let model = Self.model(for: first, width: width, height: height)
        let view = SpectrumPlotView()
        let writer = DiffWriter(mode: .trueColor)
        var buffer = Buffer(width: width, height: height)
        view.render(model: model, frame: first, status: Self.status, into: &buffer)
        writer.render(buffer)
        let fullRedraw = writer.output.count
        view.render(model: model, frame: second, status: Self.status, into: &buffer)
        writer.render(buffer)
        #expect(writer.output.count > 0)
        #expect(writer.output.count < fullRedraw)
    }
}
