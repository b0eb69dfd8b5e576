import Foundation
import Signals
import ThreadKit
import USBDriver

/// A tinySA (basic or Ultra) at the USB-transfer level: answers the CDC-ACM
/// class requests and, on bulk IN in 64-byte packets, behaves as the
/// firmware's shell (erikkaashoek/tinySA main.c `VNAShell_readLine`,
/// `VNAShell_executeLine`): the banner `\r\ntinySA Shell\r\nch> ` once when
/// the link comes up; every printable character echoed as it arrives (up to
/// the 47-character line buffer, control characters dropped, backspace
/// erasing), CR echoed as `\r\n`; then the reply and the `ch> ` prompt, or
/// `name?` for an unknown command. Answers `version`, `info`,
/// `frequencies`, `scan` (outmasks 0–15), `scanraw`, `mode`, `rbw` and
/// (Ultra) `ultra`, in the bytes a real Ultra sends (checked against its
/// captured answers). Sweeps measure an `AnalyzerScene`.
///
/// Not thread-safe: the hosting transport serialises calls.
public final class TinySAEmulator: FirmwareEmulator {
    public struct Options: Sendable {
        public var model: TinySAModel
        /// time to measure one point [s]; 0 = answer at once
        public var secondsPerPoint: Double
        /// seeded faults on bulk IN packets (resilience tests)
        public var faults: EmulatorFaults?
        public var serialNumber: String
        /// transmitters keyed on and off (their amplitude in the scene's int8 units, as `AnalyzerScene`
        /// maps carriers to dBm), on the unit's own time: what its zero span shows
        public var pulses: [DemoScene.PulsedCarrier]

        public init(model: TinySAModel = .basic, secondsPerPoint: Double = 0.000_25,
                    faults: EmulatorFaults? = nil, serialNumber: String = "400",
                    pulses: [DemoScene.PulsedCarrier] = []) {
            self.model = model
            self.secondsPerPoint = secondsPerPoint
            self.faults = faults
            self.serialNumber = serialNumber
            self.pulses = pulses
        }
    }

    /// What the host has set through the CDC class requests.
    public struct PortState: Sendable, Equatable {
        /// the 7-byte line coding last set, empty before
        public var lineCoding: [UInt8] = []
        public var dtrAndRTS: UInt16 = 0
    }

    public let options: Options
    /// paces the emulated device's output (tests may hand in a `ManualClock`)
    private let clock: any MonotonicClock
    public private(set) var portState = PortState()
    /// scanraw commands answered with a sweep
    public private(set) var sweepsAnswered = 0
    /// the input selected (`mode low|high input`; the Ultra's `ultra on`
    /// selects `.ultra`); a unit starts on its low input
    public private(set) var input = TinySAInput.low
    /// `mode … output`: the unit generates instead of measuring
    public private(set) var generating = false
    /// `rbw N` [kHz]; nil: automatic
    public private(set) var rbwKHz: Double?
    /// `attenuate N` [dB]; the firmware corrects levels for it, so it raises only the noise floor
    public private(set) var attenuationDB = 0
    /// `sweeptime S` [s]; nil: automatic (the points at `secondsPerPoint`)
    public private(set) var sweepSeconds: Double?
    /// `trigger LEVEL` [dBm] in normal or single mode; nil: auto (free run)
    public private(set) var triggerLevelDBm: Double?
    private var triggerLevelSet = -100.0
    /// the unit's own time, advanced by each zero-span sweep and trigger wait [s]
    public private(set) var zeroSpanClockSeconds = 0.0
    /// command lines executed, in order (tests check what the host sent)
    public private(set) var commandLog: [String] = []
    /// the display sweep: `scan` sets its band, `frequencies` lists it [Hz]
    public private(set) var sweep: (startHz: UInt64, stopHz: UInt64, points: Int)
    private var scene: AnalyzerScene
    private var commandLine: [UInt8] = []
    private let replies: SerialReplyQueue

    /// Measures the demo scene (`AnalyzerScene.standard(seed:)`).
    public convenience init(seed: UInt64 = 1, options: Options = Options(), clock: any MonotonicClock = SystemClock()) {
        self.init(scene: AnalyzerScene.standard(seed: seed), options: options, clock: clock)
    }

