import DSP
import Foundation
import Signals
import ThreadKit
import USBDriver

/// A tinySA's own zero span (erikkaashoek/tinySA sa_cmd.c, sa_core.c): with
/// start = stop the unit measures one frequency through its RBW filter,
/// point after point, paced so the sweep takes `sweeptime` (0.003–60 s);
/// `scanraw F F N` then returns N levels against time (`{`, per point `x`
/// and int16 LE, `}`; dBm = raw/32 − the model's zero level). A trigger
/// (`trigger LEVEL`: normal mode at LEVEL dBm) makes the unit wait, at
/// the sweep's first point, for the level to cross upward before it
/// measures the rest: the trace starts at the trigger, with no points
/// before it. `rbw` takes kHz (0.2–850 on the Ultra, 2–600 on the basic).
///
/// Time comes from the point count: point k is k · sweeptime / N after the
/// trace's first, never the host's clock. The driver must be opened.
public final class TinySAZeroSpan: Sendable {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case sweepTime(seconds: Double)
        case rbw(hz: Double, model: TinySAModel)
        case frequency(hz: Double, model: TinySAModel)
        case fallingTrigger
        case usb(USBError)
        case badTrace(String)

        public var description: String {
            switch self {
            case .sweepTime(let seconds):
                return "--sweep-time \(TimeFormat.label(seconds)): a tinySA's zero span takes "
                    + "\(TimeFormat.label(TinySAZeroSpan.shortestSweepSeconds)) to \(TimeFormat.label(TinySAZeroSpan.longestSweepSeconds))"
            case .rbw(let hz, let model):
                let range = TinySAZeroSpan.rbwRangeKHz(model)
                return "--rbw \(FrequencyFormat.label(hz)): the \(model.displayName) takes \(FrequencyFormat.trimmed(range.lowerBound, maxFractionDigits: 1))–"
                    + "\(FrequencyFormat.trimmed(range.upperBound, maxFractionDigits: 0)) kHz"
            case .frequency(let hz, let model):
                return "--frequency \(FrequencyFormat.label(hz)): the \(model.displayName) tunes "
                    + "\(FrequencyFormat.label(model.tunableLowerHz))–\(FrequencyFormat.label(model.tunableUpperHz))"
            case .fallingTrigger:
                return "--trigger …:falling: a tinySA's shell sets its trigger level only (it triggers rising); use a rising trigger"
            case .usb(let error): return error.description
            case .badTrace(let why): return "the tinySA's zero-span trace was damaged: \(why)"
            }
        }
    }

    /// sa_cmd.c `cmd_sweeptime`: 0.003..60 [s]
    public static let shortestSweepSeconds = 0.003
    public static let longestSweepSeconds = 60.0

    /// sa_cmd.c `cmd_rbw`'s range [kHz]
    public static func rbwRangeKHz(_ model: TinySAModel) -> ClosedRange<Double> {
        model == .ultra ? 0.2...850 : 2...600
    }

    public let driver: TinySADriver
    public let frequencyHz: Double
    /// the RBW filter the unit measures with [Hz] (its nearest to the one asked)
    public let rbwHz: Double
    public let sweepSeconds: Double
    /// points per trace: the model's display sweep
    public let points: Int
    public let triggerLevelDBm: Double?

    /// Checks the request against the opened unit's model (nothing is sent yet).
    public init(driver: TinySADriver, frequencyHz: Double, rbwHz: Double, sweepSeconds: Double,
                triggerLevelDBm: Double?, triggerFalling: Bool = false) throws(Failure) {
        let model = driver.model
        guard frequencyHz >= model.tunableLowerHz, frequencyHz <= model.tunableUpperHz else {
            throw .frequency(hz: frequencyHz, model: model)
        }
        guard Self.rbwRangeKHz(model).contains(rbwHz / 1000) else { throw .rbw(hz: rbwHz, model: model) }
        guard sweepSeconds >= Self.shortestSweepSeconds * (1 - 1e-9), sweepSeconds <= Self.longestSweepSeconds else {
            throw .sweepTime(seconds: sweepSeconds)
        }
        if triggerLevelDBm != nil && triggerFalling { throw .fallingTrigger }
        self.driver = driver
        self.frequencyHz = frequencyHz
        self.rbwHz = model.rbwFilterHz(requestedHz: rbwHz)
        self.sweepSeconds = sweepSeconds
        self.triggerLevelDBm = triggerLevelDBm
        points = model.powerOnSweep.points
    }

    /// one point's span [s]
    public var pointSeconds: Double { sweepSeconds / Double(points) }

    /// The command lines that set the unit up: its input for the frequency, the RBW, the sweep time, the trigger.
    public var setupCommands: [String] {
        let model = driver.model
        let band = FrequencyRange(lowerHz: frequencyHz - 1, upperHz: frequencyHz + 1)
        let input = band.flatMap { model.input(for: $0)?.input } ?? model.inputs[0]
        return model.commands(selecting: input) + [
            "rbw \(FrequencyFormat.trimmed(rbwHz / 1000, maxFractionDigits: 1))",
            "sweeptime \(FrequencyFormat.trimmed(sweepSeconds, maxFractionDigits: 4))",
            triggerLevelDBm.map { "trigger \(FrequencyFormat.trimmed($0, maxFractionDigits: 1))" } ?? "trigger auto",
        ]
    }

    /// Sends the setup; a refusal (a usage line) is an error naming the command.
    public func configure() throws(Failure) {
        for command in setupCommands {
            let reply: [UInt8]
            do { reply = try driver.execute(command) } catch { throw .usb(error) }
            // each of these is silent when taken: any answer is a usage line or `name?`
            let text = String(decoding: reply, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty {
                throw .usb(.unsupported("the tinySA refused `\(command)`: \(text)"))
            }
        }
    }

    /// Measures one trace into `levels` [dBm] (resized to `points` once).
    /// Waits the sweep time, plus `triggerWaitSeconds` for a trigger.
    public func measure(into levels: inout [Float], triggerWaitSeconds: Double = 5) throws(Failure) {
        let hz = UInt64(frequencyHz.rounded())
        let wait = sweepSeconds + (triggerLevelDBm == nil ? 2 : triggerWaitSeconds)
        let reply: [UInt8]
        do {
            reply = try driver.execute("scanraw \(hz) \(hz) \(points)", timeoutSeconds: wait)
        } catch {
            if case .timeout = error, triggerLevelDBm != nil {
                throw .usb(.timeout(operation: "a zero-span trigger at \(triggerLevelDBm ?? 0) dBm (nothing crossed it)",
                                    milliseconds: UInt32(wait * 1000)))
            }
            throw .usb(error)
        }
        try Self.decode(reply, points: points, zeroLevelDB: driver.model.zeroLevelDB, into: &levels)
    }

    /// `{` (x lo hi)×N `}` → N levels [dBm].
    static func decode(_ bytes: [UInt8], points: Int, zeroLevelDB: Float, into levels: inout [Float]) throws(Failure) {
        guard bytes.count == 2 + 3 * points, bytes.first == TinySAProtocol.scanOpen, bytes.last == TinySAProtocol.scanClose else {
            throw .badTrace("expected {…} with \(points) points (\(2 + 3 * points) bytes), got \(bytes.count) bytes")
        }
        if levels.count != points { levels = [Float](repeating: 0, count: points) }
        for k in 0..<points {
            let at = 1 + 3 * k
            guard bytes[at] == TinySAProtocol.scanPointMarker else { throw .badTrace("no point marker at byte \(at)") }
            let raw = Int16(bitPattern: UInt16(bytes[at + 1]) | UInt16(bytes[at + 2]) << 8)
            levels[k] = Float(raw) / Float(TinySAProtocol.rawUnitsPerDB) - zeroLevelDB
        }
    }
}
