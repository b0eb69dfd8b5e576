import DSP
import Foundation
import Signals

/// What the plot asks of the device: the band it shows and the bin width that
/// gives about one bin per pixel column across it; in the zero-span view,
/// power against time at one frequency instead (`zeroSpan`).
public struct TuningRequest: Sendable, Equatable {
    /// visible band [Hz]
    public var band: FrequencyRange
    /// wanted bin width [Hz]
    public var binWidthHz: Double
    /// zero span instead of a spectrum; nil: a spectrum of `band`
    public var zeroSpan: ZeroSpanSettings? = nil
}

/// The instantaneous power-vs-frequency plot as a pure state machine: the
/// visible band, the displayed dB range, pause, and the plot's pixel size.
/// Intents (keys, later mouse) change it; the app reads `tuning` and
/// reconfigures the device when it changes.
public struct SpectrumPlotModel: Sendable, Equatable {
    /// what the device can tune [Hz]
    public let deviceLimits: FrequencyRange
    /// narrowest band the user can zoom to [Hz]
    public let minimumSpanHz: Double
    /// currently shown band [Hz]
    public private(set) var visibleBand: FrequencyRange
    /// power at the top edge of the plot [dB]
    public private(set) var referenceLevelDB: Double
    /// dB from the bottom to the top edge of the plot; smaller = more display gain
    public private(set) var displaySpanDB: Double
    /// frozen on the frame shown when paused
    public private(set) var isPaused = false
    /// the frequency axis is logarithmic (`--log-frequency`, `l`); shown as
    /// such while the band's lower edge is above 0 Hz (`frequencyScale`)
    public private(set) var logFrequency = false
    /// plot area [pixels]: braille gives 2 per cell across, 4 per cell down
    public private(set) var pixelColumns: Int
    public private(set) var pixelRows: Int

    /// display spans offered by ↑/↓, largest first [dB]
    public static let displaySpans: [Double] = [160, 120, 100, 80, 60, 40, 30, 20, 10]

    public init(deviceLimits: FrequencyRange, visibleBand: FrequencyRange, minimumSpanHz: Double = 100_000,
                referenceLevelDB: Double = 0, displaySpanDB: Double = 100,
                pixelColumns: Int = 160, pixelRows: Int = 80) {
        self.deviceLimits = deviceLimits
        self.minimumSpanHz = minimumSpanHz
        self.visibleBand = visibleBand
        self.referenceLevelDB = referenceLevelDB
        self.displaySpanDB = displaySpanDB
        self.pixelColumns = max(1, pixelColumns)
        self.pixelRows = max(1, pixelRows)
        self.visibleBand = clampedBand(lower: visibleBand.lowerHz, span: visibleBand.spanHz)
    }

    /// power at the bottom edge of the plot [dB]
    public var bottomLevelDB: Double { referenceLevelDB - displaySpanDB }

    /// How the visible band lies across the columns: the one column ↔
    /// frequency function every view, marker and click goes through.
    public var frequencyScale: FrequencyScale { FrequencyScale(band: visibleBand, logarithmic: logFrequency) }

    /// On a logarithmic axis the narrowest (lowest) column sets the bin
    /// width, but the device is asked for at most this many bins per pixel
    /// column across the band; columns narrower than a bin then show the bin
    /// under them.
    public static let logBinsPerColumnLimit = 16.0

    /// The band and bin width the device should deliver for this view: about
    /// one bin per pixel column (the narrowest column on a logarithmic axis).
    public var tuning: TuningRequest {
        TuningRequest(band: visibleBand, binWidthHz: Self.binWidth(for: frequencyScale, columns: pixelColumns))
    }

    /// The bin width that gives each of `columns` across `scale` at least
    /// about one bin [Hz].
    public static func binWidth(for scale: FrequencyScale, columns: Int) -> Double {
        let linear = scale.band.spanHz / Double(max(columns, 1))
        guard scale.isLogarithmic else { return linear }
        return max(scale.narrowestColumnHz(columns: columns), linear / logBinsPerColumnLimit)
    }

    /// `l`: the logarithmic frequency axis on or off.
    public mutating func setLogFrequency(_ on: Bool) { logFrequency = on }

    // MARK: intents

