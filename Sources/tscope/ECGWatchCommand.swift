import ArgumentParser
import ECG
import Foundation
import Terminal
import ViewModels
import Views

/// `tscope ecg watch`: live ECG strips or the 12-lead printout in the terminal.
struct ECGWatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch ECG strips live (sweep drawing, heart rate, rhythm, events).",
        discussion: """
            Keys: space pause/resume, ←/→ strip length (2.5–10 s), ↑/↓ gain, v strip ↔ 12-lead, \
            l next leads, e event list (↑/↓ select, x delete), [ ] synthetic sample rate, \
            - + refresh rate, q quit.
            """
    )

    enum LayoutChoice: String, ExpressibleByArgument, CaseIterable {
        case strip
        case twelveLead = "12-lead"
    }

    @Argument(help: "A record to play; without one, the synthetic ECG.")
    var source: String?

    @Option(help: "Leads of the synthetic ECG (1–12).")
    var leads: Int = 12

    @Option(help: "Sample rate of the synthetic ECG [Hz] (50–10000).")
    var rate: Double = 250

    @Option(name: .customLong("strip"), help: "Strip length [s] (2.5–10).")
    var stripSeconds: Double = 10

    @Option(help: "Refresh rate [frames/s] (5–60).")
    var fps: Double = 30

    @Option(help: "strip or 12-lead (default: 12-lead when the source has the leads).")
    var layout: LayoutChoice?

    func validate() throws {
        guard (1...12).contains(leads) else { throw ValidationError("--leads \(leads): expected 1 to 12") }
        guard rate.isFinite, rate >= 50, rate <= 10_000 else {
            throw ValidationError("--rate \(rate): expected 50 to 10000 Hz")
        }
        guard stripSeconds.isFinite, stripSeconds >= 2.5, stripSeconds <= 10 else {
            throw ValidationError("--strip \(stripSeconds): expected 2.5 to 10 s")
        }
        guard fps.isFinite, fps >= 5, fps <= 60 else { throw ValidationError("--fps \(fps): expected 5 to 60") }
    }

    /// The source and its rhythm monitor.
    func openFeed() throws -> ECGFeed {
        if let source {
            // Record, CSV, serial and stdin sources come with module ECG's readers.
            throw CommandError("\(source): reading records is not in this build yet; run without SOURCE for the synthetic ECG")
        }
        let pattern = ECGTestPatternSource(leadCount: leads, sampleRate: rate)
        return ECGFeed(source: pattern, monitor: pattern, sourceName: "synthetic")
    }

    func run() throws {
        guard TerminalSession.isTerminal(STDIN_FILENO), TerminalSession.isTerminal(STDOUT_FILENO) else {
            throw CommandError("ecg watch needs an interactive terminal; for scoring a record use `tscope ecg score`")
        }
        let feed = try openFeed()
        let strip = ECGStripModel(leadNames: feed.source.leadNames, sampleRate: feed.source.sampleRate,
                                  stripSeconds: stripSeconds)
        let chosenLayout: ECGMonitorModel.Layout? = layout.map { $0 == .strip ? .strip : .twelveLead }
        let model = ECGMonitorModel(strip: strip, refreshRate: fps, layout: chosenLayout)
        let session = TerminalSession()
        do {
            try session.enter(mouse: false, onTerminationSignal: .notifyLoop)
        } catch {
            throw CommandError("\(error)")
        }
        let viewer = ECGViewer(session: session, model: model, feed: feed,
                               colorMode: ColorMode.detect(environment: ProcessInfo.processInfo.environment))
        let exit: ViewerExit
        do {
            exit = try viewer.run()
        } catch {
            session.restore()
            throw CommandError("\(error)")
        }
        session.restore()
        switch exit {
        case .quit:
            return
        case .signal(let number):
            TerminalSession.exit(bySignal: number)
        case .failed(let message):
            throw CommandError(message)
        }
    }
}