    /// - Parameter clock: paces the sweeps (when each is ready to send)
    public init(scene: AnalyzerScene, options: Options = Options(), clock: any MonotonicClock = SystemClock()) {
        self.options = options
        self.clock = clock
        self.scene = scene
        sweep = options.model.powerOnSweep
        replies = SerialReplyQueue(faults: options.faults, deviceName: options.model.displayName)
        replies.append(TinySAProtocol.banner)
    }

    /// sweeps that left whole / that a fault hit (resilience accounting)
    public var intactSweeps: Int { replies.intactMessages }
    public var damagedSweeps: Int { replies.damagedMessages }

    public var deviceInfo: USBDeviceInfo {
        USBDeviceInfo(vendorID: TinySAProtocol.vendorID, productID: TinySAProtocol.productID, bcdDevice: 0x0200,
                      manufacturer: "tinysa.org", product: options.model.displayName,
                      serialNumber: options.serialNumber)
    }

    public func controlOut(_ setup: ControlSetup, data: [UInt8]) throws(USBError) {
        if replies.isUnplugged { throw .disconnected(device: options.model.displayName) }
        guard setup.requestType == .classInterfaceOut, setup.index == TinySAProtocol.controlInterface else {
            throw .stalled(operation: "control request \(setup)")
        }
        switch setup.request {
        case TinySAProtocol.setLineCoding:
            guard data.count == 7 else { throw .stalled(operation: "SET_LINE_CODING with \(data.count) bytes") }
            portState.lineCoding = data
        case TinySAProtocol.setControlLineState:
            portState.dtrAndRTS = setup.value
        default:
            throw .stalled(operation: "class request \(setup.request)")
        }
    }

    public func controlIn(_ setup: ControlSetup, length: Int) throws(USBError) -> [UInt8] {
        throw .stalled(operation: "control IN \(setup)")
    }