    /// Moves the band by `fraction` of its width on screen (negative = lower
    /// frequencies), stopping at the device's limits: on a logarithmic axis
    /// both edges move by the same ratio, so the picture slides unchanged.
    public mutating func pan(byFractionOfSpan fraction: Double) {
        let scale = frequencyScale
        if scale.isLogarithmic {
            let lower = scale.hz(atFraction: fraction), upper = lower * visibleBand.upperHz / visibleBand.lowerHz
            if lower >= deviceLimits.lowerHz, upper <= deviceLimits.upperHz,
               let band = FrequencyRange(lowerHz: lower, upperHz: upper) {
                visibleBand = band
                return
            }
        }
        let span = visibleBand.spanHz
        visibleBand = clampedBand(lower: visibleBand.lowerHz + fraction * span, span: span)
    }

    /// Multiplies the span by `factor` (< 1 zooms in) keeping `anchorHz` at the
    /// same place on screen (the centre when nil).
    public mutating func zoom(by factor: Double, around anchorHz: Double? = nil) {
        guard factor > 0, factor.isFinite else { return }
        let scale = frequencyScale
        let anchor = anchorHz ?? scale.hz(atFraction: 0.5)
        let anchorFraction = scale.fraction(ofHz: anchor)
        let span = min(max(visibleBand.spanHz * factor, minimumSpanHz), deviceLimits.spanHz)
        guard scale.isLogarithmic, anchor > 0, anchorFraction.isFinite else {
            visibleBand = clampedBand(lower: anchor - anchorFraction * span, span: span)
            return
        }
        // the lower edge that keeps the anchor where it is on the log axis:
        // ln(anchor / lower) = fraction · ln((lower + span) / lower), by bisection (one root, lower ∈ (0, anchor])
        let a = min(max(anchorFraction, 0), 1)
        var low = 0.0, high = anchor
        for _ in 0..<80 {
            let lower = (low + high) / 2
            if log(anchor / lower) - a * log((lower + span) / lower) > 0 { low = lower } else { high = lower }
        }
        visibleBand = clampedBand(lower: (low + high) / 2, span: span)
    }

    /// Shows `band`, clamped to the device.
    public mutating func show(_ band: FrequencyRange) {
        let span = min(max(band.spanHz, minimumSpanHz), deviceLimits.spanHz)
        visibleBand = clampedBand(lower: band.centerHz - span / 2, span: span)
    }

    /// Shows `band` with its edges where asked, within the device and no
    /// narrower than `minimumSpanHz` (widened around its centre if it is).
    public mutating func setBand(_ band: FrequencyRange) {
        guard band.spanHz >= minimumSpanHz else { return show(band) }
        let lower = max(band.lowerHz, deviceLimits.lowerHz)
        let upper = min(band.upperHz, deviceLimits.upperHz)
        visibleBand = clampedBand(lower: lower, span: max(upper - lower, minimumSpanHz))
    }

    /// Sets the dB across the plot to any positive value, keeping the centre level.
    public mutating func setDisplaySpan(_ decibels: Double) {
        guard decibels.isFinite, decibels > 0 else { return }
        let centre = referenceLevelDB - displaySpanDB / 2
        displaySpanDB = decibels
        referenceLevelDB = centre + displaySpanDB / 2
    }

    /// ↑: more display gain (fewer dB across the plot), keeping the centre level.
    public mutating func increaseDisplayGain() { stepDisplaySpan(by: 1) }
    /// ↓: less display gain.
    public mutating func decreaseDisplayGain() { stepDisplaySpan(by: -1) }

    /// Moves the displayed dB window up or down [dB].
    public mutating func shiftLevels(byDB delta: Double) {
        referenceLevelDB += delta
    }

    /// the narrowest window autoscale picks [dB]: a band of pure noise stays
    /// noise-sized instead of being stretched over the whole plot
    public static let autoMinimumSpanDB = 20.0
    /// the floor sits this fraction of the window above the bottom edge, and
    /// the peak at least this fraction below the top (headroom)
    public static let autoMarginFraction = 0.1
    /// continuous auto mode moves the window only when an edge would move by
    /// more than this [dB], so noise does not make it shimmer
    public static let autoToleranceDB = 3.0

