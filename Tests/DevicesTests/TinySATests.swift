import Foundation
import Signals
import Testing
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
        let deadline = monotonicSeconds() + seconds
        while all.count < count, monotonicSeconds() < deadline {
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
