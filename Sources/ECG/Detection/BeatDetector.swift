import Foundation

/// A live QRS detector on one lead: samples in [mV] (NaN holds the last
/// value), the sample index of each R peak out, in time order, within
/// `maximumDelay` of it. `ECGPipeline`, `ecg score` and `ecg detect` take
/// any of them (`BeatDetectorKind`); a new detector is one type conforming
/// to this and one case there.
public protocol BeatDetector: AnyObject {
    var sampleRate: Double { get }
    /// worst-case delay from an R peak to its report, search-back aside [s]
    var maximumDelay: Double { get }
    /// Feeds samples; appends the sample index (since the first sample fed) of each R peak found.
    func process(_ samples: UnsafeBufferPointer<Float>, beats: inout [Int])
    /// Ends the input: runs on through the delay so a beat near the end is reported.
    func finish(beats: inout [Int])
}

extension BeatDetector {
    public func process(_ samples: [Float], beats: inout [Int]) {
        samples.withUnsafeBufferPointer { process($0, beats: &beats) }
    }

    /// Every beat of a whole signal (off-line use of the live detector).
    public func detectAll(_ samples: [Float]) -> [Int] {
        var beats: [Int] = []
        beats.reserveCapacity(Int(Double(samples.count) / sampleRate * 4) + 16)
        process(samples, beats: &beats)
        finish(beats: &beats)
        return beats
    }
}

extension QRSDetector: BeatDetector {}

/// The QRS detectors tscope has (`--qrs-detector`).
public enum BeatDetectorKind: String, CaseIterable, Sendable {
    /// Pan and Tompkins (1985) with matched filters (`QRSDetector`)
    case panTompkins = "pan-tompkins"
    /// Kalidas and Tamil's stationary-wavelet detector (2017) (`SWTQRSDetector`)
    case swt
    /// both, each beat from the one that does better in the noise at its time (`AutoBeatDetector`)
    case auto

    /// the default, chosen by the measured table (Docs/ecg.md, "Choosing the QRS detector")
    /// (auto: mean F1 0.972 over 38 rows, against 0.959 for Pan–Tompkins and 0.950 for the wavelet alone)
    public static let standard = BeatDetectorKind.auto

    public func make(sampleRate: Double) -> any BeatDetector {
        switch self {
        case .panTompkins: return QRSDetector(sampleRate: sampleRate)
        case .swt: return SWTQRSDetector(sampleRate: sampleRate)
        case .auto: return AutoBeatDetector(sampleRate: sampleRate)
        }
    }

    /// "Pan–Tompkins (matched filters)", "stationary wavelet (Kalidas & Tamil)"
    public var title: String {
        switch self {
        case .panTompkins: return "Pan–Tompkins with matched filters"
        case .swt: return "stationary wavelet, Kalidas & Tamil"
        case .auto: return "by noise: stationary wavelet in muscle noise, else Pan–Tompkins"
        }
    }

    /// The beats of a whole signal.
    public func detect(_ samples: [Float], sampleRate: Double) -> [Int] {
        make(sampleRate: sampleRate).detectAll(samples)
    }
}