    public func bulkIn(endpoint: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(USBError) -> Int {
        guard endpoint == TinySAProtocol.bulkInEndpoint else { throw .stalled(operation: "bulk IN on 0x\(String(endpoint, radix: 16))") }
        return try replies.fill(into: buffer, now: clock.now)
    }

    public func bulkOut(endpoint: UInt8, data: [UInt8]) throws(USBError) -> Int {
        if replies.isUnplugged { throw .disconnected(device: options.model.displayName) }
        guard endpoint == TinySAProtocol.bulkOutEndpoint else { throw .stalled(operation: "bulk OUT on 0x\(String(endpoint, radix: 16))") }
        for byte in data {
            switch byte {
            case TinySAProtocol.commandTerminator:
                replies.append([0x0d, 0x0a])
                execute(String(decoding: commandLine, as: UTF8.self))
                commandLine.removeAll(keepingCapacity: true)
            case 0x08, 0x7f:
                if !commandLine.isEmpty {
                    commandLine.removeLast()
                    replies.append([0x08, 0x20, 0x08])
                }
            case ..<0x20:
                continue
            default:
                guard commandLine.count < TinySAProtocol.maxLineLength else { continue }
                commandLine.append(byte)
                replies.append([byte])
            }
        }
        return data.count
    }

    /// Answer and prompt — as the firmware shell (the echo went out as the
    /// line was typed).
    private func execute(_ line: String) {
        commandLog.append(line)
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        switch words.first {
        case nil:
            // the firmware prints its last command name with `?` here (a
            // stale argument pointer); the emulator prints the bare `?`
            replies.append(Array("?\r\n".utf8))
        case "version":
            // the Ultra's build adds the hardware line (main.c cmd_version)
            let lines = [options.model.versionLine] + (options.model.hardwareVersionLine.map { [$0] } ?? [])
            replies.append(Array(lines.map { $0 + "\r\n" }.joined().utf8))
        case "info":
            replies.append(Array(options.model.infoLines.map { $0 + "\r\n" }.joined().utf8))
        case "frequencies":
            // main.c cmd_frequencies: "%U\r\n" per point of the display sweep
            var text = ""
            for index in 0..<sweep.points {
                text += "\(TinySAShellText.sweepFrequencyHz(index: index, points: sweep.points, startHz: sweep.startHz, stopHz: sweep.stopHz))\r\n"
            }
            replies.append(Array(text.utf8))
        case "scan":
            switch scan(Array(words.dropFirst())) {
            case .success(let text): replies.append(Array(text.utf8))
            case .failure(let refusal): replies.append(Array((refusal.message + "\r\n").utf8))
            }
        case "mode":
            if let refusal = mode(Array(words.dropFirst())) { replies.append(Array((refusal + "\r\n").utf8)) }
        case "ultra" where options.model == .ultra:
            // sa_cmd.c cmd_ultra: off|on|auto|start|harm; the emulator models on/off
            switch words.dropFirst().first {
            case "on": input = .ultra
            case "off": input = .low
            default: replies.append(Array("usage: ultra off|on|auto|start|harm {freq}\r\n".utf8))
            }
        case "rbw":
            // sa_cmd.c cmd_rbw: rbw {kHz}|auto; silent when taken
            switch words.dropFirst().first {
            case "auto": rbwKHz = nil
            case let text?:
                if let kHz = Double(text), kHz > 0 { rbwKHz = kHz } else { replies.append(Array("usage: rbw 0.2..850|auto\r\n".utf8)) }
            case nil: replies.append(Array("usage: rbw 0.2..850|auto\r\n".utf8))
            }
        case "attenuate":
            // sa_cmd.c cmd_attenuate: attenuate 0..31|auto (auto: 0 dB in this emulator's quiet scene)
            switch words.dropFirst().first {
            case "auto": attenuationDB = 0
            case let text?:
                if let dB = Int(text), (0...31).contains(dB) { attenuationDB = dB } else {
                    replies.append(Array("usage: attenuate 0..31|auto\r\n".utf8))
                }
            case nil: replies.append(Array("usage: attenuate 0..31|auto\r\n".utf8))
            }
        case "sweeptime":
            // sa_cmd.c cmd_sweeptime: sweeptime 0.003..60, silent when taken
            if words.count == 2, let seconds = Double(words[1]), seconds > 0 {
                sweepSeconds = min(max(seconds, 0.003), 60)
            } else {
                let shown = sweepSeconds ?? Double(sweep.points) * options.secondsPerPoint
                replies.append(Array(("usage: sweeptime 0.003..60\r\n" + String(format: "%5.3fs", shown) + "\r\n").utf8))
            }
        case "trigger":
            // sa_cmd.c cmd_trigger: a level (normal mode if in auto) or auto|normal|single
            switch words.dropFirst().first {
            case let text? where text.first.map({ $0.isNumber || $0 == "-" }) == true && Double(text) != nil:
                triggerLevelSet = Double(text) ?? triggerLevelSet
                triggerLevelDBm = triggerLevelSet
            case "auto": triggerLevelDBm = nil
            case "normal", "single": triggerLevelDBm = triggerLevelSet
            default: replies.append(Array("trigger {value}\r\ntrigger {auto|normal|single}\r\n".utf8))
            }
        case "scanraw":
            if let zeroSpan = zeroSpanScan(Array(words.dropFirst())) {
                // a trigger that never comes: the unit waits, no reply, no prompt
                guard let zeroSpan else { return }
                sweepsAnswered += 1
                replies.append(zeroSpan.bytes + TinySAProtocol.prompt, readyAt: clock.now + zeroSpan.seconds, counted: true)
                return
            }
            switch scanRaw(Array(words.dropFirst())) {
            case .success(let sweep):
                // the sweep and its prompt travel as one message: a fault in
                // either spoils the reply
                sweepsAnswered += 1
                replies.append(sweep.bytes + TinySAProtocol.prompt,
                               readyAt: clock.now + options.secondsPerPoint * Double(sweep.points),
                               counted: true)
                return
            case .failure(let refusal):
                replies.append(Array((refusal.message + "\r\n").utf8))
            }
        default:
            replies.append(Array("\(words[0])?\r\n".utf8))
        }
        replies.append(TinySAProtocol.prompt)
    }

    private struct Refusal: Error { var message: String }

    /// sa_cmd.c `cmd_mode`: the basic takes `mode low|high input|output`,
    /// the Ultra `mode [low] input|output` (no high input). Returns the
    /// usage line for anything else.
    private func mode(_ arguments: [String]) -> String? {
        let usage = options.model == .basic ? "usage: mode low|high input|output" : "usage: mode [low] input|output"
        let side: String, direction: String
        switch (options.model, arguments.count) {
        case (.basic, 2): (side, direction) = (arguments[0], arguments[1])
        case (.ultra, 1): (side, direction) = ("low", arguments[0])
        case (.ultra, 2): (side, direction) = (arguments[0], arguments[1])
        default: return usage
        }
        let sides = options.model == .basic ? ["low", "high"] : ["low"]
        guard sides.contains(side), ["input", "output"].contains(direction) else { return usage }
        generating = direction == "output"
        if options.model == .basic { input = side == "high" ? .high : .low }
        return nil
    }

    /// `scan start stop [points] [outmask]` (main.c cmd_scan): the display
    /// sweep moves to start–stop; with an outmask, per point `%U ` (bit 0),
    /// then `%e %f ` — level [dBm] and 0 — for each of the actual (bit 1),
    /// stored (bit 2) and temporary (bit 3) traces, `\r\n` after each
    /// point. The emulator's three traces are the one sweep it measured.
    /// Levels in 1/32 dB, as the firmware keeps them.
    private func scan(_ arguments: [String]) -> Result<String, Refusal> {
        guard (2...4).contains(arguments.count), let start = UInt64(arguments[0]), let stop = UInt64(arguments[1]) else {
            return .failure(Refusal(message: "usage: scan {start(Hz)} {stop(Hz)} [points] [outmask]"))
        }
        guard start <= stop else { return .failure(Refusal(message: "frequency range is invalid")) }
        guard let points = arguments.count >= 3 ? Int(arguments[2]) : sweep.points,
              (1...options.model.maxPoints).contains(points) else {
            return .failure(Refusal(message: "sweep points exceeds range \(options.model.maxPoints)"))
        }
        sweep.startHz = start
        sweep.stopHz = stop
        let mask = arguments.count == 4 ? Int(arguments[3]) ?? 0 : 0
        guard mask != 0 else { return .success("") }
        let step = points > 1 ? Double(stop - start) / Double(points - 1) : 0
        let receiving = generating ? 0...0 : options.model.range(of: input)
        let rbw = rbwKHz.map { options.model.rbwFilterHz(requestedHz: $0 * 1000) } ?? options.model.autoRBWHz(stepHz: step)
        var text = ""
        for index in 0..<points {
            let hz = TinySAShellText.sweepFrequencyHz(index: index, points: points, startHz: start, stopHz: stop)
            let dBm = (scene.levelDBm(at: Double(hz), rbwHz: rbw, receiving: receiving) * 32).rounded() / 32
            if mask & 1 != 0 { text += "\(hz) " }
            for bit in [2, 4, 8] where mask & bit != 0 { text += String(format: "%e %.9f ", dBm, 0.0) }
            text += "\r\n"
        }
        return .success(text)
    }

    /// `scanraw F F [points]`, start = stop: zero span (sa_core.c `perform`
    /// with a frequency step of 0). Point k is measured k · sweep time /
    /// points after the first, on the unit's own clock; each keyed
    /// transmitter at F adds its power through the RBW filter's envelope (a
    /// linear voltage ramp whose 10–90 % lasts 0.68/RBW, so a pulse's −3 dB
    /// width stays within a rise time of its keyed width). With a trigger,
    /// the first point waits until the level crosses it upward (checked at
    /// the point spacing for up to 60 s of the unit's time); none: nil
    /// inside (the unit waits for ever). Not zero span: nil.
    private func zeroSpanScan(_ arguments: [String]) -> (bytes: [UInt8], seconds: Double)?? {
        guard (2...4).contains(arguments.count), let start = UInt64(arguments[0]), let stop = UInt64(arguments[1]),
              start == stop else { return nil }
        let points = arguments.count >= 3 ? Int(arguments[2]) ?? 0 : options.model.maxPoints
        guard (1...options.model.maxPoints).contains(points) else { return nil }
        let frequency = Double(start)
        let sweepTime = sweepSeconds ?? Double(points) * options.secondsPerPoint
        let step = sweepTime / Double(points)
        let receiving = generating ? 0...0 : options.model.range(of: input)
        let rbw = rbwKHz.map { options.model.rbwFilterHz(requestedHz: $0 * 1000) } ?? options.model.autoRBWHz(stepHz: 0)
        let ramp = 0.6834 / rbw / 0.8
        let keyed = options.pulses.filter { abs($0.frequencyHz - frequency) < rbw && receiving.contains($0.frequencyHz) }
        func level(at t: Double) -> Double {
            var power = Units.power(decibels: scene.levelDBm(at: frequency, rbwHz: rbw, receiving: receiving))
            for pulse in keyed where pulse.periodSeconds > 0 {
                let peak = Units.power(decibels: 20 * log10(max(pulse.amplitude, 1e-3) / 127) - 10)
                var k = max(0, ((t - pulse.phaseSeconds - pulse.widthSeconds - ramp) / pulse.periodSeconds).rounded(.down))
                while pulse.count.map({ k < Double($0) }) ?? true {
                    let on = pulse.phaseSeconds + k * pulse.periodSeconds
                    if on > t { break }
                    let v = min(max((t - on) / ramp, 0), 1) - min(max((t - on - pulse.widthSeconds) / ramp, 0), 1)
                    power += peak * v * v
                    k += 1
                }
            }
            return Units.decibels(power: power)
        }
        var t = zeroSpanClockSeconds
        let began = t
        if let trigger = triggerLevelDBm {
            var previous = level(at: t)
            var found = false
            while t - began < 60 {
                t += step
                let current = level(at: t)
                if previous < trigger && current >= trigger {
                    found = true
                    break
                }
                previous = current
            }
            guard found else {
                zeroSpanClockSeconds = t
                return .some(nil)
            }
        }
        var reply: [UInt8] = [TinySAProtocol.scanOpen]
        reply.reserveCapacity(2 + 3 * points)
        let zero = Double(options.model.zeroLevelDB)
        for k in 0..<points {
            let dBm = level(at: t + Double(k) * step)
            let bits = UInt16(bitPattern: Int16(clamping: Int(((dBm + zero) * Double(TinySAProtocol.rawUnitsPerDB)).rounded())))
            reply += [TinySAProtocol.scanPointMarker, UInt8(bits & 0xff), UInt8(bits >> 8)]
        }
        reply.append(TinySAProtocol.scanClose)
        zeroSpanClockSeconds = t + sweepTime
        // the host's wait: the sweep, and the trigger's wait at the point pace (capped so tests stay quick)
        return .some((reply, min(zeroSpanClockSeconds - began, sweepTime + 0.05)))
    }

    /// `scanraw start stop [points]`: the firmware measures point i at
    /// start + i·(stop − start)/points.
    /// Refusals as sa_cmd.c `cmd_scanraw` words them.
    private func scanRaw(_ arguments: [String]) -> Result<(bytes: [UInt8], points: Int), Refusal> {
        guard (2...4).contains(arguments.count), let start = UInt64(arguments[0]), let stop = UInt64(arguments[1]) else {
            return .failure(Refusal(message: "usage: scanraw {start(Hz)} {stop(Hz)} [points] [options]"))
        }
        guard start <= stop else { return .failure(Refusal(message: "frequency range is invalid")) }
        // the emulator keeps the model's display points as its limit
        guard let points = arguments.count >= 3 ? Int(arguments[2]) : options.model.maxPoints,
              (1...options.model.maxPoints).contains(points) else {
            return .failure(Refusal(message: "scan point count is invalid"))
        }
        let step = Double(stop - start) / Double(points)
        var reply: [UInt8] = [TinySAProtocol.scanOpen]
        reply.reserveCapacity(2 + 3 * points)
        let zero = Double(options.model.zeroLevelDB)
        // a generating unit or an input that does not cover a carrier shows the floor
        let receiving = generating ? 0...0 : options.model.range(of: input)
        // the firmware's auto RBW for this step spreads each carrier over its neighbours
        let rbw = rbwKHz.map { options.model.rbwFilterHz(requestedHz: $0 * 1000) } ?? options.model.autoRBWHz(stepHz: step)
        // the attenuator lowers everything before the mixer; the firmware adds it back, noise and all:
        // the floor rises by the attenuation, carriers read the same
        let floorRise = Units.power(decibels: Double(attenuationDB))
        for index in 0..<points {
            let frequency = Double(start) + step * Double(index)
            var dBm = scene.levelDBm(at: frequency, rbwHz: rbw, receiving: receiving)
            if attenuationDB > 0 {
                let floor = scene.noiseDensityDBmPerHz.map { $0 + 10 * log10(ResolutionFilter.noiseBandwidth(rbwHz: rbw)) }
                    ?? scene.noiseFloorDBm
                dBm = Units.decibels(power: Units.power(decibels: dBm) + Units.power(decibels: floor) * (floorRise - 1))
            }
            let raw = Int16(clamping: Int(((dBm + zero) * Double(TinySAProtocol.rawUnitsPerDB)).rounded()))
            let bits = UInt16(bitPattern: raw)
            reply += [TinySAProtocol.scanPointMarker, UInt8(bits & 0xff), UInt8(bits >> 8)]
        }
        reply.append(TinySAProtocol.scanClose)
        return .success((reply, points))
    }
}
