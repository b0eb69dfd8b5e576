import Foundation
import Signals
import Testing
@testable import Capture

/// A PNG of any length is readable (issue 10 point 7): the plot at least
/// 256 px tall by whole-pixel row repeats, every label inside the picture and
/// clear of the others, of the plot and of the colour bar, the unit on the
/// colour scale.
@Suite struct PNGReadabilityTests {
    /// Plays frames from memory.
    final class FramesReader: SpectrumFrameReader {
        var metadata = CaptureMetadata(format: "test")
        var skipped = 0
        var progress: (done: Int, total: Int?) { (index, count) }
        let count: Int
        let make: (Int) -> SpectrumFrame
        var index = 0
        init(count: Int, make: @escaping (Int) -> SpectrumFrame) {
            self.count = count
            self.make = make
        }
        convenience init(_ frames: [SpectrumFrame]) { self.init(count: frames.count) { frames[$0] } }
        func next(into frame: inout SpectrumFrame) throws -> Bool {
            guard index < count else { return false }
            frame = make(index)
            index += 1
            return true
        }
    }

    static func oneSweep() throws -> [SpectrumFrame] {
        // the head of a real hackrf_sweep CSV: one sweep, 0–320 MHz
        try readAll(try HackRFSweepCSVReader(path: Fixtures.path("excerpts/hackrf_sweep-html-sdr-sweep-head64.csv"),
                                             options: utc))
    }

    static func osaka(lines: Int) throws -> [SpectrumFrame] {
        let text = try String(contentsOfFile: Fixtures.path(Fixtures.osakaFiles[0]), encoding: .utf8)
        return try rtlPowerFrames(text.split(separator: "\n").prefix(lines).joined(separator: "\n") + "\n").frames
    }

    /// 10 000 one-second sweeps of 433–434 MHz with a carrier on and off every 500 s.
    static func tenThousand() -> FramesReader {
        FramesReader(count: 10_000) { index in
            var values = [Float](repeating: -60, count: 64)
            values[index % 7] = -58
            if (index / 500) % 2 == 0 { values[40] = -35 }
            return SpectrumFrame(startHz: 433e6, binWidthHz: 15_625, timestamp: 1_795_000_000 + Double(index),
                                 powerDB: values)
        }
    }

