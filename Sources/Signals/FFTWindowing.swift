/// How the bins of an FFT-made spectrum were windowed: the window and the
/// FFT length. A tone between two bins reads low in each by the window's
/// coherent gain and its scalloping; knowing the window, a marker can read
/// the tone's own level from the bins around it (`ToneLevel` in DSP).
/// A spectrum made by a device's own resolution filter (tinySA, RF
/// Explorer) has none: its points already read a tone's level.
public struct FFTWindowing: Sendable, Hashable {
    public enum Window: Sendable, Hashable {
        /// the symmetric Hann window 0.5·(1 − cos(2πi/(N−1))): hackrf_sweep's,
        /// and tscope's HackRF sweep, HackRF real-time and SoapySDR paths
        case hann
        /// the periodic Hann window 0.5·(1 − cos(2πi/N)) (the I/Q importer's)
        case periodicHann
        /// one of rtl_power's `-w` windows (the RTL-SDR path)
        case rtlPower(SpectralWindow)
    }

    public var window: Window
    /// N [points]
    public var length: Int

    public init(_ window: Window, length: Int) {
        self.window = window
        self.length = length
    }

    /// Weight of sample `i` (0 ≤ i < length).
    public func weight(_ i: Int) -> Double {
        switch window {
        case .hann: return SpectralWindow.hann(i, length: length)
        case .periodicHann: return SpectralWindow.periodicHann(i, length: length)
        case .rtlPower(let window): return window.weight(i, length: length)
        }
    }
}
