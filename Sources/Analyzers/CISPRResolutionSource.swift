import DSP
import Signals

/// An analyzer whose FFT bins are made for a CISPR 16-1-1 bandwidth
/// (`--rbw cispr`): every band asked of it is started with the bin width
/// whose Hann 6 dB bandwidth is the band's (`CISPRResolution.binWidthHz`),
/// whatever width the asker wanted (a view asks for about one bin per pixel
/// column; its columns then show the largest of the CISPR-wide bins under
/// them). It sits outside a frequency converter, so the CISPR band is
/// chosen from the real frequencies (`DeviceSelection.spectrumSource`).
public final class CISPRResolutionSource: SpectrumSource {
    private let inner: any SpectrumSource
    public let resolution: CISPRResolution

    public init(_ inner: any SpectrumSource, resolution: CISPRResolution) {
        self.inner = inner
        self.resolution = resolution
    }

    public var tunableRange: FrequencyRange { inner.tunableRange }
    public var counters: SpectrumSourceCounters { inner.counters }
    public var dwellTiming: DwellTiming? { inner.dwellTiming }
    public func dwellTiming(by detector: SpectrumDetector) -> DwellTiming? { inner.dwellTiming(by: detector) }

    public func start(band: FrequencyRange, binWidthHz: Double) throws {
        try inner.start(band: band, binWidthHz: try resolution.binWidthHz(for: band))
    }

    public func retune(to band: FrequencyRange, binWidthHz: Double) throws {
        try inner.retune(to: band, binWidthHz: try resolution.binWidthHz(for: band))
    }

    public func stop() { inner.stop() }

    /// The factory's sources, each with CISPR-wide bins.
    public static func factory(_ factory: @escaping SpectrumSourceFactory,
                               resolution: CISPRResolution) -> SpectrumSourceFactory {
        { onFrame, onEnd in
            let opened = try factory(onFrame, onEnd)
            return ConnectedSpectrumSource(source: CISPRResolutionSource(opened.source, resolution: resolution),
                                           close: opened.close)
        }
    }
}
