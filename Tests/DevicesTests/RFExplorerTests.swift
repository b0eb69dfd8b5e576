import Analyzers
import Foundation
import Signals
import Testing
import ThreadKit
import ThreadKitTesting
import USBDriver
@testable import Devices

private func parse(_ bytes: [UInt8], chunk: Int) -> [(RFExplorerStreamParser.Event, [Float])] {
    var parser = RFExplorerStreamParser()
    var events: [(RFExplorerStreamParser.Event, [Float])] = []
    var offset = 0
    while offset < bytes.count {
        let end = min(offset + chunk, bytes.count)
        Array(bytes[offset..<end]).withUnsafeBytes { parser.feed($0) { events.append(($0, Array($1))) } }
        offset = end
    }
    return events
}

@Suite struct RFExplorerTests {
    let config = "#C2-F:0430000,0089285,-010,-120,0112,0,000,0015000,2700000,0600000,00089,0000,000"

    @Test func commandsAreFramedWithTheirTotalLength() {
        #expect(RFExplorerProtocol.requestConfig == [0x23, 0x04, 0x43, 0x30])
        let range = RFExplorerProtocol.setRange(startKHz: 430_000, endKHz: 440_000, topDBm: -10, bottomDBm: -120)
        #expect(range.count == 32 && range[1] == 32)
        #expect(String(decoding: range[2...], as: UTF8.self) == "C2-F:0430000,0440000,-010,-120")
    }

    @Test func configurationLineRoundTrips() throws {
        let parsed = try #require(RFExplorerConfiguration(line: config))
        #expect(parsed.startHz == 430e6 && parsed.stepHz == 89_285 && parsed.points == 112)
        #expect(parsed.minHz == 15e6 && parsed.maxHz == 2_700e6 && parsed.maxSpanHz == 600e6)
        #expect(parsed.line == config)
        #expect(RFExplorerConfiguration(line: "#C2-F:04x0000,1,2") == nil)
        #expect(RFExplorerConfiguration(line: "#C2-M:005,255,01.15") == nil)
    }

    @Test func parserReadsAllThreeSweepFormatsInAnyPacketSize() {
        let small: [UInt8] = [0x24, 0x53, 3, 60, 61, 210, 0x0d, 0x0a]                 // $S, 3 samples
        let sixteens: [UInt8] = [0x24, 0x73, 1] + [UInt8](repeating: 200, count: 16) + [0x0d, 0x0a] // $s, 1×16
        let wide: [UInt8] = [0x24, 0x7a, 0x01, 0x02] + [UInt8](repeating: 100, count: 258) + [0x0d, 0x0a] // $z, 258
        let stream = Array((config + "\r\n").utf8) + small + sixteens + wide
        for chunk in [1, 2, 3, 7, 64, 512] {
            let events = parse(stream, chunk: chunk)
            #expect(events.map(\.0) == [.line(config), .sweep(count: 3), .sweep(count: 16), .sweep(count: 258)])
            #expect(events[1].1 == [-30, -30.5, -105])
            #expect(events[2].1 == [Float](repeating: -100, count: 16))
            #expect(events[3].1 == [Float](repeating: -50, count: 258))
        }
    }

    @Test func aSweepWithoutItsLineEndIsCorruptAndTheNextParses() {
        let short: [UInt8] = [0x24, 0x53, 4, 60, 61, 62, 0x0d, 0x0a]   // says 4, carries 3
        let good: [UInt8] = [0x24, 0x53, 2, 60, 61, 0x0d, 0x0a]
        let events = parse(short + good, chunk: 3).map(\.0)
        #expect(events == [.corruptSweep, .sweep(count: 2)])
        // a line that lost its end gives way to the sweep behind it
        let truncated = Array("#C2-F:0430000,00".utf8) + good
        #expect(parse(truncated, chunk: 5).map(\.0) == [.sweep(count: 2)])
    }

