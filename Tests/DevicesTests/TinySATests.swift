import Analyzers
import Foundation
import Signals
import Testing
import ThreadKit
import USBDriver
@testable import Devices

/// Feeds `bytes` to `parser` in pieces of `chunk` bytes; returns the events.
private func feed(_ parser: inout TinySAScanParser, _ bytes: [UInt8], chunk: Int) -> [TinySAScanParser.Event] {
    var events: [TinySAScanParser.Event] = []
    var offset = 0
    while offset < bytes.count {
        let end = min(offset + chunk, bytes.count)
        Array(bytes[offset..<end]).withUnsafeBytes { parser.feed($0) { events.append($0) } }
        offset = end
    }
    return events
}

/// Collects frames delivered on another thread.
final class FrameCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var frames: [SpectrumFrame] = []
    private let arrived = DispatchSemaphore(value: 0)

    func add(_ frame: SpectrumFrame) {
        lock.withLock { frames.append(frame) }
        arrived.signal()
    }

    var all: [SpectrumFrame] { lock.withLock { frames } }

    /// Waits until `count` frames arrived in total (or `seconds` passed).
    func wait(for count: Int, seconds: Double = 10) -> [SpectrumFrame] {
        let deadline = SystemClock().now + seconds
        while all.count < count, SystemClock().now < deadline {
            _ = arrived.wait(timeout: .now() + .milliseconds(50))
        }
        return all
    }
}

@Suite struct TinySATests {
    /// `scanraw 0 300 3` as the firmware answers: echo, braces, prompt.
    let threePointReply: [UInt8] = Array("scanraw 0 300 3\r\n".utf8)
        + [0x7b, 0x78, 0x00, 0x0c, 0x78, 0x40, 0x0c, 0x78, 0xff, 0xff, 0x7d] + Array("ch> ".utf8)

    @Test func parserDecodesScanrawInAnyPacketSize() {
        for chunk in 1...threePointReply.count {
            var parser = TinySAScanParser(maxPoints: 290, zeroLevelDB: 128)
            parser.expect(points: 3)
            let events = feed(&parser, threePointReply, chunk: chunk)
            #expect(events == [.scan], "chunk \(chunk)")
            #expect(parser.scanPoints == 3)
            // 0x0c00 = 3072 → 3072/32 − 128 = −32 dBm; 0x0c40 → −30; 0xffff = −1 → −128.03125
            let expected: [Float] = [-32, -30, -1.0 / 32 - 128]
            #expect(Array(parser.values[0..<3]) == expected)
        }
    }

    @Test func ultraZeroLevelIs174() {
        var parser = TinySAScanParser(maxPoints: 450, zeroLevelDB: TinySAModel.ultra.zeroLevelDB)
        parser.expect(points: 3)
        _ = feed(&parser, threePointReply, chunk: 64)
        #expect(parser.values[0] == 96 - 174)
    }

    @Test func corruptRepliesAreReportedAndTheNextOneParses() {
        var missingMarker = threePointReply
        missingMarker[21] = 0x79
        var tooShort = threePointReply
        tooShort.removeSubrange(23..<26)
        let refused = Array("scanraw\r\nusage: scanraw {start(Hz)} {stop(Hz)} [points]\r\nch> ".utf8)
        for bad in [missingMarker, tooShort, refused] {
            var parser = TinySAScanParser(maxPoints: 290, zeroLevelDB: 128)
            parser.expect(points: 3)
            #expect(feed(&parser, bad, chunk: 5) == [.corrupt])
            parser.expect(points: 3)
            #expect(feed(&parser, threePointReply, chunk: 7) == [.scan])
        }
    }

