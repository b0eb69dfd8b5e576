#if SensorLink
import Analyzers
import DSP
import Devices
import Foundation
import Remote
import Signals
import ThreadKit

/// `tscope serve`: the chosen analyzer streamed to viewers over gRPC until
/// SIGINT or SIGTERM. The analyzer never gives up reconnecting (a sensor on
/// a mast must come back by itself); its outages are told to the viewers.
public struct ServeRun {
    public var selection: DeviceSelection
    public var listen: RemoteEndpoint
    public var token: String?
    /// the token that lets a viewer retune and change settings (nil: watching is enough)
    public var controlToken: String?
    /// TLS identity (nil: plaintext HTTP/2)
    public var certificate: SensorCertificate?
    /// the band swept until a viewer takes control (nil: the analyzer's whole range)
    public var band: FrequencyRange?
    /// the analyzer's bin width until a viewer takes control [Hz]
    public var binWidthHz: Double
    public var detector: SpectrumDetector

    public init(selection: DeviceSelection, listen: RemoteEndpoint, token: String?, certificate: SensorCertificate? = nil,
                band: FrequencyRange?, binWidthHz: Double, detector: SpectrumDetector) {
        self.selection = selection
        self.listen = listen
        self.token = token
        self.certificate = certificate
        self.band = band
        self.binWidthHz = binWidthHz
        self.detector = detector
    }

    /// The analyzer being served: its source, what it is, the selection it
    /// was opened with, and the band and bin width it sweeps now.
    private struct Serving {
        var source: ReconnectingSpectrumSource
        var analyzer: SelectedAnalyzer
        var selection: DeviceSelection
        var band: FrequencyRange
        var binWidthHz: Double
    }

    /// Serves until a stop signal (or `stop` completes); `listening` is told the address bound.
    public func run(stop: CompletionLatch<Int32>? = nil, listening: (RemoteEndpoint, SelectedAnalyzer) -> Void) throws {
        let hub = Locked<SensorHub?>(nil)
        // the analyzer's counters, read on the run's tick (not under the source's locks per frame)
        let counters = Locked(SpectrumSourceCounters())
        let publish: @Sendable (SpectrumFrame) -> Void = { frame in hub.value?.publish(frame, counters: counters.value) }
        let detector = detector
        // each viewer may ask for its own detector: the analyzer keeps them all where it can (HackRF)
        var selection = selection
        selection.keepsEveryDetector = true
        let (source, analyzer) = try selection.spectrumSource(headless: false, detector: detector, onFrame: publish)
        let sweep = try band.map { try checkedBand($0, within: analyzer.tunableRange) } ?? analyzer.tunableRange
        let unit = analyzer.tune(to: sweep)
        let serving = Locked(Serving(source: source, analyzer: analyzer, selection: selection, band: sweep,
                                     binWidthHz: binWidthHz))
        let made = SensorHub(
            analyzer: .init(name: analyzer.name, kind: analyzer.kind.rawValue, serial: analyzer.serial,
                            unit: unit, isDemo: analyzer.isDemo,
                            tunableRange: analyzer.tunableRange, stallSeconds: analyzer.stallSeconds,
                            settings: analyzer.settingsLine ?? "", settingsJSON: analyzer.jsonSettings,
                            detector: detector, detectsFromSamples: analyzer.kind.detectsFromSamples),
            sweep: sweep, binWidthHz: binWidthHz,
            retune: { band, binWidth in
                let now = serving.withLock { serving -> Serving in
                    serving.band = band
                    serving.binWidthHz = binWidth
                    return serving
                }
                now.analyzer.tune(to: band)
                try now.source.retune(to: band, binWidthHz: binWidth)
            },
            changeSettings: { changes in try Self.change(serving, to: changes, detector: detector, onFrame: publish) })
        hub.withLock { $0 = made }
        try source.start(band: sweep, binWidthHz: binWidthHz)
        defer { serving.value.source.stop() }
        made.updateTiming(Self.timing(of: source))
        let server = SensorServer(hub: made, listen: listen, token: token, controlToken: controlToken,
                                  certificate: certificate)
        let bound = try server.start()
        defer { server.stop() }
        listening(bound, analyzer)
        let latch = stop ?? CompletionLatch<Int32>()
        _ = latch.wait(onSignal: SIGTERM, tickSeconds: 0.25) {
            let source = serving.value.source
            counters.withLock { $0 = source.counters }
            made.updateTiming(Self.timing(of: source))
            made.publishOutage(source.statusLine)
        }
    }

