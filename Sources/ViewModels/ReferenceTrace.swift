import DSP
import Signals

/// A stored reference trace resampled onto a frame's bins (linear
/// interpolation between its points), kept until the points or the bins
/// change, so subtracting it from every frame costs one pass and no
/// allocation.
public struct ReferenceTrace: Sendable {
    public let points: [LevelPoint]
    /// the reference on the bins last asked for [dB]
    public private(set) var onBins = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
    private var builtFor: (startHz: Double, binWidthHz: Double, count: Int)?

    public init(points: [LevelPoint]) { self.points = points }

    /// The reference on `frame`'s bins.
    public mutating func resampled(to frame: SpectrumFrame) -> SpectrumFrame {
        if let built = builtFor, built.startHz == frame.startHz, built.binWidthHz == frame.binWidthHz,
           built.count == frame.powerDB.count {
            return onBins
        }
        onBins.startHz = frame.startHz
        onBins.binWidthHz = frame.binWidthHz
        onBins.powerDB = frame.powerDB.indices.map { LevelPoint.interpolate(points, at: frame.binCenterHz($0)) }
        builtFor = (frame.startHz, frame.binWidthHz, frame.powerDB.count)
        return onBins
    }

    /// live − reference [dB], bin by bin, in place.
    public mutating func subtract(from frame: inout SpectrumFrame) {
        let reference = resampled(to: frame)
        frame.powerDB.withUnsafeMutableBufferPointer { values in
            reference.powerDB.withUnsafeBufferPointer { levels in
                for i in 0..<values.count { values[i] -= levels[i] }
            }
        }
        // a difference of levels: no tone to read (the window's gain is in both and cancels)
        frame.windowing = nil
    }
}
