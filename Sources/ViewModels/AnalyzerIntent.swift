import Signals

/// What the user asked the analyzer to do, independent of the key or gesture
/// that asked. Intents only change settings; the viewer reconfigures the
/// device from the model's tuning.
public enum AnalyzerIntent: Sendable, Equatable {
    /// the spectrum plot's own intents (pan, zoom, gain, autoscale, pause, quit)
    case plot(PlotIntent)
    /// multiply the span keeping `anchorHz` under the pointer
    case zoom(factor: Double, anchorHz: Double)
    /// move the plot's dB window [dB] (positive = show higher levels)
    case shiftLevels(decibels: Double)
    case show(AnalyzerMode)
    case nextMode
    /// waterfall: move back (positive) or towards now [s]
    case scrollTime(seconds: Double)
    /// waterfall: back to live
    case scrollToNow
    /// waterfall: longer (+) or shorter (−) history period, in list steps
    case stepPeriod(Int)
    /// persistence: longer (+) or shorter (−) persistence time, in list steps
    case stepPersistence(Int)
    /// zero span: longer (+) or shorter (−) sweep time, in list steps
    case stepZeroSpanSweep(Int)
    /// zero span: wider (+) or narrower (−) RBW, in list steps
    case stepZeroSpanRBW(Int)
    /// zero span: a trigger at the trace's mid level, or free run (t)
    case toggleZeroSpanTrigger
    /// meter: forget min, max and peak
    case resetMeter
    case toggleDrawer
    case toggleHelp
    /// a key for the open drawer
    case drawer(DrawerIntent)
    /// drawer slider: put the thumb of `field` at `hz`
    case setThumb(DrawerField, hz: Double)
    /// replay: playhead and speed
    case replay(ReplayIntent)
    /// replay: the typed "go to" time (g, digits, Enter)
    case timeEntry(TimeEntryIntent)
    /// start or stop recording what is shown (r, R)
    case toggleRecording
    /// the plot's trace: live → max hold → min hold → average → live (t)
    case cycleTrace
    /// markers: m highest peak, n/N next peak right/left, M next marker, x delta
    case marker(MarkerIntent)
    /// s: the shown trace becomes the reference; S: no reference
    case storeReference
    case clearReference
    /// b: the band plan's channel grid across the plot on or off (with a --band-plan)
    case toggleChannelGrid
    /// e: the plot's measurement, off → harmonics → TOI → ACPR → noise marker → off
    case cycleMeasurement
}

/// What a marker key asks; the viewer carries it out on the shown trace.
public enum MarkerIntent: Sendable, Equatable {
    case highestPeak
    case nextPeak(right: Bool)
    case cycle
    case toggleDelta
}

/// Keys of the replay's "go to" line: `g` opens it, digits, `:` and `.`
/// type, Backspace erases, Enter seeks, Esc cancels.
public enum TimeEntryIntent: Sendable, Equatable {
    case begin
    case type(Character)
    case erase
    case commit
    case cancel
}

/// What a key does inside the open drawer.
public enum DrawerIntent: Sendable, Equatable {
    /// move the focus to the next (+1) or previous (−1) field
    case focus(Int)
    /// put the focus on this field
    case select(DrawerField)
    /// nudge the focused value by steps (large: ten times the step)
    case adjust(steps: Int, large: Bool)
    /// a typed character for the numeric field
    case type(Character)
    case erase
    /// start typing into the focused field (a choice field switches instead)
    case edit
    /// apply the typed value
    case commit
    /// drop the typed value, or close when there is none
    case cancel
}
