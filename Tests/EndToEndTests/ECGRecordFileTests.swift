import Foundation
import Testing

/// `ecg watch` and `ecg score` on records with signals at several rates (WFDB
/// `212x4`) and on EDF/EDF+ files; `ecg convert` between the formats.
@Suite(.serialized) struct ECGRecordFileTests {
    /// real records and files (Tests/ECGTests/Fixtures, provenance in its README)
    private static let fixtures = Paths.packageRoot.appendingPathComponent("Tests/ECGTests/Fixtures")
    private static let mimic = fixtures.appendingPathComponent("mimicdb-03700181/03700181").path

    @Test func scoreUsesTheFiveHundredHertzLeadAndEachAnnotatorsTimeBase() throws {
        // gqrsh counts at 500 Hz (its note), gqrsl in 125 Hz frames, sqrs at 250 Hz (its note)
        for annotator in ["gqrsh", "gqrsl", "sqrs"] {
            let result = try run(Paths.tscope, ["ecg", "score", Self.mimic, "--annotator", annotator])
            #expect(result.status == 0, "\(annotator): \(result.stderr)")
            #expect(result.stdoutText.contains("lead 0 (MCL1), 300000 samples at 500.0 Hz"), "\(result.stdoutText)")
            let sensitivity = Self.figure("Se", result.stdoutText)
            #expect(sensitivity.map { $0 > 99 } ?? false, "\(annotator): \(result.stdoutText)")
            // the signals at 125 Hz are named, not dropped silently
            #expect(result.stderr.contains("ABP (125 Hz), RESP (125 Hz)"), "\(result.stderr)")
        }
        let byLabel = try run(Paths.tscope, ["ecg", "score", Self.mimic, "--annotator", "gqrsh", "--lead", "MCL1"])
        #expect(byLabel.stdoutText.contains("lead 0 (MCL1)"), "\(byLabel.stdoutText)")
        let missing = try run(Paths.tscope, ["ecg", "score", Self.mimic, "--annotator", "gqrsh", "--lead", "EKG II"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no lead \"EKG II\": the leads are 0 \"MCL1\", 1 \"ABP\", 2 \"RESP\""), "\(missing.stderr)")
        let noReference = try run(Paths.tscope, ["ecg", "score", Self.mimic])
        #expect(noReference.status != 0 && noReference.stderr.contains("03700181.atr"), "\(noReference.stderr)")
    }

    @Test func watchPlaysTheMultiRateRecordAtTheECGRate() throws {
        let tmux = try #require(try TmuxSession(width: 160, height: 32))
        try tmux.type("\(Paths.tscope.path) ecg watch \(Self.mimic) --strip 5")
        let screen = try #require(tmux.waitFor("│ 03700181", timeoutSeconds: 20), "\(tmux.screen())")
        #expect(screen.contains("500 Hz │ 5 s"), "\(screen)")
        #expect(screen.contains("MCL1"))
        // the detector runs on the 500 Hz lead: a heart rate appears (this patient is near 115/min)
        #expect(Self.waitUntil(timeoutSeconds: 20) { Self.heartRate(tmux.screen()).map { (60...160).contains($0) } ?? false },
                "\(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil)
        try tmux.type("\(Paths.tscope.path) ecg watch \(Self.mimic) --lead ABP --strip 5")
        let pressure = try #require(tmux.waitFor("│ 03700181", timeoutSeconds: 20), "\(tmux.screen())")
        #expect(pressure.contains("125 Hz │ 5 s") && pressure.contains("RESP"), "\(pressure)")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil)
    }

    /// A figure of the score report ("Se  99.91 %") as a number.
    static func figure(_ name: String, _ text: String) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }) else { return nil }
        return Double(line.dropFirst(name.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
    }

    /// The heart rate on the status line ("HR 72"), nil while "HR --".
    static func heartRate(_ screen: String) -> Int? {
        guard let range = screen.range(of: "HR ") else { return nil }
        return Int(screen[range.upperBound...].prefix { $0.isNumber })
    }

    static func waitUntil(timeoutSeconds: Double = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        repeat {
            if condition() { return true }
            usleep(100_000)
        } while Date() < deadline
        return false
    }
}
