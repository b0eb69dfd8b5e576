import Foundation
import Testing

/// `e` in `watch` under tmux, on the demo HackRF cabled to the emulated
/// generator: a fundamental and three harmonics of known level, read off the
/// screen's table in dBc and checked against the generator's settings (the
/// truth: −10, −20 and −15 dBc). The emulated front end's response moves
/// levels by at most 0.3 dB between 10 and 40 MHz; the average detector
/// keeps the noise's peaks off the weak products (see the docs).
@Suite(.serialized) struct WatchMeasurementTests {
    @Test func eShowsTheHarmonicsInDBcOfTheGeneratorsTones() throws {
        let tmux = try #require(try TmuxSession(width: 160, height: 48), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) watch --device demo --demo-generator 10:-20,20:-30,30:-40,40:-35 --band 5:45"
            + " --detector average; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("fps", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        usleep(1_000_000)
        try tmux.keys("e")
        #expect(tmux.waitFor("harmonics", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        // a few screens: each harmonic's dBc is the last number on its row of the pane
        var readings: [String: [Double]] = [:]
        var screen = ""
        for _ in 0..<5 {
            usleep(400_000)
            screen = tmux.screen()
            for row in screen.split(separator: "\n") {
                guard let start = row.range(of: #"H[2-4]  \d"#, options: .regularExpression) else { continue }
                let fields = row[start.lowerBound...].split(separator: " ")
                if let dBc = fields.last.flatMap({ Double($0.replacingOccurrences(of: "−", with: "-")) }) {
                    readings[String(fields[0]), default: []].append(dBc)
                }
            }
        }
        for (name, truth) in [("H2", -10.0), ("H3", -20.0), ("H4", -15.0)] {
            let values = (readings[name] ?? []).sorted()
            #expect(values.count >= 3, "\(name): \(screen)")
            let median = values.isEmpty ? .nan : values[values.count / 2]
            #expect(abs(median - truth) < 0.5, "\(name) read \(values) dBc, the generator's \(truth): \(screen)")
        }
        // the plot labels the harmonics over the trace, left of the pane
        let plotPart = screen.split(separator: "\n").map { String($0.prefix(120)) }.joined(separator: "\n")
        #expect(plotPart.contains("H2") && plotPart.contains("H4"), "\(screen)")
        // e on: TOI (its tones are the two highest peaks: 10 and 20 MHz; 2F1−F2 at 0 Hz is off the span, said so)
        try tmux.keys("e")
        #expect(tmux.waitFor(" TOI", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        // ACPR, noise marker, off: the pane goes
        try tmux.keys("e")
        #expect(tmux.waitFor(" ACPR", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("e")
        #expect(tmux.waitFor(" noise marker", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("e")
        #expect(tmux.waitForAbsence(of: "e next measurement", timeoutSeconds: 5), "\(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 10) != nil, "\(tmux.screen())")
    }
}
