import Capture
import DSP
import Devices
import Foundation
import Signals
import Terminal
import Testing
@testable import Runs

/// A fresh directory under the system's temporary one, removed by the caller.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("runs-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The library's runs on the emulated analyzers, without the executable.
@Suite struct HeadlessRunTests {
    /// hackrf_sweep's whole run on the demo HackRF: two sweeps of 2400–2480 MHz
    /// in hackrf_sweep's text layout, two lines per 20 MHz step.
    @Test func hackRFSweepRunWritesTwoSweepsOfHackrfSweepLines() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("sweep.csv").path
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 2400, stopMHz: 2480)], binWidthHz: 1e6)
        let summary = try HackRFSweepRun.run(
            selection: DeviceSelection(device: .demo), plan: plan, gains: .sweepDefaults, ampEnabled: false,
            antennaPower: false, outputPath: output, layout: .text, sweepLimit: 2, detector: .sample)
        #expect(summary.sweeps == 2)
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        let perSweep = 2 * plan.stepFrequenciesHz.count
        #expect(lines.count == 2 * perSweep, "\(lines.count) lines, \(perSweep) per sweep")
        for line in lines {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            // date, time, hz_low, hz_high, hz_bin_width, num_samples, then one dB per bin
            #expect(fields.count == 6 + Int(5e6 / 1e6 * Double(plan.fftSize) / 20), "\(line.prefix(80))")
            #expect(Double(fields[4]) == 20e6 / Double(plan.fftSize))
            #expect(fields.dropFirst(6).allSatisfy { Double($0).map { $0 < 0 && $0 > -140 } ?? false })
        }
    }

    /// rtl_power's command line read by the library: each value in a wrong
    /// form names its option.
    @Test func rtlPowerCommandLineNamesTheOptionItCannotRead() {
        func line(_ ranges: [String], window: String? = nil, interval: String? = nil, crop: String? = nil)
            -> RTLPowerCommandLine {
            RTLPowerCommandLine(ranges: ranges, window: window, gain: nil, interval: interval, exitTimer: nil,
                                crop: crop, singleShot: true, outputPath: nil, filename: nil)
        }
        let cases: [(RTLPowerCommandLine, String)] = [
            (line(["88M:108M"]), "-f 88M:108M"),
            (line(["88M:108M:125k", "1G:2G:1M"]), "exactly one -f"),
            (line(["88M:108M:125k"], window: "gauss"), "-w gauss"),
            (line(["88M:108M:125k"], interval: "ten"), "-i ten"),
            (line(["88M:108M:125k"], crop: "lots"), "-c lots"),
        ]
        for (commandLine, mentions) in cases {
            #expect {
                try RTLPowerSettings(commandLine)
            } throws: { error in
                (error as? UsageError)?.description.contains(mentions) == true
            }
        }
        let settings = try? RTLPowerSettings(line(["88M:108M:125k"], window: "hamming", interval: "5m", crop: "20%"))
        #expect(settings?.intervalSeconds == 300)
        #expect(settings?.window == .hamming)
        #expect(settings?.plan.lowerHz == 88_000_000)
    }

    /// rtl_power's run on the emulated RTL-SDR: one report (-1) of the FM band,
    /// every line rtl_power's layout, the hops covering 88–108 MHz.
    @Test func rtlPowerSweepOnTheEmulatedDongleWritesOneReport() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("fm.csv").path
        let settings = try RTLPowerSettings(RTLPowerCommandLine(
            ranges: ["88M:108M:125k"], window: nil, gain: nil, interval: "1", exitTimer: nil, crop: nil,
            singleShot: true, outputPath: output, filename: nil))
        try RTLPowerSweep(settings: settings, selection: DeviceSelection(device: .emulated(.rtlsdr))).run()
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == settings.plan.hopCount)
        let lows = lines.compactMap { Double($0.split(separator: ",")[2].trimmingCharacters(in: .whitespaces)) }
        let highs = lines.compactMap { Double($0.split(separator: ",")[3].trimmingCharacters(in: .whitespaces)) }
        #expect(lows.min() == 88e6)
        #expect((highs.max() ?? 0) >= 108e6)
    }

    /// A spectrum recording of the demo for one second lands in a capture
    /// store whose frames are the band asked for.
    @Test func spectrumRecordingStoresTheDemoForItsDuration() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("demo.tscope").path
        let band = try #require(FrequencyRange(lowerHz: 430e6, upperHz: 440e6))
        let request = try RecordingRequest(
            selection: DeviceSelection(device: .demo), band: band, bandText: "430:440", binWidthHz: 100e3,
            frameRate: 0, label: "library", operatorName: nil, durationSeconds: 1, outputPath: path,
            detector: .peak)
        try SpectrumRecording(request: request).run()
        let reader = try CaptureStoreReader(path: path)
        #expect(reader.frameCount > 3)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        #expect(try reader.next(into: &frame))
        let range = try #require(frame.range)
        #expect(range.lowerHz <= 430e6 + 1e6 && range.upperHz >= 440e6 - 1e6, "\(range)")
        #expect(reader.metadata.label == "library")
    }

    /// A directory output is created and the file named in it.
    @Test func aRecordingRequestForADirectoryCreatesIt() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let nested = directory.appendingPathComponent("captures/night").path + "/"
        let request = try RecordingRequest(
            selection: DeviceSelection(device: .demo), band: FrequencyRange(lowerHz: 88e6, upperHz: 108e6)!,
            bandText: "88:108", binWidthHz: 100e3, frameRate: 0, label: nil, operatorName: nil, durationSeconds: 1,
            outputPath: nested, detector: .peak)
        #expect(request.output == .directory(nested))
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: nested, isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(request.metadata.writerVersion == TscopeVersion.number)
    }
}

