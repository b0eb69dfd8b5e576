import Foundation
import Testing

/// `tscope measure toi --check-gain` on the demo HackRF: two generator
/// tones of −22 dBm. With third-order products in the signal (the generator
/// sends them at −50 and −52 dBm: −28 and −30 dBc) their dBc stays put when
/// the LNA gain drops 8 dB; with none sent but the LNA at 40 dB, the
/// emulated front end (IIP3 +20 dBm at LNA 16 dB, falling dB for dB with the
/// gain: −4 dBm at 40 dB) makes them at 2·(P − IIP3) dBc, P the tones' level
/// at the front end: −22 dBm + 0.70 dB (the emulator's stated response at
/// 100 MHz) = −21.3 dBm, so −34.6 dBc, and +0.5 dB as the same cubic
/// compresses the tones by 10·log10((1 − 3·10^((P − IIP3)/10))²) = −0.5 dB:
/// −34.1 dBc. They drop 2 dB per dB: the check must call them the analyzer's.
@Suite(.serialized) struct MeasureGainCheckTests {
    static func check(_ arguments: [String]) throws -> [String: Any] {
        let result = try run(Paths.tscope, ["measure", "toi", "--tones", "100M,101M", "--device", "demo", "--mode", "sweep",
                                            "--json"] + arguments, timeoutSeconds: 90)
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdoutText.split(separator: "\n").first, "no output: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    static func products(_ object: [String: Any]) -> [[String: Any]] { object["products"] as? [[String: Any]] ?? [] }

    @Test func productsInTheSignalStayPutAndTheAnalyzersMove() throws {
        let real = try Self.check(["--demo-generator", "100:-22,101:-22,99:-50,102:-52", "--check-gain", "-8"])
        #expect(real["gain_change_db"] as? Double == -8 && real["change"] as? String == "LNA 16 dB → 8 dB", "\(real)")
        // uncalibrated: the tones' dBFS follow the gain step
        #expect(abs((real["reference_moved_db"] as? Double ?? 0) + 8) < 0.5, "\(real)")
        let inSignal = Self.products(real)
        #expect(inSignal.count == 2, "\(real)")
        for (product, truth) in zip(inSignal, [-28.0, -30]) {
            #expect(abs((product["dbc_before"] as? Double ?? 0) - truth) < 0.5, "\(product)")
            #expect(abs(product["moved_db"] as? Double ?? 99) < 1, "\(product)")
            #expect(product["analyzer_made"] as? Bool == false && product["analyzer_made_moves_db"] as? Double == -16, "\(product)")
        }

        let made = try Self.check(["--demo-generator", "100:-22,101:-22", "--lna-gain", "40", "--vga-gain", "0", "--check-gain", "-8"])
        #expect(made["change"] as? String == "LNA 40 dB → 32 dB", "\(made)")
        let byAnalyzer = Self.products(made)
        #expect(byAnalyzer.count == 2, "\(made)")
        for product in byAnalyzer {
            // the textbook level at the stated intercept, and a drop near 2 dB per dB (the second reading nears the floor)
            #expect(abs((product["dbc_before"] as? Double ?? 0) + 34.1) < 1, "\(product)")
            let moved = product["moved_db"] as? Double ?? 0
            #expect(moved < -11 && moved > -18, "\(product)")
            #expect(product["analyzer_made"] as? Bool == true, "\(product)")
        }
    }

    @Test func badChecksAreOneLine() throws {
        for arguments in [["measure", "toi", "--tones", "100M,101M", "--device", "demo", "--check-gain", "-5"],
                          ["measure", "toi", "--tones", "100M,101M", "--device", "demo", "--check-gain", "+32"],
                          ["measure", "acpr", "--channel", "100M:200k", "--offsets", "400k", "--device", "demo", "--check-gain", "-8"],
                          ["measure", "toi", "--tones", "100M,101M", "--device", "demo", "--check-gain", "0"],
                          ["measure", "toi", "--tones", "100M,101M", "--device", "demo-rtlsdr", "--check-gain", "-8"]] {
            let bad = try run(Paths.tscope, arguments, timeoutSeconds: 30)
            #expect(bad.status != 0, "\(arguments)")
            let lines = bad.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") || $0.hasPrefix("tscope:") }
            #expect(lines.count == 1, "\(arguments): \(bad.stderr)")
        }
    }
}
