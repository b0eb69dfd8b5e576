import ArgumentParser
import DSP
import Devices
import Foundation
import Signals
import Terminal
import USBDriver
import ViewModels
import Views

/// The live spectrum in the terminal.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch the live spectrum.",
        discussion: """
            Keys: ←/→ pan, +/- zoom, ↑/↓ display gain, a autoscale, space pause/resume, q quit.
            Zooming and panning retune the analyzer to the visible band with about one bin per pixel column.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions

    @Option(name: [.customShort("f"), .long], help: "Band to show first, start:stop in MHz.")
    var band: String = "88:108"

    /// what the HackRF sweep can tune, as hackrf_sweep's default range [Hz]
    static let deviceLimits = FrequencyRange(lowerHz: 0, upperHz: 6_000e6)!

    func validate() throws {
        _ = try parsedBand()
    }

    func parsedBand() throws -> FrequencyRange {
        let parts = band.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = Double(parts[0]), let high = Double(parts[1]),
              let range = FrequencyRange(lowerHz: low * 1e6, upperHz: high * 1e6) else {
            throw ValidationError("--band \(band): expected start:stop in MHz with start < stop, e.g. 88:108")
        }
        guard range.lowerHz >= Self.deviceLimits.lowerHz, range.upperHz <= Self.deviceLimits.upperHz else {
            throw ValidationError("--band \(band): outside the analyzer's 0–6000 MHz")
        }
        return range
    }

    func run() throws {
        guard TerminalSession.isTerminal(STDIN_FILENO), TerminalSession.isTerminal(STDOUT_FILENO) else {
            throw CommandError("watch needs an interactive terminal; for output to a pipe or file use "
                + "`tscope sweep` (hackrf_sweep-compatible CSV)")
        }
        let mailbox = FrameMailbox()
        let failure = DeviceFailure()
        // a lost analyzer is reconnected (status "reconnecting…") until the user quits
        let source: ReconnectingSpectrumSource
        let analyzer: SelectedAnalyzer
        do {
            (source, analyzer) = try deviceOptions.spectrumSource(headless: false, onFrame: { mailbox.post($0) },
                                                                  onGiveUp: { failure.record($0) })
        } catch {
            throw CommandError("\(error)")
        }
        defer { source.stop() }

        let model = SpectrumPlotModel(deviceLimits: analyzer.kind.tunableRange, visibleBand: try parsedBand())
        let feed = SpectrumFeed(
            mailbox: mailbox,
            retune: { tuning in try source.retune(to: tuning.band, binWidthHz: tuning.binWidthHz) },
            status: {
                let counters = source.counters
                return SpectrumStatus(deviceName: analyzer.name, isDemo: analyzer.isDemo,
                                      droppedBlocks: counters.droppedBlocks, badBlocks: counters.badBlocks,
                                      message: source.state.statusMessage)
            },
            failure: { failure.message }
        )
        let session = TerminalSession()
        do {
            try session.enter(mouse: false, onTerminationSignal: .notifyLoop)
        } catch {
            throw CommandError("\(error)")
        }
        let viewer = SpectrumViewer(session: session, model: model, feed: feed,
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
            source.stop()
            TerminalSession.exit(bySignal: number)
        case .failed(let message):
            throw CommandError(message)
        }
    }
}

/// The first fatal error the device reported (set on a USB thread, read by
/// the UI loop).
final class DeviceFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var first: String?

    func record(_ message: String) {
        lock.withLock { if first == nil { first = message } }
    }

    var message: String? { lock.withLock { first } }
}