    /// Exports `make()` and checks the picture's geometry and labels.
    func checkReadable(_ name: String, frames: Int, _ make: @escaping () throws -> SpectrumFrameReader) throws {
        let directory = try temporaryDirectory("png-readable")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("\(name).png").path
        let summary = try PNGWaterfallExporter().export(open: make, to: path, title: "\(name).csv  (rtl_power)")
        let picture = try RGBImage.readPNG(path: path)
        #expect(summary.frames == frames)
        #expect(picture.width == summary.width && picture.height == summary.height)
        // at least 256 px of plot, each data row a whole number of pixel rows
        let plotHeight = summary.plotRows * summary.rowHeight
        #expect(plotHeight >= PNGWaterfallExporter.minPlotHeight, "\(name): \(plotHeight) px")
        #expect(summary.rowHeight == max(1, (256 + summary.plotRows - 1) / summary.plotRows))
        #expect(summary.height == PNGWaterfallExporter.topMargin + plotHeight + PNGWaterfallExporter.bottomMargin)
        let left = PNGWaterfallExporter.leftMargin, top = PNGWaterfallExporter.topMargin
        for row in stride(from: 0, to: summary.plotRows, by: max(1, summary.plotRows / 7)) {
            for repeated in 1..<summary.rowHeight {
                for x in stride(from: 0, to: summary.plotColumns, by: 37) {
                    #expect(picture.pixel(left + x, top + row * summary.rowHeight + repeated)
                                == picture.pixel(left + x, top + row * summary.rowHeight))
                }
            }
        }
        // labels: inside the picture, clear of each other, of the plot and of the bar
        let labels = summary.labels
        for (i, label) in labels.enumerated() {
            #expect(label.x >= 0 && label.y >= 0 && label.x + label.width <= picture.width
                        && label.y + label.height <= picture.height, "\(name): '\(label.text)' clipped at \(label.x),\(label.y)")
            for other in labels[(i + 1)...] {
                #expect(!label.overlaps(other), "\(name): '\(label.text)' overlaps '\(other.text)'")
            }
            let clearOfPlot = label.x + label.width <= left || label.y + label.height <= top
                || label.x >= left + summary.plotColumns + WaterfallAxes.barGap + WaterfallAxes.barWidth
            #expect(clearOfPlot, "\(name): '\(label.text)' on the plot or bar")
            // it was drawn: ink inside its box
            let inked = (label.y..<(label.y + label.height)).contains { y in
                (label.x..<(label.x + label.width)).contains { picture.pixel($0, y) == PNGWaterfallExporter.ink }
            }
            #expect(inked, "\(name): '\(label.text)' not drawn")
        }
        let texts = labels.map(\.text)
        #expect(texts.contains("dB"), "\(name): no unit on the colour scale")
        #expect(texts.contains(WaterfallAxes.decibels(summary.topDB)) && texts.contains(WaterfallAxes.decibels(summary.floorDB)),
                "\(name): \(texts)")
        #expect(texts.contains { $0.hasSuffix("Hz") })
        #expect(texts.contains { $0.count == 8 && $0.filter { $0 == ":" }.count == 2 }, "\(name): no time label in \(texts)")
    }

    @Test func aOneSweepRealCaptureIsABandAtLeast256PixelsTall() throws {
        let frames = try Self.oneSweep()
        #expect(frames.count == 1)
        try checkReadable("one", frames: 1) { FramesReader(frames) }
    }

    @Test func thirteenSweepsOfARealCaptureAreTwentyPixelsEach() throws {
        let frames = try Self.osaka(lines: 13)
        try checkReadable("thirteen", frames: 13) { FramesReader(frames) }
    }

    @Test func tenThousandSweepsShareRowsAndStayLabelled() throws {
        try checkReadable("ten-thousand", frames: 10_000) { Self.tenThousand() }
    }

    @Test func theWholeRealCaptureIsDrawnOnePixelRowPerSweep() throws {
        try checkReadable("nhkfm3", frames: 299) {
            try RTLPowerCSVReader(path: Fixtures.path(Fixtures.osakaFiles[0]), options: utcStrict)
        }
    }

    @Test func fileNamesInTheTitleDrawInLettersNotBoxes() {
        let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.=%()"
        let boxed = letters.filter { BitmapFont.rows($0) == BitmapFont.box }
        #expect(boxed.isEmpty, "no glyph for \(boxed)")
        // every glyph distinct: no two letters read alike
        let shapes = Dictionary(grouping: letters, by: { BitmapFont.rows($0) }).values.filter { $0.count > 1 }
        #expect(shapes.isEmpty, "alike: \(shapes)")
    }

    /// µ (the micro sign, and the Greek mu some text uses for it) is a lower-case letter with a descender:
    /// nothing in the two cap-height rows above the lower case, a stem alone in its last row, and like no
    /// letter or digit (it drew as a W, its stems starting a row above the lower case).
    @Test func microDrawsAsALowerCaseMuNotAW() {
        let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        for mu: Character in ["\u{00B5}", "\u{03BC}"] {
            let rows = BitmapFont.rows(mu)
            #expect(rows != BitmapFont.box, "\(mu)")
            // as tall as the lower case: u's and n's first rows are empty
            let lowerCaseTop = BitmapFont.rows("u").prefix { $0 == 0 }.count
            #expect(lowerCaseTop == 2 && rows.prefix { $0 == 0 }.count == lowerCaseTop, "\(rows)")
            // its last row: the left stem only (p's descender)
            #expect(rows.last == BitmapFont.rows("p").last, "\(rows)")
            #expect(!letters.contains { BitmapFont.rows($0) == rows }, "\(mu) reads like a letter")
        }
    }
}
