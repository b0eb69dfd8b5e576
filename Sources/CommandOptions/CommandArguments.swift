import ArgumentParser
import Devices
import Runs
import Signals

/// A band on the command line, `start:stop` in MHz (`--band`,
/// `--meter-band`), parsed once by ArgumentParser (`transform:`), which
/// prints what is wrong with the value and exits 64. Its range is checked
/// against the chosen analyzer's with `within`, once the analyzer (and a
/// converter in front of it, `--frequency-offset`) is known: 10180:10190 is
/// a HackRF's band behind a 9.75 GHz LNB.
public struct Band: CustomStringConvertible, Sendable {
    /// as typed, for messages
    public let text: String
    public let range: FrequencyRange
    /// a default written in the source, not typed by the user
    public let isDefault: Bool

    public var description: String { text }

    public init(parsing text: String) throws {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = Double(parts[0]), let high = Double(parts[1]),
              low.isFinite, high.isFinite else {
            throw ValidationError("expected start:stop in MHz, e.g. 88:108")
        }
        guard let range = FrequencyRange(lowerHz: low * 1e6, upperHz: high * 1e6) else {
            throw ValidationError("start must be below stop")
        }
        guard range.lowerHz >= 0 else { throw ValidationError("expected frequencies of 0 MHz or more") }
        self.text = text
        self.range = range
        isDefault = false
    }

    private init(text: String, range: FrequencyRange, isDefault: Bool) {
        self.text = text
        self.range = range
        self.isDefault = isDefault
    }

    /// The band behind a converter (`--frequency-offset`): one the user typed
    /// is real already; a default is the analyzer's own band moved by the
    /// converter (88:108 MHz tuned is 9838:9858 MHz behind a 9.75 GHz LNB).
    public func real(behind conversion: FrequencyConversion?) -> Band {
        guard isDefault, let conversion, !conversion.isIdentity, let real = conversion.real(range) else { return self }
        let mhz = { FrequencyFormat.trimmed($0 / 1e6, maxFractionDigits: 6) }
        return Band(text: "\(mhz(real.lowerHz)):\(mhz(real.upperHz))", range: real, isDefault: true)
    }

    /// A default written in the source (not typed by a user): whole MHz, lower below upper.
    public init(defaultMHz lower: Int, _ upper: Int) {
        guard let range = FrequencyRange(lowerHz: Double(lower) * 1e6, upperHz: Double(upper) * 1e6) else {
            preconditionFailure("default band \(lower):\(upper) must have its start below its stop")
        }
        text = "\(lower):\(upper)"
        self.range = range
        isDefault = true
    }

    /// The range, when `limits` (an analyzer's tunable range) hold it all.
    /// - Parameter option: names the option in the message; nil where ArgumentParser names it
    public func within(_ limits: FrequencyRange, option: String?) throws -> FrequencyRange {
        guard range.lowerHz >= limits.lowerHz, range.upperHz <= limits.upperHz else {
            let message = BandLimits.outside(limits)
            guard let option else { throw ValidationError(message) }
            throw CommandError("\(option) \(text): \(message)")
        }
        return range
    }
}

/// A time on the command line: seconds, or with a unit: 30, 90s, 5m, 1h.
public struct TimeSpan: Sendable {
    public let seconds: Double

    /// A positive time.
    public init(parsing text: String) throws {
        seconds = try Self.seconds(text)
        guard seconds > 0 else { throw ValidationError("expected a time above 0, e.g. 30, 90s, 5m or 1h") }
    }

    /// A time that may be 0.
    public init(parsingZeroOrMore text: String) throws { seconds = try Self.seconds(text) }

    private init(seconds: Double) { self.seconds = seconds }
    public static let zero = TimeSpan(seconds: 0)

    private static func seconds(_ text: String) throws -> Double {
        guard let value = RTLPowerNumber.seconds(text), value.isFinite, value >= 0 else {
            throw ValidationError("expected a time such as 30, 90s, 5m or 1h")
        }
        return value
    }
}

/// The one conversion of a library's `UsageError` into ArgumentParser's
/// (printed with the usage, exit 64).
public func usage<Value>(_ work: () throws -> Value) throws -> Value {
    do {
        return try work()
    } catch let error as UsageError {
        throw ValidationError(error.description)
    }
}

/// A replay speed: a factor of real time, or `max` (as fast as it can be read).
public struct ReplaySpeed: ExpressibleByArgument, Equatable {
    /// × real time; nil for as fast as possible
    public var factor: Double?

    public init(factor: Double?) { self.factor = factor }

    public init?(argument: String) {
        if argument == "max" {
            factor = nil
        } else if let value = Double(argument), value.isFinite, value > 0 {
            factor = value
        } else {
            return nil
        }
    }

    public var defaultValueDescription: String { factor.map { "\($0)" } ?? "max" }
}
