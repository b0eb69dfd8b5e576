import Foundation
import Testing

/// `meter --input FILE --obw --peaks` on a real rtl_power capture of the FM
/// band (two sweeps of Jackie-C's fm_stations.csv), checked against the mean
/// spectrum and occupied bandwidth computed here from the file's text.
@Suite struct MeterMeasurementTests {
    static let file = Paths.packageRoot
        .appendingPathComponent("Tests/CaptureTests/Fixtures/excerpts/rtl_power-fm_stations-excerpt.csv").path

    /// (centre of each value [Hz] → mean linear power over the sweeps); rtl_power's
    /// "Hz low" is the first value's centre, the repeated last value dropped, −inf as `-1.#J`.
    static func meanSpectrum() throws -> [(hz: Double, power: Double)] {
        var sums: [Double: (Double, Int)] = [:]
        for line in try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let low = Double(fields[2])!, step = Double(fields[4])!
            for (k, text) in fields[6...].dropLast().enumerated() {
                let power = text == "-1.#J" ? 0 : pow(10, Double(text)! / 10)
                let hz = low + Double(k) * step
                let old = sums[hz] ?? (0, 0)
                sums[hz] = (old.0 + power, old.1 + 1)
            }
        }
        return sums.map { ($0.key, $0.value.0 / Double($0.value.1)) }.sorted { $0.hz < $1.hz }
    }

    @Test func obwAndPeaksOfARealFMBandScan() throws {
        let result = try run(Paths.tscope, ["meter", "--input", Self.file, "--band", "88:108", "--speed", "max",
                                            "--interval", "3600", "--obw", "99", "--peaks", "5", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == 1, "two sweeps in one interval: \(result.stdoutText)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(object["sweeps"] as? Int == 2)
        let spectrum = try Self.meanSpectrum().filter { (88e6...108e6).contains($0.hz) }
        let step = spectrum[1].hz - spectrum[0].hz
        // OBW: 0.5 % of the power below the start, 0.5 % above the stop, bins as rectangles
        let total = spectrum.map(\.power).reduce(0, +)
        var cumulative = 0.0, start = 0.0
        for bin in spectrum where bin.power > 0 {
            if cumulative + bin.power >= total * 0.005 {
                start = bin.hz - step / 2 + (total * 0.005 - cumulative) / bin.power * step
                break
            }
            cumulative += bin.power
        }
        let obwStart = try #require(object["obw_start_hz"] as? Double)
        #expect(abs(obwStart - start) < 1, "OBW start \(obwStart) Hz, computed \(start) Hz")
        let obw = try #require(object["obw_hz"] as? Double)
        let obwStop = try #require(object["obw_stop_hz"] as? Double)
        #expect(abs(obw - (obwStop - obwStart)) < 0.01 && obw > 15e6 && obw < 20e6, "\(object)")
        // peaks: at value centres of the file, highest first, the first the loudest bin of the mean spectrum
        let peaks = try #require(object["peaks"] as? [[String: Double]])
        #expect(peaks.count == 5)
        let loudest = try #require(spectrum.max { $0.power < $1.power })
        #expect(peaks[0]["hz"] == loudest.hz, "\(peaks[0]) vs \(loudest)")
        #expect(abs(peaks[0]["db"]! - 10 * log10(loudest.power)) < 0.01)
        let levels = peaks.map { $0["db"]! }
        #expect(levels == levels.sorted(by: >))
        let centres = Set(spectrum.map(\.hz))
        #expect(peaks.allSatisfy { centres.contains($0["hz"]!) })
    }

    /// (centre of each value [Hz] → its largest or smallest linear power over the sweeps)
    static func heldSpectrum(max: Bool) throws -> [(hz: Double, power: Double)] {
        var held: [Double: Double] = [:]
        for line in try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let low = Double(fields[2])!, step = Double(fields[4])!
            for (k, text) in fields[6...].dropLast().enumerated() {
                let power = text == "-1.#J" ? 0 : pow(10, Double(text)! / 10)
                let hz = low + Double(k) * step
                held[hz] = held[hz].map { max ? Swift.max($0, power) : Swift.min($0, power) } ?? power
            }
        }
        return held.map { ($0.key, $0.value) }.sorted { $0.hz < $1.hz }
    }

    /// `meter --trace max|min` over a whole real capture reads the channel
    /// power of the per-bin max (min) hold: Σ bin power × the part of the bin
    /// inside the band, computed here from the file's text.
    @Test func traceModesMeasureTheHeldSpectrumOfARealCapture() throws {
        var readings: [String: Double] = [:]
        for trace in ["max", "min", "live"] {
            let result = try run(Paths.tscope, ["meter", "--input", Self.file, "--band", "90:100", "--speed", "max",
                                                "--interval", "3600", "--trace", trace, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let line = try #require(result.stdoutText.split(separator: "\n").first, "\(trace): no reading")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["trace"] as? String == (trace == "live" ? nil : trace), "\(object)")
            readings[trace] = try #require(object["power_db"] as? Double)
            guard trace != "live" else { continue }
            let spectrum = try Self.heldSpectrum(max: trace == "max")
            let step = spectrum[1].hz - spectrum[0].hz
            var power = 0.0
            for bin in spectrum {
                let overlap = Swift.min(bin.hz + step / 2, 100e6) - Swift.max(bin.hz - step / 2, 90e6)
                if overlap > 0 { power += overlap / step * bin.power }
            }
            #expect(abs(readings[trace]! - 10 * log10(power)) < 0.01, "\(trace): \(object), computed \(10 * log10(power))")
        }
        #expect(readings["max"]! > readings["live"]! && readings["live"]! > readings["min"]!, "\(readings)")
    }

    /// Several --band on a real rtl_power capture: each band's readings are
    /// those the band gets alone, one JSON line per band per interval.
    @Test func severalBandsOnARealCaptureReadAsEachAlone() throws {
        func readings(_ bands: [String]) throws -> [[String: Any]] {
            let result = try run(Paths.tscope, ["meter", "--input", Self.file, "--json", "--speed", "max", "--interval", "5"]
                + bands.flatMap { ["--band", $0] })
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdoutText.split(separator: "\n")
                .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        let both = try readings(["88:95", "100:108"])
        let low = try readings(["88:95"]), high = try readings(["100:108"])
        #expect(!low.isEmpty && both.count == low.count + high.count, "\(both.count) vs \(low.count) + \(high.count)")
        let power = { (lines: [[String: Any]], start: Int) in
            lines.filter { $0["start_hz"] as? Int == start }.compactMap { $0["power_db"] as? Double }
        }
        #expect(power(both, 88_000_000) == power(low, 88_000_000))
        #expect(power(both, 100_000_000) == power(high, 100_000_000))
        #expect(power(both, 88_000_000) != power(both, 100_000_000))
    }

    @Test func badMeasurementOptionsAreOneLine() throws {
        for (arguments, message) in [(["--obw", "100"], "--obw 100"), (["--speed", "fast"], "'fast' is invalid for '--speed"),
                                     (["--peaks", "500"], "--peaks 500"),
                                     (["--trace", "hold"], "--trace")] {
            let result = try run(Paths.tscope, ["meter", "--input", Self.file, "--band", "88:108"] + arguments)
            #expect(result.status == 64 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let missing = try run(Paths.tscope, ["meter", "--input", "/nonexistent.csv", "--band", "88:108", "--speed", "max"])
        #expect(missing.status == 1 && missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
    }
}