    @Test func openConfiguresTheBridgeThenReadsTheConfiguration() throws {
        let emulator = RFExplorerEmulator(options: .init(secondsPerSweep: 0))
        let transport = EmulatorTestTransport(emulator: emulator)
        let driver = try RFExplorerDriver(transport: transport)
        try driver.open()
        typealias R = EmulatorTestTransport.ControlRecord
        func vendor(_ request: UInt8, _ value: UInt16, _ data: [UInt8] = []) -> R {
            R(setup: ControlSetup(requestType: .vendorInterfaceOut, request: request, value: value, index: 0),
              data: data, length: data.count)
        }
        #expect(transport.controlRecords == [
            vendor(0x00, 1),                              // IFC_ENABLE
            vendor(0x1e, 0, [0x20, 0xa1, 0x07, 0x00]),    // SET_BAUDRATE 500000
            vendor(0x03, 0x0800),                         // SET_LINE_CTL 8N1
            vendor(0x07, 0x0303),                         // SET_MHS DTR, RTS
            vendor(0x12, 0x000f),                         // PURGE
        ])
        #expect(driver.configuration?.points == 112)
        #expect(driver.modelLine == "#C2-M:005,255,01.15")
        #expect(emulator.bridge.baudRate == 500_000 && emulator.streaming)
    }

    @Test func atTheWrongSpeedNothingIntelligibleComesBack() throws {
        let emulator = RFExplorerEmulator(options: .init(secondsPerSweep: 0))
        let transport = EmulatorTestTransport(emulator: emulator)
        try CP210xBridge.configure(transport, baudRate: 115_200)
        _ = try transport.bulkOut(endpoint: 0x01, data: RFExplorerProtocol.requestConfig, timeoutMS: 100)
        #expect(!emulator.streaming)
        // commands are lost; so is anything sent back
        try transport.controlOut(CP210xBridge.setup(.setBaudRate), data: [0x20, 0xa1, 0x07, 0x00], timeoutMS: 100)
        _ = try transport.bulkOut(endpoint: 0x01, data: RFExplorerProtocol.requestConfig, timeoutMS: 100)
        try transport.controlOut(CP210xBridge.setup(.setBaudRate), data: [0x00, 0xc2, 0x01, 0x00], timeoutMS: 100)
        let garbled = try transport.bulkIn(endpoint: 0x81, length: 512, timeoutMS: 100)
        #expect(!garbled.isEmpty && garbled.allSatisfy { $0 >= 0x80 })
    }

    @Test(arguments: [112, 512, 1000])
    func sourceDeliversSweepsOfEveryFormat(points: Int) throws {
        let collector = FrameCollector()
        let emulator = RFExplorerEmulator(seed: 5, options: .init(points: points, secondsPerSweep: 0))
        let transport = EmulatedTransport(emulator: emulator)
        defer { transport.close() }
        let source = try RFExplorerSpectrumSource(transport: transport, onFrame: { collector.add($0) })
        try source.start(band: FrequencyRange(lowerHz: 430e6, upperHz: 440e6)!, binWidthHz: 100e3)
        let deadline = SystemClock().now + 10
        var frame: SpectrumFrame?
        // sweeps of the power-on band may come first; wait for the new band
        while SystemClock().now < deadline {
            frame = collector.wait(for: collector.all.count + 1, seconds: 1).last
            if let frame, abs(frame.binCenterHz(0) - 430e6) < 1 { break }
        }
        source.stop()
        let last = try #require(frame)
        #expect(last.powerDB.count == points)
        #expect(abs(last.binCenterHz(0) - 430e6) < 1)
        #expect(abs(last.binCenterHz(points - 1) - 440e6) < last.binWidthHz)
        let peak = last.powerDB.indices.max { last.powerDB[$0] < last.powerDB[$1] }!
        #expect(abs(last.binCenterHz(peak) - 433.92e6) <= last.binWidthHz)
        // −30.5 dBm, less up to 3 dB when the carrier falls between two
        // samples one filter width apart (scalloping), ± noise
        #expect(last.powerDB[peak] > -34.5 && last.powerDB[peak] < -28.5, "\(last.powerDB[peak])")
        #expect(source.counters.badBlocks == 0)
    }

    @Test func retuneIsClippedToTheAnalyzersSpan() throws {
        let collector = FrameCollector()
        let transport = EmulatedTransport(emulator: RFExplorerEmulator(options: .init(secondsPerSweep: 0)))
        defer { transport.close() }
        let source = try RFExplorerSpectrumSource(transport: transport, onFrame: { collector.add($0) })
        try source.start(band: FrequencyRange(lowerHz: 100e6, upperHz: 2_000e6)!, binWidthHz: 1e6)
        _ = waitForCondition { source.currentConfiguration.startHz == 1_400e6 }
        source.stop()
        // 600 MHz is the widest span: the top of the band is kept
        #expect(source.currentConfiguration.startHz == 1_400e6)
        #expect(throws: USBError.self) { try source.retune(to: FrequencyRange(lowerHz: 3e9, upperHz: 4e9)!, binWidthHz: 1e6) }
    }

    @Test func configurationCarriesModeModuleRBWAndOffset() throws {
        let line = "#C2-F:4850000,0178571,-010,-120,0112,1,002,4850000,6100000,0600000,00600,-005,004"
        let parsed = try #require(RFExplorerConfiguration(line: line))
        #expect(parsed.expansionActive && parsed.mode == 2 && parsed.modeName == "WiFi analyzer")
        #expect(parsed.rbwHz == 600e3 && parsed.offsetDB == -5)
        #expect(parsed.line.prefix(77) == line.prefix(77))
        // a line from firmware without the optional fields: no RBW known
        let short = try #require(RFExplorerConfiguration(line: String(line.prefix(66))))
        #expect(short.rbwHz == nil && short.mode == 2)
        #expect(try #require(RFExplorerConfiguration(line: config)).rbwHz == 89e3)
    }

    @Test func aUnitInAnotherModeIsRefusedWithWhatToDo() throws {
        let emulator = RFExplorerEmulator(options: .init(secondsPerSweep: 0, mode: 2))
        let driver = try RFExplorerDriver(transport: EmulatorTestTransport(emulator: emulator))
        do {
            try driver.open()
            Issue.record("a unit in WiFi analyzer mode was accepted")
        } catch {
            #expect("\(error)".contains("WiFi analyzer mode") && "\(error)".contains("spectrum analyzer mode"), "\(error)")
        }
    }

    /// The unit restarts while streaming: it sends its reset line, forgets
    /// the band and stops; the source asks again and sweeps resume on the band.
    @Test func aRestartedUnitIsSetUpAgain() throws {
        let collector = FrameCollector()
        let transport = EmulatedTransport(emulator: RFExplorerEmulator(seed: 4, options: .init(secondsPerSweep: 0.005)))
        defer { transport.close() }
        let source = try RFExplorerSpectrumSource(transport: transport, onFrame: { collector.add($0) })
        let band = FrequencyRange(lowerHz: 900e6, upperHz: 920e6)!
        try source.start(band: band, binWidthHz: 100e3)
        func waitForBand(after count: Int) -> SpectrumFrame? {
            let deadline = SystemClock().now + 10
            while SystemClock().now < deadline {
                let frames = collector.wait(for: collector.all.count + 1, seconds: 1)
                if let frame = frames.dropFirst(count).last(where: { abs($0.binCenterHz(0) - 900e6) < 1 }) { return frame }
            }
            return nil
        }
        #expect(waitForBand(after: 0) != nil)
        transport.withEmulator { ($0 as? RFExplorerEmulator)?.reboot() }
        let before = collector.all.count
        let resumed = waitForBand(after: before)
        source.stop()
        #expect(resumed != nil, "sweeps of the band did not resume after the restart")
        #expect(source.restartCount == 1)
    }
}
