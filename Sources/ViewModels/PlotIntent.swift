/// What the user asked the spectrum plot to do, independent of the key or
/// gesture that asked.
public enum PlotIntent: Sendable, Equatable {
    /// move the band by a fraction of its span (negative = lower)
    case pan(fractionOfSpan: Double)
    /// multiply the span (< 1 zooms in)
    case zoom(factor: Double)
    case increaseDisplayGain
    case decreaseDisplayGain
    /// fit the dB window to the current frame
    case autoscale
    case togglePause
    /// `l`: logarithmic frequency axis on or off
    case toggleLogFrequency
    case quit
}

extension SpectrumPlotModel {
    /// Applies an intent; `.autoscale` and `.quit` need the app and return false.
    @discardableResult
    public mutating func apply(_ intent: PlotIntent) -> Bool {
        switch intent {
        case .pan(let fraction): pan(byFractionOfSpan: fraction)
        case .zoom(let factor): zoom(by: factor)
        case .increaseDisplayGain: increaseDisplayGain()
        case .decreaseDisplayGain: decreaseDisplayGain()
        case .togglePause: togglePause()
        case .toggleLogFrequency: setLogFrequency(!logFrequency)
        case .autoscale, .quit: return false
        }
        return true
    }
}
