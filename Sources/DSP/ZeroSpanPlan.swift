import Signals

/// Why a zero-span request cannot be measured, in words a user acts on.
public enum ZeroSpanError: Error, Equatable, Sendable, CustomStringConvertible {
    case rbwTooWide(rbwHz: Double, widestHz: Double, sampleRateHz: Double, device: String)
    case rbwTooNarrow(rbwHz: Double, narrowestHz: Double)
    case sweepTooShort(seconds: Double, shortestSeconds: Double, points: Int, sampleRateHz: Double)
    case sweepTooLong(seconds: Double, longestSeconds: Double)
    case frequencyOutside(frequencyHz: Double, range: FrequencyRange, device: String)
    case notStreaming(device: String)

    public var description: String {
        func hz(_ value: Double) -> String { FrequencyFormat.label(value) }
        switch self {
        case let .rbwTooWide(rbw, widest, rate, device):
            return "--rbw \(hz(rbw)): \(device)'s zero span takes at most \(hz(widest)) (an eighth of its "
                + "\(hz(rate).replacingOccurrences(of: "Hz", with: "S/s")) sample rate)"
        case let .rbwTooNarrow(rbw, narrowest):
            return "--rbw \(hz(rbw)): the narrowest zero-span RBW is \(hz(narrowest))"
        case let .sweepTooShort(seconds, shortest, points, rate):
            return "--sweep-time \(TimeFormat.label(seconds)): a trace of \(points) points at "
                + "\(hz(rate).replacingOccurrences(of: "Hz", with: "S/s")) needs at least \(TimeFormat.label(shortest))"
        case let .sweepTooLong(seconds, longest):
            return "--sweep-time \(TimeFormat.label(seconds)): at most \(TimeFormat.label(longest)) per trace "
                + "(for a slower record of one frequency use `tscope meter`)"
        case let .frequencyOutside(frequency, range, device):
            return "--frequency \(hz(frequency)): \(device) tunes \(hz(range.lowerHz))–\(hz(range.upperHz))"
        case .notStreaming(let device):
            return "zero span needs an analyzer that streams I/Q (HackRF, RTL-SDR, a SoapySDR device) or a tinySA's own zero span; "
                + "the \(device) has neither here"
        }
    }
}

/// Seconds as a bench display writes them: "50 µs", "2.5 ms", "1.2 s".
public enum TimeFormat {
    public static func label(_ seconds: Double) -> String {
        let magnitude = abs(seconds)
        let (value, unit): (Double, String) = magnitude >= 1 ? (seconds, "s")
            : magnitude >= 1e-3 ? (seconds * 1e3, "ms") : magnitude >= 1e-6 ? (seconds * 1e6, "µs") : (seconds * 1e9, "ns")
        var text = String(format: "%.4g", value)
        if text.contains("e") { text = String(value) }
        return "\(text) \(unit)"
    }
}

/// One zero-span measurement's numbers, checked: the frequency, the RBW
/// filter at the radio's sample rate, the trace's points and how many
/// samples each covers. The sweep time a trace really spans is points ×
/// samples per point ÷ sample rate (`sweepSeconds`), the asked time rounded
/// to whole samples per point.
public struct ZeroSpanPlan: Sendable, Equatable {
    /// [Hz]
    public var frequencyHz: Double
    public var rbwHz: Double
    /// the radio's [samples/s]
    public var sampleRateHz: Double
    public var points: Int
    public var samplesPerPoint: Int

    /// the RBW filter's widest share of the sample rate: the radio's DC offset, fs/4 away, stays 24 dB
    /// or more under the filter and its stages stay close to the analog prototype
    public static let widestRBWShare = 0.125
    public static let narrowestRBWHz = 10.0
    public static let longestSweepSeconds = 60.0
    public static let defaultPoints = 1000

    /// - Parameter device: the analyzer's name for messages ("a HackRF One")
    public init(frequencyHz: Double, rbwHz: Double, sweepSeconds: Double, sampleRateHz: Double,
                tunableRange: FrequencyRange, device: String,
                points: Int = ZeroSpanPlan.defaultPoints) throws(ZeroSpanError) {
        guard frequencyHz >= tunableRange.lowerHz, frequencyHz <= tunableRange.upperHz else {
            throw .frequencyOutside(frequencyHz: frequencyHz, range: tunableRange, device: device)
        }
        let widest = sampleRateHz * Self.widestRBWShare
        guard rbwHz <= widest else {
            throw .rbwTooWide(rbwHz: rbwHz, widestHz: widest, sampleRateHz: sampleRateHz, device: device)
        }
        guard rbwHz >= Self.narrowestRBWHz else { throw .rbwTooNarrow(rbwHz: rbwHz, narrowestHz: Self.narrowestRBWHz) }
        let shortest = Double(points) / sampleRateHz
        guard sweepSeconds >= shortest * (1 - 1e-9) else {
            throw .sweepTooShort(seconds: sweepSeconds, shortestSeconds: shortest, points: points, sampleRateHz: sampleRateHz)
        }
        guard sweepSeconds <= Self.longestSweepSeconds else {
            throw .sweepTooLong(seconds: sweepSeconds, longestSeconds: Self.longestSweepSeconds)
        }
        self.frequencyHz = frequencyHz
        self.rbwHz = rbwHz
        self.sampleRateHz = sampleRateHz
        self.points = points
        samplesPerPoint = max(1, Int((sweepSeconds * sampleRateHz / Double(points)).rounded()))
    }

    /// An analyzer that times its own points (a tinySA's zero span): one
    /// measurement per point, `pointSeconds` apart, with its RBW filter.
    public init(frequencyHz: Double, rbwHz: Double, points: Int, pointSeconds: Double) {
        self.frequencyHz = frequencyHz
        self.rbwHz = rbwHz
        self.points = points
        sampleRateHz = 1 / pointSeconds
        samplesPerPoint = 1
    }

    /// one point's span [s]
    public var pointSeconds: Double { Double(samplesPerPoint) / sampleRateHz }
    /// the trace's span [s]
    public var sweepSeconds: Double { Double(points) * pointSeconds }
    /// where the radio is tuned: a quarter of the sample rate above the frequency [Hz] (`ZeroSpanDetector`)
    public var tunedHz: Double { frequencyHz + sampleRateHz / 4 }
}