    /// The window autoscale picks for a spectrum whose noise floor and
    /// strongest bin are `floorDB` and `peakDB`: the floor a tenth of the
    /// window above the bottom, the peak at least a tenth below the top,
    /// whole dB at both edges. It depends only on the levels, never on the
    /// terminal's size.
    public static func autoWindow(floorDB: Double, peakDB: Double) -> (bottomDB: Double, topDB: Double)? {
        guard floorDB.isFinite, peakDB.isFinite else { return nil }
        let span = max((max(peakDB, floorDB) - floorDB) / (1 - 2 * autoMarginFraction), autoMinimumSpanDB)
        let bottom = (floorDB - autoMarginFraction * span).rounded(.down)
        let top = max(bottom + span, peakDB + autoMarginFraction * span).rounded(.up)
        return (bottom, top)
    }

    /// a zero-span trace whose highest point stands less than this over its floor is flat (a carrier,
    /// noise: `PulseMeasurement` finds no pulse in it either) [dB]
    public static let flatTraceSpreadDB = 10.0

    /// The window for a zero-span trace whose 10th-percentile point and highest point are `floorDB` and
    /// `peakDB`: with pulses, as `autoWindow` places a spectrum (floor near the bottom, peak near the
    /// top); a flat trace in the middle of the narrowest window, as there is no peak to make room for
    /// (a −39 dBm carrier reads in −50…−30 dBm, not at the bottom of −42…−22).
    public static func zeroSpanWindow(floorDB: Double, peakDB: Double) -> (bottomDB: Double, topDB: Double)? {
        guard floorDB.isFinite, peakDB.isFinite else { return nil }
        guard peakDB - floorDB < flatTraceSpreadDB else { return autoWindow(floorDB: floorDB, peakDB: peakDB) }
        let bottom = ((floorDB + max(peakDB, floorDB)) / 2 - autoMinimumSpanDB / 2).rounded(.down)
        return (bottom, bottom + autoMinimumSpanDB)
    }

    /// Shows `window` [dB]; with `tolerance`, only when an edge would move by more than `autoToleranceDB`.
    /// Returns true when the window moved.
    @discardableResult
    public mutating func show(window: (bottomDB: Double, topDB: Double), tolerance: Bool = false) -> Bool {
        guard !tolerance || abs(window.topDB - referenceLevelDB) > Self.autoToleranceDB
                || abs(window.bottomDB - bottomLevelDB) > Self.autoToleranceDB else { return false }
        referenceLevelDB = window.topDB
        displaySpanDB = window.topDB - window.bottomDB
        return true
    }

    /// Places the dB window around observed levels (`autoWindow`).
    public mutating func autoscale(floorDB: Double, peakDB: Double) {
        guard let window = Self.autoWindow(floorDB: floorDB, peakDB: peakDB) else { return }
        referenceLevelDB = window.topDB
        displaySpanDB = window.topDB - window.bottomDB
    }

    /// Continuous auto mode: autoscale, but only when the wanted window's
    /// top or bottom is more than `autoToleranceDB` from the current one.
    /// Returns true when the window moved.
    @discardableResult
    public mutating func followLevels(floorDB: Double, peakDB: Double) -> Bool {
        guard let window = Self.autoWindow(floorDB: floorDB, peakDB: peakDB),
              abs(window.topDB - referenceLevelDB) > Self.autoToleranceDB
                || abs(window.bottomDB - bottomLevelDB) > Self.autoToleranceDB else { return false }
        referenceLevelDB = window.topDB
        displaySpanDB = window.topDB - window.bottomDB
        return true
    }

    /// Space: pause, or resume at the newest frame.
    public mutating func togglePause() { isPaused.toggle() }

    /// The plot area changed size [pixels].
    public mutating func resize(pixelColumns: Int, pixelRows: Int) {
        self.pixelColumns = max(1, pixelColumns)
        self.pixelRows = max(1, pixelRows)
    }

    // MARK: helpers

    private mutating func stepDisplaySpan(by steps: Int) {
        let spans = Self.displaySpans
        let current = spans.firstIndex(where: { $0 <= displaySpanDB }) ?? spans.count - 1
        let next = min(max(current + steps, 0), spans.count - 1)
        let centre = referenceLevelDB - displaySpanDB / 2
        displaySpanDB = spans[next]
        referenceLevelDB = centre + displaySpanDB / 2
    }

    private func clampedBand(lower: Double, span: Double) -> FrequencyRange {
        let width = min(span, deviceLimits.spanHz)
        let start = min(max(lower, deviceLimits.lowerHz), deviceLimits.upperHz - width)
        return FrequencyRange(lowerHz: start, upperHz: start + width) ?? deviceLimits
    }
}