    @Test func openSetsUpTheCDCPortAndTellsTheModels() throws {
        for model in TinySAModel.allCases {
            let emulator = TinySAEmulator(options: .init(model: model, secondsPerPoint: 0))
            let transport = EmulatorTestTransport(emulator: emulator)
            let driver = try TinySADriver(transport: transport)
            try driver.open()
            #expect(driver.model == model)
            typealias R = EmulatorTestTransport.ControlRecord
            #expect(transport.controlRecords == [
                R(setup: ControlSetup(requestType: .classInterfaceOut, request: 0x20, index: 0),
                  data: [0x00, 0xc2, 0x01, 0x00, 0, 0, 8], length: 7),
                R(setup: ControlSetup(requestType: .classInterfaceOut, request: 0x22, value: 3, index: 0),
                  data: [], length: 0),
            ])
            #expect(emulator.portState.lineCoding == [0x00, 0xc2, 0x01, 0x00, 0, 0, 8])
            #expect(emulator.portState.dtrAndRTS == 3)
        }
    }

    /// Everything the emulator has sent so far.
    private func drainBytes(_ transport: EmulatorTestTransport) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            let chunk = try transport.bulkIn(endpoint: 0x81, length: 512, timeoutMS: 10)
            if chunk.isEmpty { return bytes }
            bytes += chunk
        }
    }

    /// Everything the emulator has sent so far, as text.
    private func drain(_ transport: EmulatorTestTransport) throws -> String {
        String(decoding: try drainBytes(transport), as: UTF8.self)
    }

    @Test func emulatorSpeaksAsTheFirmwareShell() throws {
        let transport = EmulatorTestTransport(emulator: TinySAEmulator(options: .init(model: .basic, secondsPerPoint: 0)))
        // the banner once, before anything is asked
        #expect(try drain(transport) == "\r\ntinySA Shell\r\nch> ")
        #expect(try drain(transport) == "")
        // characters echo as they arrive; LF is dropped, backspace erases; CR ends the line
        _ = try transport.bulkOut(endpoint: 0x01, data: Array("vex".utf8), timeoutMS: 100)
        #expect(try drain(transport) == "vex")
        _ = try transport.bulkOut(endpoint: 0x01, data: [0x08, 0x0a] + Array("rsion\r".utf8), timeoutMS: 100)
        #expect(try drain(transport) == "\u{8} \u{8}rsion\r\ntinySA_v1.4-105-g7a1a5d4\r\nch> ")
        _ = try transport.bulkOut(endpoint: 0x01, data: Array("\rfoo 1\r".utf8), timeoutMS: 100)
        #expect(try drain(transport) == "\r\n?\r\nch> foo 1\r\nfoo?\r\nch> ")
        _ = try transport.bulkOut(endpoint: 0x01, data: Array("scanraw 2 1\r".utf8), timeoutMS: 100)
        #expect(try drain(transport) == "scanraw 2 1\r\nfrequency range is invalid\r\nch> ")
        // the line buffer holds 47 characters; the rest is neither kept nor echoed
        let long = String(repeating: "a", count: 60)
        _ = try transport.bulkOut(endpoint: 0x01, data: Array((long + "\r").utf8), timeoutMS: 100)
        let a47 = String(repeating: "a", count: 47)
        #expect(try drain(transport) == a47 + "\r\n" + a47 + "?\r\nch> ")
    }

    @Test func ultraVersionCarriesTheHardwareLine() throws {
        let transport = EmulatorTestTransport(emulator: TinySAEmulator(options: .init(model: .ultra, secondsPerPoint: 0)))
        _ = try transport.bulkOut(endpoint: 0x01, data: Array("version\r".utf8), timeoutMS: 100)
        #expect(try drain(transport)
            == "\r\ntinySA Shell\r\nch> version\r\ntinySA4_v1.4-143-g864bb27\r\nHW Version:V0.4.5.1.1 \r\nch> ")
    }

    /// The banner is drained, not taken for the version: the version line is
    /// the `version` reply's, and the Ultra's levels use its zero level.
    @Test func openReadsTheVersionReplyPastTheBanner() throws {
        for model in TinySAModel.allCases {
            let transport = EmulatorTestTransport(emulator: TinySAEmulator(options: .init(model: model, secondsPerPoint: 0)))
            let driver = try TinySADriver(transport: transport)
            try driver.open()
            #expect(driver.model == model)
            #expect(driver.versionLine == model.versionLine)
            // nothing of the exchange is left over for the stream
            #expect(try drain(transport) == "")
        }
    }

    @Test func inputsFollowTheFirmwareRanges() throws {
        func band(_ lower: Double, _ upper: Double) -> FrequencyRange { FrequencyRange(lowerHz: lower * 1e6, upperHz: upper * 1e6)! }
        #expect(TinySAModel.basic.input(for: band(88, 108))?.input == .low)
        #expect(TinySAModel.basic.input(for: band(430, 440))?.input == .high)
        #expect(TinySAModel.basic.input(for: band(250, 300))?.input == .low, "both hold it: the low input first")
        // over both inputs: the one holding most of the band, clipped to it
        let wide = try #require(TinySAModel.basic.input(for: band(100, 500)))
        #expect(wide.input == .high && wide.band == band(240, 500))
        let low = try #require(TinySAModel.basic.input(for: band(0.1, 400)))
        #expect(low.input == .low && low.band == band(0.1, 350))
        #expect(TinySAModel.basic.input(for: band(1000, 1100)) == nil)
        #expect(TinySAModel.ultra.input(for: band(430, 440))?.input == .low)
        #expect(TinySAModel.ultra.input(for: band(2400, 2500))?.input == .ultra)
        #expect(TinySAModel.ultra.input(for: band(6100, 6200)) == nil)
    }

    /// One carrier at `hz`, −30 dBm, on a −105 dBm floor.
    private func toneScene(at hz: Double) -> AnalyzerScene {
        AnalyzerScene(seed: 5, noiseSigmaDB: 0.5, carriers: [(frequencyHz: hz, levelDBm: -30, widthHz: 0)])
    }

    /// The peak level the source reads over `band`, and the commands the
    /// emulator received.
    private func peak(model: TinySAModel, scene: AnalyzerScene, band: FrequencyRange) throws -> (Float, [String]) {
        let emulator = TinySAEmulator(scene: scene, options: .init(model: model, secondsPerPoint: 0))
        let collector = FrameCollector()
        let transport = EmulatedTransport(emulator: emulator)
        defer { transport.close() }
        let source = try TinySASpectrumSource(transport: transport, onFrame: { collector.add($0) })
        try source.start(band: band, binWidthHz: band.spanHz / 100)
        let frames = collector.wait(for: 2)
        source.stop()
        let frame = try #require(frames.last)
        #expect(source.counters.badBlocks == 0)
        return (frame.powerDB.max() ?? -.infinity, transport.withEmulator { ($0 as! TinySAEmulator).commandLog })
    }

    @Test func theBasicSwitchesToTheInputThatReceivesTheBand() throws {
        // 550 MHz is on the high input only: the source selects it
        let (high, highCommands) = try peak(model: .basic, scene: toneScene(at: 550e6),
                                            band: FrequencyRange(lowerHz: 549e6, upperHz: 551e6)!)
        #expect(abs(high - -30) < 1, "\(high)")
        #expect(highCommands.prefix(3) == ["", "version", "mode high input"])
        #expect(highCommands.filter { $0.hasPrefix("mode") }.count == 1, "the input is selected once")
        let (low, lowCommands) = try peak(model: .basic, scene: toneScene(at: 100e6),
                                          band: FrequencyRange(lowerHz: 99e6, upperHz: 101e6)!)
        #expect(abs(low - -30) < 1, "\(low)")
        #expect(lowCommands.contains("mode low input"))
    }

    /// --rbw and --attenuation reach the shell once, before the first sweep,
    /// and each frame carries the noise bandwidth of the filter chosen.
    @Test func rbwAndAttenuationAreSentOnceBeforeTheFirstSweep() throws {
        let emulator = TinySAEmulator(scene: toneScene(at: 100e6), options: .init(model: .ultra, secondsPerPoint: 0))
        let collector = FrameCollector()
        let transport = EmulatedTransport(emulator: emulator)
        defer { transport.close() }
        let settings = TinySASettings(rbw: .fixed(30), attenuation: .fixed(10))
        let source = try TinySASpectrumSource(transport: transport, settings: settings, onFrame: { collector.add($0) })
        try source.start(band: FrequencyRange(lowerHz: 99e6, upperHz: 101e6)!, binWidthHz: 20e3)
        let frames = collector.wait(for: 3)
        source.stop()
        let (commands, rbwKHz, attenuationDB) = transport.withEmulator { emulator in
            let emulator = emulator as! TinySAEmulator
            return (emulator.commandLog, emulator.rbwKHz, emulator.attenuationDB)
        }
        let firstScan = try #require(commands.firstIndex { $0.hasPrefix("scanraw") })
        #expect(Array(commands[..<firstScan]).suffix(3) == ["rbw 30", "attenuate 10", "mode low input"], "\(commands)")
        #expect(commands.filter { $0.hasPrefix("rbw") || $0.hasPrefix("attenuate") }.count == 2, "\(commands)")
        #expect(rbwKHz == 30 && attenuationDB == 10)
        // the Ultra's 30 kHz filter: NBW = 1.0645 × 30 kHz
        let frame = try #require(frames.last)
        #expect(abs((frame.noiseBandwidthHz ?? 0) - ResolutionFilter.noiseBandwidth(rbwHz: 30e3)) < 1)
        #expect(source.counters.badBlocks == 0)
    }

    /// The filter a fixed RBW selects: the first at least that wide (si4432.c / si4468.c tables).
    @Test func aFixedRBWSelectsTheFirstFilterAtLeastThatWide() {
        #expect(TinySAModel.ultra.rbwFilterHz(requestedHz: 30e3) == 30e3)
        #expect(TinySAModel.ultra.rbwFilterHz(requestedHz: 31e3) == 100e3)
        #expect(TinySAModel.basic.rbwFilterHz(requestedHz: 10e3) == 10.6e3)
        #expect(TinySAModel.basic.rbwFilterHz(requestedHz: 900e3) == 620.7e3)
    }

    @Test func emulatedInputsShowOnlyWhatTheyReceive() throws {
        // the basic on its low input sees a 550 MHz tone as floor
        let emulator = TinySAEmulator(scene: toneScene(at: 550e6), options: .init(model: .basic, secondsPerPoint: 0))
        let transport = EmulatorTestTransport(emulator: emulator)
        func scanPeak(after setup: [String]) throws -> Float {
            _ = try drain(transport)
            let lines = setup + ["scanraw 549000000 551000000 20"]
            _ = try transport.bulkOut(endpoint: 0x01, data: lines.flatMap(TinySAProtocol.command), timeoutMS: 100)
            var parser = TinySAScanParser(maxPoints: 290, zeroLevelDB: 128)
            parser.expect(points: 20, after: setup)
            var events: [TinySAScanParser.Event] = []
            try drainBytes(transport).withUnsafeBytes { parser.feed($0) { events.append($0) } }
            #expect(events == [.scan])
            return parser.values[0..<20].max()!
        }
        #expect(try scanPeak(after: []) < -100)
        #expect(try scanPeak(after: ["mode high input"]) > -31)
        #expect(emulator.input == .high)
        // the Ultra needs `ultra on` above 800 MHz and has no high input
        let ultra = TinySAEmulator(scene: toneScene(at: 2_450e6), options: .init(model: .ultra, secondsPerPoint: 0))
        let ultraTransport = EmulatorTestTransport(emulator: ultra)
        _ = try drain(ultraTransport)
        _ = try ultraTransport.bulkOut(endpoint: 0x01, data: Array("mode high input\r".utf8), timeoutMS: 100)
        #expect(try drain(ultraTransport) == "mode high input\r\nusage: mode [low] input|output\r\nch> ")
        let (floor, _) = try ultraPeakWithoutSwitching()
        #expect(floor < -100)
        let (switched, commands) = try peak(model: .ultra, scene: toneScene(at: 2_450e6),
                                            band: FrequencyRange(lowerHz: 2_449e6, upperHz: 2_451e6)!)
        #expect(abs(switched - -30) < 1, "\(switched)")
        #expect(commands.prefix(4) == ["", "version", "mode low input", "ultra on"])
    }

    /// A 2.45 GHz scan on an Ultra that was never put in ultra mode.
    private func ultraPeakWithoutSwitching() throws -> (Float, Int) {
        let emulator = TinySAEmulator(scene: toneScene(at: 2_450e6), options: .init(model: .ultra, secondsPerPoint: 0))
        let transport = EmulatorTestTransport(emulator: emulator)
        _ = try drain(transport)
        _ = try transport.bulkOut(endpoint: 0x01, data: Array("scanraw 2449000000 2451000000 20\r".utf8), timeoutMS: 100)
        var parser = TinySAScanParser(maxPoints: 450, zeroLevelDB: 174)
        parser.expect(points: 20)
        try drainBytes(transport).withUnsafeBytes { parser.feed($0) { _ in } }
        return (parser.values[0..<20].max()!, parser.scanPoints)
    }

    @Test func aRefusedInputCommandSpoilsOnlyItsSweep() {
        let refused = Array("mode high input\r\nusage: mode [low] input|output\r\nch> ".utf8) + threePointReply
        let accepted = Array("mode high input\r\nch> ".utf8) + threePointReply
        for chunk in [1, 5, 64] {
            var parser = TinySAScanParser(maxPoints: 290, zeroLevelDB: 128)
            parser.expect(points: 3, after: ["mode high input"])
            #expect(feed(&parser, refused, chunk: chunk) == [.corrupt], "chunk \(chunk)")
            parser.expect(points: 3, after: ["mode high input"])
            #expect(feed(&parser, accepted, chunk: chunk) == [.scan], "chunk \(chunk)")
        }
    }

    @Test func anotherSTM32SerialDeviceIsRefused() throws {
        let transport = EmulatorTestTransport(emulator: NanoVNALike())
        let driver = try TinySADriver(transport: transport)
        #expect(throws: USBError.self) { try driver.open(timeoutSeconds: 0.5) }
    }

    @Test func pointsFollowTheViewUpToTheModelLimit() throws {
        let band = FrequencyRange(lowerHz: 88e6, upperHz: 108e6)!
        #expect(TinySASpectrumSource.points(band: band, binWidthHz: 200e3, model: .basic) == 100)
        #expect(TinySASpectrumSource.points(band: band, binWidthHz: 10e3, model: .basic) == 290)
        #expect(TinySASpectrumSource.points(band: band, binWidthHz: 10e3, model: .ultra) == 450)
        #expect(TinySASpectrumSource.points(band: band, binWidthHz: 100e6, model: .ultra) == 2)
    }

    @Test func sourceDeliversFramesWithTheCarrierWhereItIs() throws {
        for model in TinySAModel.allCases {
            let collector = FrameCollector()
            let transport = EmulatedTransport(emulator: TinySAEmulator(seed: 3, options: .init(model: model, secondsPerPoint: 0)))
            defer { transport.close() }
            let source = try TinySASpectrumSource(transport: transport, onFrame: { collector.add($0) })
            let band = FrequencyRange(lowerHz: 430e6, upperHz: 440e6)!
            try source.start(band: band, binWidthHz: 50e3)
            let frames = collector.wait(for: 3)
            source.stop()
            #expect(frames.count >= 3)
            guard let frame = frames.last else { continue }
            #expect(frame.powerDB.count == 200)
            #expect(frame.binWidthHz == 50e3)
            #expect(abs(frame.binCenterHz(0) - 430e6) < 1)
            let peak = frame.powerDB.indices.max { frame.powerDB[$0] < frame.powerDB[$1] }!
            #expect(abs(frame.binCenterHz(peak) - 433.92e6) <= 50e3, "\(model)")
            // the demo's 433.92 MHz carrier is about −30.5 dBm; the floor −105
            #expect(abs(frame.powerDB[peak] - -30.5) < 2, "\(model): \(frame.powerDB[peak])")
            let median = frame.powerDB.sorted()[100]
            #expect(abs(median - -105) < 3)
            let accounting = source.accounting
            #expect(accounting.commands
                == accounting.frames + accounting.corrupt + accounting.unanswered + accounting.abandoned)
            #expect(accounting.corrupt + accounting.unanswered == 0 && source.counters.badBlocks == 0)
        }
    }

    @Test func retuneNeverLabelsASweepWithTheWrongBand() throws {
        let collector = FrameCollector()
        let transport = EmulatedTransport(emulator: TinySAEmulator(options: .init(model: .basic, secondsPerPoint: 0)))
        defer { transport.close() }
        let source = try TinySASpectrumSource(transport: transport, onFrame: { collector.add($0) })
        try source.start(band: FrequencyRange(lowerHz: 88e6, upperHz: 108e6)!, binWidthHz: 100e3)
        _ = collector.wait(for: 2)
        try source.retune(to: FrequencyRange(lowerHz: 430e6, upperHz: 440e6)!, binWidthHz: 100e3)
        let before = collector.all.count
        let frames = collector.wait(for: before + 3)
        source.stop()
        for frame in frames {
            let fm = frame.powerDB.count == 200 && abs(frame.startHz - (88e6 - 50e3)) < 1
            let ism = frame.powerDB.count == 100 && abs(frame.startHz - (430e6 - 50e3)) < 1
            #expect(fm || ism, "frame at \(frame.startHz) with \(frame.powerDB.count) bins")
        }
        #expect(frames.last.map { $0.powerDB.count == 100 } == true)
    }
}

