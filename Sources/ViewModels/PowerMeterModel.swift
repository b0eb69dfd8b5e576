import DSP
import Foundation
import Signals

/// The power meter: aggregate power over a band (linear sum over bins,
/// weighted by the part of each bin inside the band; `DSP.BandPower`), a
/// smoothed readout, a peak-hold tick and min/max since reset.
public struct PowerMeterModel: Sendable, Equatable {
    /// how long the peak-hold tick stays before it follows the reading down [s]
    public static let peakHoldSeconds = 2.0
    /// time constant of the readout's smoothing (in linear power) [s]
    public static let smoothingSeconds = 0.3

    /// the measured band [Hz]; nil = the visible band
    public private(set) var band: FrequencyRange?
    /// the smoothed reading [dB]; nil before the first measurement
    public private(set) var reading: Double?
    /// the last unsmoothed measurement [dB]
    public private(set) var latest: Double?
    /// the held peak [dB] and when it was set [s]
    public private(set) var peak: Double?
    private var peakTime = 0.0
    /// extremes of the unsmoothed measurements since reset [dB]
    public private(set) var minimum: Double?
    public private(set) var maximum: Double?
    private var lastTime: Double?
    /// the bar's fixed scale: its top [dB] (a multiple of 10); nil before
    /// the first measurement. Set from the measurements only, never from
    /// the terminal or the plot, and moved only when a measurement leaves it.
    public private(set) var scaleTopDB: Double?

    /// dB the bar spans
    public static let scaleSpanDB = 60.0
    /// a new scale puts the measurement this far below its top [dB]
    static let scaleHeadroomDB = 20.0

    /// the bar's bottom [dB]
    public var scaleBottomDB: Double? { scaleTopDB.map { $0 - Self.scaleSpanDB } }

    public init(band: FrequencyRange? = nil) {
        self.band = band
    }

    /// The band measured when the view shows `visible`.
    public func measuredBand(visible: FrequencyRange) -> FrequencyRange { band ?? visible }

    /// Measures `frame` at `time` [s]; a band the frame does not cover leaves
    /// the reading as it was and returns false.
    @discardableResult
    public mutating func measure(_ frame: SpectrumFrame, visible: FrequencyRange, at time: Double) -> Bool {
        guard let decibels = BandPower.decibels(in: measuredBand(visible: visible), of: frame) else { return false }
        record(decibels, at: time)
        return true
    }

    /// Records one measurement [dB] at `time` [s].
    public mutating func record(_ decibels: Double, at time: Double) {
        guard decibels.isFinite else { return }
        latest = decibels
        if let previous = reading, let last = lastTime {
            if time > last {
                // exponential smoothing in linear power: α = 1 − e^(−Δt/τ)
                let alpha = 1 - exp(-(time - last) / Self.smoothingSeconds)
                let linear = Units.power(decibels: previous) * (1 - alpha) + Units.power(decibels: decibels) * alpha
                reading = Units.decibels(power: linear)
                lastTime = time
            }
        } else {
            reading = decibels
            lastTime = time
        }
        if decibels >= peak ?? -.infinity || time - peakTime > Self.peakHoldSeconds {
            peak = decibels
            peakTime = time
        }
        minimum = min(minimum ?? decibels, decibels)
        maximum = max(maximum ?? decibels, decibels)
        if let top = scaleTopDB, decibels <= top, decibels >= top - Self.scaleSpanDB { return }
        scaleTopDB = ((decibels + Self.scaleHeadroomDB) / 10).rounded(.up) * 10
    }

    /// r: forget min, max and the peak.
    public mutating func resetExtremes() {
        minimum = nil
        maximum = nil
        peak = nil
    }

    /// Measures `band` from now on (nil: the visible band); extremes restart.
    public mutating func setBand(_ band: FrequencyRange?) {
        self.band = band
        reading = nil
        latest = nil
        lastTime = nil
        scaleTopDB = nil
        resetExtremes()
    }
}