/// `convert` as a library run, on a real rtl_power file.
@Suite struct CaptureConversionTests {
    static let fixture = Bundle.module.url(forResource: "Fixtures/nhkfm3", withExtension: "csv")!.path

    /// rtl_power → tscope store → CSV: every one of the 299 rows arrives,
    /// and a conversion of a store onto itself is refused.
    @Test func aRealRTLPowerFileConvertsToAStoreAndOnToCSV() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("nhkfm3.tscope").path
        let options = CaptureReadOptions(timeZone: .utcOffset(seconds: 9 * 3600))
        let toStore = try CaptureConversion(input: Self.fixture, inputFormat: .rtlPower, output: store, outputFormat: nil,
                                            readOptions: options)
        #expect(toStore.outputFormat == .tscope)
        #expect(try toStore.run() == "299 frames from rtl_power to tscope")
        let csv = directory.appendingPathComponent("nhkfm3.csv").path
        let toCSV = try CaptureConversion(input: store, inputFormat: .tscope, output: csv, outputFormat: .csv,
                                          readOptions: options)
        #expect(try toCSV.run() == "299 frames from tscope to csv")
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        #expect(rows.count == 300, "a header and 299 rows")
        #expect {
            try CaptureConversion(input: store, inputFormat: .tscope, output: store, outputFormat: nil, readOptions: options)
        } throws: { error in
            "\(error)".contains("is the input")
        }
    }
}

