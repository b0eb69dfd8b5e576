import ArgumentParser
import Signals

/// A band given as `start:stop` in MHz (`--band`, `--meter-band`).
enum BandOption {
    /// Parses and checks against the analyzer's range; errors name the option
    /// and say what was expected.
    static func parse(_ text: String, option: String, limits: FrequencyRange) throws -> FrequencyRange {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = Double(parts[0]), let high = Double(parts[1]),
              low.isFinite, high.isFinite else {
            throw ValidationError("\(option) \(text): expected start:stop in MHz, e.g. 88:108")
        }
        guard let range = FrequencyRange(lowerHz: low * 1e6, upperHz: high * 1e6) else {
            throw ValidationError("\(option) \(text): start must be below stop")
        }
        guard range.lowerHz >= limits.lowerHz, range.upperHz <= limits.upperHz else {
            throw ValidationError("\(option) \(text): outside the analyzer's "
                + "\(FrequencyFormat.trimmed(limits.lowerHz / 1e6, maxFractionDigits: 3))–"
                + "\(FrequencyFormat.trimmed(limits.upperHz / 1e6, maxFractionDigits: 3)) MHz")
        }
        return range
    }
}