    /// each detector's dwell and revisit in the source's running plan (none where the device detects)
    private static func timing(of source: ReconnectingSpectrumSource) -> [SpectrumDetector: DwellTiming] {
        Dictionary(uniqueKeysWithValues: SpectrumDetector.allCases.compactMap { detector in
            source.dwellTiming(by: detector).map { (detector, $0) }
        })
    }

    /// A viewer holding control changed the analyzer's settings: the same
    /// analyzer is opened again with them (and its calibration's gain
    /// correction for them) on the band it sweeps, then the old one closed.
    /// Settings already in force change nothing.
    private static func change(_ serving: Locked<Serving>, to changes: [String: String], detector: SpectrumDetector,
                               onFrame: @escaping @Sendable (SpectrumFrame) -> Void) throws
        -> (settings: String, settingsJSON: String, unit: PowerUnit) {
        let now = serving.value
        let settings: AnalyzerSettings
        do { settings = try now.selection.settings.updated(with: changes) } catch { throw CommandError(error.description) }
        if let problem = settings.problem(for: now.analyzer.kind) { throw CommandError(problem) }
        guard settings != now.selection.settings else {
            return (now.analyzer.settingsLine ?? "", now.analyzer.jsonSettings, now.analyzer.powerUnit)
        }
        var selection = now.selection
        selection.settings = settings
        // the analyzer chosen, not `auto` again: another might have been plugged in since
        selection.device = now.analyzer.choice ?? now.selection.device
        selection.serial = now.analyzer.serial ?? now.selection.serial
        let (source, analyzer) = try selection.spectrumSource(headless: false, detector: detector, onFrame: onFrame)
        let unit = analyzer.tune(to: now.band)
        now.source.stop()
        try source.start(band: now.band, binWidthHz: now.binWidthHz)
        serving.withLock { serving in
            serving.source = source
            serving.analyzer = analyzer
            serving.selection = selection
        }
        return (analyzer.settingsLine ?? "", analyzer.jsonSettings, unit)
    }

    private func checkedBand(_ band: FrequencyRange, within limits: FrequencyRange) throws -> FrequencyRange {
        guard band.lowerHz >= limits.lowerHz, band.upperHz <= limits.upperHz else {
            throw CommandError("--band \(band) is outside what the analyzer tunes (\(limits))")
        }
        return band
    }
}

/// Who may reach a sensor, decided before it listens: the token given; else,
/// on an address other than loopback without TLS, a token made and kept at
/// `generatedTokenPath` (readable by its owner only) that viewers must
/// present — unless `insecure` opens it to anyone who reaches the port.
public struct ServeAccess: Sendable, Equatable {
    /// the bearer token viewers present; nil: none needed
    public var token: String?
    /// what the "serving …" line adds about it ("" when nothing is notable)
    public var note: String

    public static func decide(givenToken: String?, tokenFileGiven: Bool, tls: Bool, host: String, insecure: Bool,
                              generatedTokenPath: String = SensorAccess.defaultTokenPath) throws -> ServeAccess {
        if givenToken != nil || tls || SensorAccess.isLoopback(host) {
            return ServeAccess(token: givenToken, note: tokenFileGiven ? " (token required)" : "")
        }
        if insecure {
            return ServeAccess(token: nil, note: " (--insecure: no token, no TLS: anyone who reaches it can watch and retune)")
        }
        return ServeAccess(token: try SensorAccess.generatedToken(at: generatedTokenPath),
                           note: " (token required: viewers give --token-file with a copy of \(generatedTokenPath))")
    }
}
#endif
