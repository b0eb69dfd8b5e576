import Signals

/// What the plot asks of the device: the band it shows and the bin width that
/// gives about one bin per pixel column across it.
public struct TuningRequest: Sendable, Equatable {
    /// visible band [Hz]
    public var band: FrequencyRange
    /// wanted bin width [Hz]
    public var binWidthHz: Double
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

    /// The band and bin width the device should deliver for this view.
    public var tuning: TuningRequest {
        TuningRequest(band: visibleBand, binWidthHz: visibleBand.spanHz / Double(pixelColumns))
    }

    // MARK: intents

    /// Moves the band by `fraction` of its span (negative = lower frequencies),
    /// stopping at the device's limits.
    public mutating func pan(byFractionOfSpan fraction: Double) {
        let span = visibleBand.spanHz
        visibleBand = clampedBand(lower: visibleBand.lowerHz + fraction * span, span: span)
    }

    /// Multiplies the span by `factor` (< 1 zooms in) keeping `anchorHz` at the
    /// same place on screen (the centre when nil).
    public mutating func zoom(by factor: Double, around anchorHz: Double? = nil) {
        guard factor > 0, factor.isFinite else { return }
        let anchor = anchorHz ?? visibleBand.centerHz
        let anchorFraction = (anchor - visibleBand.lowerHz) / visibleBand.spanHz
        let span = min(max(visibleBand.spanHz * factor, minimumSpanHz), deviceLimits.spanHz)
        visibleBand = clampedBand(lower: anchor - anchorFraction * span, span: span)
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

    /// Places the dB window around observed levels: the bottom edge on a
    /// 10 dB line 5–15 dB below the floor, the peak at least 5 dB below the top.
    public mutating func autoscale(floorDB: Double, peakDB: Double) {
        guard floorDB.isFinite, peakDB.isFinite else { return }
        let wanted = max(peakDB - floorDB + 20, 20)
        displaySpanDB = Self.displaySpans.last(where: { $0 >= wanted }) ?? Self.displaySpans[0]
        let bottom = ((floorDB - 5) / 10).rounded(.down) * 10
        referenceLevelDB = bottom + displaySpanDB
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
