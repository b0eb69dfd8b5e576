import Foundation
import Signals
import Testing
@testable import Capture

@Suite struct ExportTests {
    private func osakaReader() throws -> SpectrumFrameReader {
        try RTLPowerCSVReader(path: Fixtures.path(Fixtures.osakaFiles[0]), options: utcStrict)
    }

    @Test func wideCSVHasOneRowPerFrameAndValuesThatReadBackExactly() throws {
        let directory = try temporaryDirectory("csv")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("w.csv").path
        let writer = CSVExporter(sink: try OutputSink.file(path: path), layout: .wide)
        let frames = try readAll(try osakaReader())
        for frame in frames { try writer.write(frame) }
        try writer.finish()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 300)
        let header = lines[0].split(separator: ",")
        #expect(header.count == 129)
        #expect(header[0] == "time")
        #expect(Double(header[1]) == frames[0].binCenterHz(0))
        let row = lines[1].split(separator: ",", omittingEmptySubsequences: false)
        #expect(row[0] == "2018-11-18T12:31:45.000000Z")
        #expect(row[1...].map { Float($0)! } == frames[0].powerDB)
    }

    @Test func valuesKeepTheirFloatExactlyNaNIsEmptyAndInfinityNamed() {
        var rng = SeededRandom(seed: 8)
        var buffer = [UInt8](repeating: 0, count: 64)
        let text = { (value: Float) -> String in
            buffer.withUnsafeMutableBufferPointer { out in
                let n = CSVExporter.writeValue(value, to: out.baseAddress!)
                return String(decoding: out[0..<n], as: UTF8.self)
            }
        }
        for _ in 0..<20_000 {
            let value = Float.random(in: -150...30, using: &rng)
            #expect(Float(text(value)) == value)
        }
        #expect(text(-28.67) == "-28.67")
        #expect(text(.nan) == "")
        #expect(text(-.infinity) == "-inf")
    }

    @Test func wideCSVRefusesFramesWithOtherBinsAndLongAcceptsThem() throws {
        let directory = try temporaryDirectory("csv2")
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = SpectrumFrame(startHz: 0, binWidthHz: 10, timestamp: 0, powerDB: [1, 2])
        let b = SpectrumFrame(startHz: 5, binWidthHz: 10, timestamp: 1, powerDB: [3])
        let wide = CSVExporter(sink: try OutputSink.file(path: directory.appendingPathComponent("w.csv").path), layout: .wide)
        try wide.write(a)
        #expect(captureError { try wide.write(b) }?.detail.contains("--layout long") == true)
        let longPath = directory.appendingPathComponent("l.csv").path
        let long = CSVExporter(sink: try OutputSink.file(path: longPath), layout: .long)
        try long.write(a)
        try long.write(b)
        try long.finish()
        #expect(try String(contentsOfFile: longPath, encoding: .utf8) == """
            time,frequency_hz,power_db
            1970-01-01T00:00:00.000000Z,5,1.00
            1970-01-01T00:00:00.000000Z,15,2.00
            1970-01-01T00:00:01.000000Z,10,3.00

            """)
    }

    @Test func pngWaterfallDrawsEveryFrameInTheMapsColoursWithAxes() throws {
        let directory = try temporaryDirectory("png")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("w.png").path
        let summary = try PNGWaterfallExporter().export(open: osakaReader, to: path, title: "nhkfm3.csv")
        #expect(summary.frames == 299)
        #expect(summary.plotRows == 299)
        #expect(summary.plotColumns == 512)  // 128 bins widened to the minimum width
        let picture = try RGBImage.readPNG(path: path)
        #expect(picture.width == summary.width && picture.height == summary.height)
        // every plot pixel is a colour of the map (no gaps: each bin covers 4 columns)
        let palette = Set(PowerColorMap.table.map { "\($0.red),\($0.green),\($0.blue)" })
        var offMap = 0
        for y in 0..<summary.plotRows {
            for x in 0..<summary.plotColumns {
                let p = picture.pixel(PNGWaterfallExporter.leftMargin + x, PNGWaterfallExporter.topMargin + y)
                if !palette.contains("\(p.red),\(p.green),\(p.blue)") { offMap += 1 }
            }
        }
        #expect(offMap == 0)
        // the station at 88.1 MHz (plot centre) is louder than the band edges
        let meanLevel = { (x: Int) -> Int in
            (0..<summary.plotRows).map { y in
                PowerColorMap.table.firstIndex(of: picture.pixel(PNGWaterfallExporter.leftMargin + x,
                                                                 PNGWaterfallExporter.topMargin + y)) ?? 0
            }.reduce(0, +) / summary.plotRows
        }
        #expect(meanLevel(256) > meanLevel(5) + 40, "\(meanLevel(256)) vs \(meanLevel(5))")
        // labels: ink pixels in the left margin (times) and above the plot (frequencies)
        var ink = 0
        for y in 0..<PNGWaterfallExporter.topMargin { for x in 0..<picture.width where picture.pixel(x, y) == PNGWaterfallExporter.ink { ink += 1 } }
        #expect(ink > 200)
    }

    @Test func pngCropKeepsOnlyTheAskedTimesAndBand() throws {
        let directory = try temporaryDirectory("png-crop")
        defer { try? FileManager.default.removeItem(at: directory) }
        let crop = WaterfallCrop(start: .afterStart(60), end: .afterStart(119), lowHz: 88.08e6, highHz: 88.12e6)
        let summary = try PNGWaterfallExporter(crop: crop).export(open: osakaReader, to: directory.appendingPathComponent("c.png").path,
                                                                  title: "crop")
        #expect(summary.frames == 60)
        #expect(summary.lowHz == 88.08e6 && summary.highHz == 88.12e6)
        let nothing = WaterfallCrop(lowHz: 1e9, highHz: 2e9)
        let error = captureError {
            _ = try PNGWaterfallExporter(crop: nothing).export(open: osakaReader, to: directory.appendingPathComponent("n.png").path, title: "")
        }
        #expect(error?.detail.contains("crop") == true)
    }

    @Test func manyFramesShareRowsByMaximumSoABurstSurvives() throws {
        let directory = try temporaryDirectory("png-max")
        defer { try? FileManager.default.removeItem(at: directory) }
        // 1000 quiet frames, one loud bin in frame 500; 100 rows → 10 frames per row
        final class Synthetic: SpectrumFrameReader {
            var metadata = CaptureMetadata(format: "test")
            var skipped = 0
            var progress: (done: Int, total: Int?) { (index, 1000) }
            var index = 0
            func next(into frame: inout SpectrumFrame) throws -> Bool {
                guard index < 1000 else { return false }
                var values = [Float](repeating: -80, count: 64)
                if index == 500 { values[10] = -10 }
                values[0] = -90
                frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: Double(index), powerDB: values)
                index += 1
                return true
            }
        }
        let path = directory.appendingPathComponent("m.png").path
        let summary = try PNGWaterfallExporter(maxRows: 100, minColumns: 64).export(open: { Synthetic() }, to: path, title: "")
        #expect(summary.plotRows == 100 && summary.plotColumns == 64)
        let picture = try RGBImage.readPNG(path: path)
        // 100 rows drawn 3 px each (at least 256 px of plot)
        #expect(summary.rowHeight == 3)
        let rowTop = { (row: Int) in PNGWaterfallExporter.topMargin + row * summary.rowHeight }
        #expect(picture.pixel(PNGWaterfallExporter.leftMargin + 10, rowTop(50)) == PowerColorMap.table.last)
        #expect(picture.pixel(PNGWaterfallExporter.leftMargin + 10, rowTop(50) + 2) == PowerColorMap.table.last)
        #expect(picture.pixel(PNGWaterfallExporter.leftMargin + 10, rowTop(49)) != PowerColorMap.table.last)
        #expect(picture.pixel(PNGWaterfallExporter.leftMargin + 10, rowTop(51)) != PowerColorMap.table.last)
    }

    @Test func formatsAreFoundFromExtensionAndFirstBytes() throws {
        let directory = try temporaryDirectory("detect")
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ text: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        #expect(try CaptureFormat.detect(path: Fixtures.path(Fixtures.osakaFiles[0])) == .rtlPower)
        #expect(try CaptureFormat.detect(path: try file("h.csv", "2024-01-01, 10:00:00.123456, 1, 2, 1.00, 4, -1.00\n")) == .hackrfSweep)
        // whole seconds: hackrf_sweep 2018.01.1 (a 5 MHz block of exactly (high − low)/step values) or rtl_power
        #expect(try CaptureFormat.detect(path: Fixtures.path("excerpts/hackrf_sweep-issue237-whole-seconds.csv"))
                == .hackrfSweep)
        for rtlPower in ["excerpts/rtl_power-test5-excerpt.csv", "excerpts/rtl_power-fm_stations-excerpt.csv",
                         "excerpts/rtl_power-filename_jackie-excerpt.csv"] {
            #expect(try CaptureFormat.detect(path: Fixtures.path(rtlPower)) == .rtlPower, "\(rtlPower)")
        }
        let fiveMHzBlock = "2017-07-27, 16:38:48, 400000000, 405000000, 1000000.00, 20, -1, -2, -3, -4, -5"
        #expect(try CaptureFormat.detect(path: try file("w.csv", fiveMHzBlock + "\n")) == .hackrfSweep)
        #expect(try CaptureFormat.detect(path: try file("x.csv", fiveMHzBlock + ", -5\n")) == .rtlPower)
        #expect(try CaptureFormat.detect(path: try file("y.csv", "2017-07-27, 16:38:48, 400000000, 403000000, "
                                                        + "1000000.00, 20, -1, -2, -3\n")) == .rtlPower)
        #expect(try CaptureFormat.detect(path: try file("s.bin", "SDRFF...")) == .soapyPowerBin)
        // .bin is sniffed: a -B record starts with its uint32 LE length 16 + 4·bins, then hz_low < hz_high
        #expect(try CaptureFormat.detect(path: Fixtures.path("excerpts/hackrf_sweep-html-sdr-tst-head10.bin")) == .hackrfSweepBinary)
        let raw = captureError { _ = try CaptureFormat.detect(path: Fixtures.path("excerpts/rtlamr-sample-head.bin")) }
        #expect(raw?.location == .byte(0))
        #expect(raw?.detail.contains("not hackrf_sweep -B") == true && raw?.detail.contains("--in-format cu8 --rate") == true,
                "\(String(describing: raw))")
        #expect(captureError { _ = try CaptureFormat.detect(path: try file("h.bin", "\u{14}\0\0\0")) }?.detail
                    .contains("shorter than one record header") == true)
        #expect(try CaptureFormat.detect(path: try file("r.cs8", "")) == .cs8)
        #expect(captureError { _ = try CaptureFormat.detect(path: try file("e.csv", "")) }?.detail.contains("empty") == true)
        #expect(captureError { _ = try CaptureFormat.detect(path: try file("x.csv", "hello\n")) }?.location == .line(1))
        #expect(CaptureFormat.forOutput(path: "x.csv") == nil)
        #expect(CaptureFormat.forOutput(path: "x.bin") == .hackrfSweepBinary)
    }
}
