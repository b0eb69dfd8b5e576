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
        abstract: "Watch the live spectrum: plot, waterfall and power meter.",
        discussion: """
            Views: 1 plot, 2 waterfall, 3 meter (Tab cycles). Keys: ←/→ pan, +/- zoom, ↑/↓ display gain, \
            a autoscale, space pause/resume, PgUp/PgDn scroll (waterfall: time; plot: dB offset), Home/End now, \
            [ ] waterfall period, r reset meter min/max, d control drawer, ? all keys and gestures, q quit.
            The mouse drags, zooms with the wheel and clicks to pause. Zooming and panning retune the analyzer \
            to the visible band with about one bin per pixel column.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions

    @Option(name: [.customShort("f"), .long], help: "Band to show first, start:stop in MHz.")
    var band: String = "88:108"

    @Option(name: .long, help: "View to start in: plot, waterfall, meter.")
    var view: ViewChoice = .plot

    @Option(name: .customLong("meter-band"), help: "Band the meter measures, start:stop in MHz (default: the visible band).")
    var meterBand: String?

    @Option(help: "An ECG strip in a pane beside the spectrum: a WFDB record, a CSV file, or synthetic.")
    var ecg: String?

    /// what the HackRF sweep can tune, as hackrf_sweep's default range [Hz]
    static let deviceLimits = FrequencyRange(lowerHz: 0, upperHz: 6_000e6)!

    func validate() throws {
        _ = try parsedBand()
        if let meterBand { _ = try BandOption.parse(meterBand, option: "--meter-band", limits: Self.deviceLimits) }
    }

    func parsedBand() throws -> FrequencyRange {
        try BandOption.parse(band, option: "--band", limits: Self.deviceLimits)
    }

    func run() throws {
        let ecgPane = try ecg.map(ECGPaneOpening.pane)
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

        // the band checks again against what the chosen analyzer can tune
        let limits = analyzer.kind.tunableRange
        let plot = SpectrumPlotModel(deviceLimits: limits,
                                     visibleBand: try BandOption.parse(band, option: "--band", limits: limits))
        let meter = PowerMeterModel(band: try meterBand.map {
            try BandOption.parse($0, option: "--meter-band", limits: limits)
        })
        let model = AnalyzerModel(plot: plot, meter: meter, mode: view.mode)
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
            try session.enter(mouse: true, onTerminationSignal: .notifyLoop)
        } catch {
            throw CommandError("\(error)")
        }
        let viewer = SpectrumViewer(session: session, model: model, feed: feed,
                                    colorMode: ColorMode.detect(environment: ProcessInfo.processInfo.environment))
        viewer.sidePane = ecgPane
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

/// The view `watch` starts in.
enum ViewChoice: String, ExpressibleByArgument, CaseIterable {
    case plot, waterfall, meter

    var mode: AnalyzerMode {
        switch self {
        case .plot: return .plot
        case .waterfall: return .waterfall
        case .meter: return .meter
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