/// `export` and `screenshot` as library runs, on the real rtl_power file.
@Suite struct ExportAndScreenshotRunTests {
    /// the max trace of the 299 sweeps, bin by bin, against the per-bin maximum read straight from the CSV text
    @Test func theMaxTraceOfARealCaptureIsItsPerBinMaximum() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let csv = directory.appendingPathComponent("max.csv").path
        let line = try ExportRun.run(ExportRequest(
            input: CaptureConversionTests.fixture, format: .rtlPower,
            readOptions: CaptureReadOptions(timeZone: .utcOffset(seconds: 9 * 3600)), output: .trace(csv: csv, kind: .max)))
        #expect(line == "\(csv): max trace of 299 sweeps, 128 bins")
        // independently: split each rtl_power row, the levels after the six leading fields; rtl_power repeats
        // the last of its 128 bins (formats note), so 129 values and the last is left out
        var maxima = [Double](repeating: -.infinity, count: 128)
        for row in try String(contentsOfFile: CaptureConversionTests.fixture, encoding: .utf8).split(separator: "\n") {
            let levels = row.split(separator: ",").dropFirst(6).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            #expect(levels.count == 129 && levels[127] == levels[128])
            for (index, level) in levels.prefix(128).enumerated() { maxima[index] = max(maxima[index], level) }
        }
        let written = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",").compactMap { Double($0) } }
        #expect(written.count == 128)
        for (index, row) in written.enumerated() {
            #expect(abs(row[1] - maxima[index]) < 0.006, "bin \(index): \(row[1]) against \(maxima[index])")
        }
        // rtl_power's own frequency of bin i: low + i · step
        #expect(written.map { $0[0] } == (0..<128).map { 88_050_000 + Double($0) * 781.25 })
    }

    @Test func aWaterfallPNGSaysWhatItDrew() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = directory.appendingPathComponent("w.png").path
        let line = try ExportRun.run(ExportRequest(
            input: CaptureConversionTests.fixture, format: .rtlPower, readOptions: CaptureReadOptions(),
            output: .png(path: png, crop: WaterfallCrop(start: nil, end: nil, lowHz: nil, highHz: nil),
                         maxRows: 2000, maxColumns: 2000)))
        #expect(line.hasPrefix("\(png): ") && line.contains(" px, 299 frames, 88.049609 MHz–88.149609 MHz"), "\(line)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(bytes.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    }

    @Test func aScreenIsDrawnWithItsColoursInverseAndDim() throws {
        var cell = Cell("A", style: CellStyle(foreground: .rgb(200, 100, 0), background: .rgb(0, 0, 100)))
        var drawn = ScreenshotRun.picture(of: cell)
        #expect(drawn.foreground == PowerColorMap.RGB(red: 200, green: 100, blue: 0))
        #expect(drawn.background == PowerColorMap.RGB(red: 0, green: 0, blue: 100))
        cell.style.attributes = [.inverse]
        drawn = ScreenshotRun.picture(of: cell)
        #expect(drawn.foreground == PowerColorMap.RGB(red: 0, green: 0, blue: 100))
        cell.style.attributes = [.dim]
        drawn = ScreenshotRun.picture(of: cell)
        #expect(drawn.foreground == PowerColorMap.RGB(red: 100, green: 50, blue: 50), "halfway to the background")

        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let screen = directory.appendingPathComponent("screen.txt").path
        try "\u{1B}[31mred\u{1B}[0m plain\n".write(toFile: screen, atomically: true, encoding: .utf8)
        let png = directory.appendingPathComponent("screen.png").path
        try ScreenshotRun.run(input: screen, output: png, width: 20, height: 2, scale: 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: png)).prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(throws: CommandError.self) {
            try ScreenshotRun.run(input: directory.appendingPathComponent("none").path, output: png,
                                  width: 20, height: 2, scale: 1)
        }
    }
}

/// `serve`'s access rule: loopback and TLS need nothing more; elsewhere a token is made unless --insecure.
@Suite struct ServeAccessTests {
    @Test func aSensorBeyondLoopbackWithoutTLSRequiresAToken() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("serve.token").path
        func decide(token: String? = nil, tls: Bool = false, host: String, insecure: Bool = false) throws -> ServeAccess {
            try ServeAccess.decide(givenToken: token, tokenFileGiven: token != nil, tls: tls, host: host,
                                   insecure: insecure, generatedTokenPath: path)
        }
        #expect(try decide(host: "127.0.0.1") == ServeAccess(token: nil, note: ""))
        #expect(try decide(host: "[::1]").token == nil)
        #expect(try decide(tls: true, host: "192.0.2.7").token == nil)
        #expect(try decide(token: "given", host: "192.0.2.7") == ServeAccess(token: "given", note: " (token required)"))
        #expect(try decide(host: "0.0.0.0", insecure: true).token == nil)
        let made = try decide(host: "0.0.0.0")
        let stored = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(made.token != nil && made.token == stored && made.note.contains(path))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the token file is its owner's only")
        #expect(try decide(host: "0.0.0.0").token == made.token, "kept and reused")
    }
}
