import DSP
import Signals

/// An analyzer behind a frequency converter (`--frequency-offset`,
/// `--spectrum-inverted`), seen in real frequencies: its tunable range and
/// the bands asked of it are real; it tunes the converted ones. Its frames
/// stay in tuned frequencies here: a calibration (made on the analyzer
/// itself) is applied to them first, then `FrequencyConversion.toReal`
/// (`DeviceSelection.spectrumSource` does both, in that order).
public final class ConvertedSpectrumSource: SpectrumSource {
    private let inner: any SpectrumSource
    private let conversion: FrequencyConversion

    public init(_ inner: any SpectrumSource, conversion: FrequencyConversion) {
        self.inner = inner
        self.conversion = conversion
    }

    /// the range a converter in front of it reaches; the analyzer's own if none fits above 0 Hz
    public var tunableRange: FrequencyRange { conversion.real(inner.tunableRange) ?? inner.tunableRange }
    public var counters: SpectrumSourceCounters { inner.counters }
    public var dwellTiming: DwellTiming? { inner.dwellTiming }
    public func dwellTiming(by detector: SpectrumDetector) -> DwellTiming? { inner.dwellTiming(by: detector) }

    public func start(band: FrequencyRange, binWidthHz: Double) throws {
        try inner.start(band: try tuned(band), binWidthHz: binWidthHz)
    }

    public func retune(to band: FrequencyRange, binWidthHz: Double) throws {
        try inner.retune(to: try tuned(band), binWidthHz: binWidthHz)
    }

    public func stop() { inner.stop() }

    private func tuned(_ band: FrequencyRange) throws -> FrequencyRange {
        guard let tuned = conversion.tuned(band) else {
            throw ConversionError(message: "\(band) with a converter of \(conversion) would tune below 0 Hz")
        }
        return tuned
    }

    /// The factory's sources, each behind the converter.
    public static func factory(_ factory: @escaping SpectrumSourceFactory,
                               conversion: FrequencyConversion) -> SpectrumSourceFactory {
        { onFrame, onEnd in
            let opened = try factory(onFrame, onEnd)
            return ConnectedSpectrumSource(source: ConvertedSpectrumSource(opened.source, conversion: conversion),
                                           close: opened.close)
        }
    }
}

/// A band a converter cannot reach.
public struct ConversionError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