/// An STM32 serial device that is not a tinySA: its shell answers
/// `version` with something else.
private final class NanoVNALike: FirmwareEmulator {
    private var output: [UInt8] = []
    var deviceInfo: USBDeviceInfo { USBDeviceInfo(vendorID: 0x0483, productID: 0x5740) }
    func controlOut(_ setup: ControlSetup, data: [UInt8]) throws(USBError) {}
    func controlIn(_ setup: ControlSetup, length: Int) throws(USBError) -> [UInt8] { [] }
    func bulkIn(endpoint: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(USBError) -> Int {
        let count = min(buffer.count, output.count)
        for index in 0..<count { buffer[index] = output[index] }
        output.removeFirst(count)
        return count
    }
    func bulkOut(endpoint: UInt8, data: [UInt8]) throws(USBError) -> Int {
        if data.contains(0x0d) { output += Array("NanoVNA-H 1.2.00\r\nch> ".utf8) }
        return data.count
    }
}

/// Calibration bands keep references off an RTL-SDR hop's DC bin.
@Suite struct MeasurementBandTests {
    @Test func noReferenceSitsOnAnRTLSDRHopCentre() throws {
        let references = [100e6, 125e6, 150e6]
        let limits = RTLSDRSpectrumSource.hardwareTunableRange
        let band = AnalyzerKind.rtlsdr.measurementBand(holding: references, margin: 3e6, binWidthHz: 100e3, limits: limits)
        let plan = try RTLSDRHopPlan(lowerHz: Int(band.lowerHz.rounded()), upperHz: Int(band.upperHz.rounded()),
                                     maxBinHz: 100_000, crop: RTLSDRSpectrumSource.Settings().crop)
        for reference in references {
            #expect(band.lowerHz < reference - 2e6 && band.upperHz > reference + 2e6)
            let nearest = (0..<plan.hopCount).map { abs(Double(plan.hopCenterHz($0)) - reference) }.min() ?? 0
            #expect(nearest > 3 * plan.binWidthHz, "\(reference) Hz is \(nearest) Hz from a hop centre")
        }
        // the plain band put 150 MHz one bin from a hop centre, the case that read 2.9 dB high
        let plain = try RTLSDRHopPlan(lowerHz: 97_000_000, upperHz: 153_000_000, maxBinHz: 100_000,
                                      crop: RTLSDRSpectrumSource.Settings().crop)
        let plainNearest = (0..<plain.hopCount).map { abs(Double(plain.hopCenterHz($0)) - 150e6) }.min() ?? 0
        #expect(plainNearest <= 3 * plain.binWidthHz, "\(plainNearest)")
        // other kinds: the plain band
        let hackRF = AnalyzerKind.hackrf.measurementBand(holding: references, margin: 3e6, binWidthHz: 100e3,
                                                         limits: AnalyzerKind.hackrf.tunableRange)
        #expect(hackRF == FrequencyRange(lowerHz: 97e6, upperHz: 153e6))
    }
}
