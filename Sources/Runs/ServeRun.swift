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

    /// Serves until a stop signal (or `stop` completes); `listening` is told the address bound.
    public func run(stop: CompletionLatch<Int32>? = nil, listening: (RemoteEndpoint, SelectedAnalyzer) -> Void) throws {
        let hub = Locked<SensorHub?>(nil)
        // the analyzer's counters, read on the run's tick (not under the source's locks per frame)
        let counters = Locked(SpectrumSourceCounters())
        let (source, analyzer) = try selection.spectrumSource(
            headless: false, detector: detector,
            onFrame: { frame in hub.value?.publish(frame, counters: counters.value) })
        let sweep = try band.map { try checkedBand($0, within: analyzer.tunableRange) } ?? analyzer.tunableRange
        let made = SensorHub(
            analyzer: .init(name: analyzer.name, kind: analyzer.kind.rawValue, serial: analyzer.serial,
                            unit: analyzer.tune(to: sweep), isDemo: analyzer.isDemo,
                            tunableRange: analyzer.tunableRange, stallSeconds: analyzer.stallSeconds),
            sweep: sweep, binWidthHz: binWidthHz,
            retune: { band, binWidth in
                analyzer.tune(to: band)
                try source.retune(to: band, binWidthHz: binWidth)
            })
        hub.withLock { $0 = made }
        try source.start(band: sweep, binWidthHz: binWidthHz)
        defer { source.stop() }
        let server = SensorServer(hub: made, listen: listen, token: token, certificate: certificate)
        let bound = try server.start()
        defer { server.stop() }
        listening(bound, analyzer)
        let latch = stop ?? CompletionLatch<Int32>()
        _ = latch.wait(onSignal: SIGTERM, tickSeconds: 0.25) {
            counters.withLock { $0 = source.counters }
            made.publishOutage(source.statusLine)
        }
    }

    private func checkedBand(_ band: FrequencyRange, within limits: FrequencyRange) throws -> FrequencyRange {
        guard band.lowerHz >= limits.lowerHz, band.upperHz <= limits.upperHz else {
            throw CommandError("--band \(band) is outside what the analyzer tunes (\(limits))")
        }
        return band
    }
}
