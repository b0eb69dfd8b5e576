import ArgumentParser
import Runs
import Signals

/// What `tscope measure` is asked: which measurement and its frequencies,
/// checked here (exit 64 with the option and what was expected).
public struct MeasureOptions: ParsableArguments {
    public init() {}

    public enum Kind: String, ExpressibleByArgument, CaseIterable, Sendable {
        case harmonics, toi, acpr, noise
    }

    @Argument(help: "harmonics, toi, acpr or noise.")
    public var kind: Kind

    @Option(help: "harmonics: the fundamental's frequency (e.g. 100M).")
    public var fundamental: FrequencyArgument?

    @Option(help: "harmonics: the fundamental and harmonics up to this one (2–10, default 5).")
    public var count = 5

    @Option(help: "toi: the two tones, F1,F2 (e.g. 100M,101M).")
    public var tones: String?

    @Option(help: "acpr: the main channel, CENTRE:BANDWIDTH (e.g. 2440M:20M).")
    public var channel: String?

    @Option(help: "acpr: the adjacent channels' centre offsets, O1,O2,… (e.g. 20M,40M).")
    public var offsets: String?

    @Option(name: .customLong("adjacent-bw"), help: "acpr: the adjacent channels' bandwidth (default: the main channel's).")
    public var adjacentBandwidth: FrequencyArgument?

    @Option(help: "noise: where the noise marker reads.")
    public var frequency: FrequencyArgument?

    @Option(help: "noise: the span swept around it (default 1M).")
    public var span: FrequencyArgument?

    @Option(help: "Sweeps averaged (in power) per measurement (1–100, default 8).")
    public var sweeps = 8

    @Option(name: .customLong("repeat"), help: "Measurements to make, one after another (default 1).")
    public var repeats = 1

    @Flag(help: "One JSON object per measurement.")
    public var json = false

    @Option(name: .customLong("check-gain"), parsing: .unconditional, help: ArgumentHelp(
        "harmonics, toi: measure, change the analyzer's front-end gain by DB (HackRF LNA, RTL-SDR tuner gain, tinySA "
            + "attenuation the other way; e.g. -8), measure again, and say for each product whether the analyzer made it "
            + "(its dBc moves (n−1) dB per dB) or it is in the signal (its dBc stays put).", valueName: "DB"))
    public var checkGain: Double?

    public func validate() throws {
        _ = try measurement
        if let checkGain {
            guard kind == .harmonics || kind == .toi else {
                throw ValidationError("--check-gain is for harmonics and toi: their products are what an analyzer makes itself")
            }
            guard checkGain.isFinite, checkGain != 0, abs(checkGain) <= 40 else {
                throw ValidationError("--check-gain \(checkGain): expected a gain change of up to ±40 dB, not 0")
            }
        }
    }

    /// The measurement asked for.
    public var measurement: MeasureKind {
        get throws {
            guard (1...100).contains(sweeps) else { throw ValidationError("--sweeps \(sweeps): expected 1 to 100") }
            guard repeats >= 1 else { throw ValidationError("--repeat \(repeats): expected at least 1") }
            func frequencies(_ text: String?, _ option: String, count: Int? = nil) throws -> [Double] {
                guard let text else { throw ValidationError("measure \(kind.rawValue) needs \(option)") }
                let values = text.split(separator: ",").map { FrequencyFormat.hertz(String($0)) }
                guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) > 0 }), count.map({ values.count == $0 }) ?? true else {
                    throw ValidationError("\(option) \(text): expected \(count.map { "\($0)" } ?? "one or more") positive frequencies separated by commas")
                }
                return values.compactMap { $0 }
            }
            switch kind {
            case .harmonics:
                guard let fundamental, fundamental.hertz > 0 else { throw ValidationError("measure harmonics needs --fundamental HZ") }
                guard (2...10).contains(count) else { throw ValidationError("--count \(count): expected 2 to 10") }
                return .harmonics(fundamentalHz: fundamental.hertz, count: count)
            case .toi:
                let pair = try frequencies(tones, "--tones", count: 2)
                guard pair[0] != pair[1], min(pair[0], pair[1]) > 2 * abs(pair[1] - pair[0]) else {
                    throw ValidationError("--tones \(tones ?? ""): expected two different tones, their products above 0 Hz")
                }
                return .toi(f1: pair[0], f2: pair[1])
            case .acpr:
                guard let channel else { throw ValidationError("measure acpr needs --channel CENTRE:BANDWIDTH") }
                let parts = channel.split(separator: ":").map { FrequencyFormat.hertz(String($0)) }
                guard parts.count == 2, let centre = parts[0], let width = parts[1], centre > 0, width > 0, width < 2 * centre else {
                    throw ValidationError("--channel \(channel): expected CENTRE:BANDWIDTH, e.g. 2440M:20M")
                }
                let offsetValues = try frequencies(offsets, "--offsets")
                let adjacent = adjacentBandwidth?.hertz ?? width
                guard adjacent > 0, offsetValues.allSatisfy({ $0 >= (width + adjacent) / 2 && $0 + adjacent / 2 < centre }) else {
                    throw ValidationError("--offsets \(offsets ?? ""): each adjacent channel must lie clear of the main one and above 0 Hz")
                }
                return .acpr(centreHz: centre, widthHz: width, offsetsHz: offsetValues, adjacentWidthHz: adjacent)
            case .noise:
                guard let frequency, frequency.hertz > 0 else { throw ValidationError("measure noise needs --frequency HZ") }
                let spanHz = span?.hertz ?? 1e6
                guard spanHz > 0, spanHz < 2 * frequency.hertz else { throw ValidationError("--span: expected a positive span below twice the frequency") }
                return .noise(hz: frequency.hertz, spanHz: spanHz)
            }
        }
    }
}
