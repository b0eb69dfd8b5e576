import Foundation
import Signals

/// One scan as a file lists it: (frequency, level) points in increasing
/// frequency, and when it was taken. `frame` places them on the regular bins
/// of a `SpectrumFrame`, which every other part of tscope reads.
struct ScanTrace {
    /// point frequencies [Hz], strictly increasing
    var frequenciesHz: [Double] = []
    /// level per point, in the file's unit (dBm); NaN where the file says it has no data
    var levels: [Float] = []
    /// how finely the file prints frequencies [Hz] (1000 for whole kHz): a point may lie this far/2 off its grid;
    /// no finer than 1 mHz, however many decimals a file prints (a fuzz finding: 10⁻⁹⁴ Hz made every gap
    /// too many units for an Int)
    var resolutionHz = 1.0 {
        didSet { if !(resolutionHz >= Self.finestResolutionHz) { resolutionHz = Self.finestResolutionHz } }
    }
    static let finestResolutionHz = 1e-3
    /// when the scan was taken [s since the Unix epoch, UTC]
    var timestamp = 0.0

    /// the most bins a scan's grid may have (its points are a few thousand; the
    /// grid holds gaps between unevenly spaced points)
    static let maxBins = 1 << 21

    /// Why the points fit no regular grid, for `frame`.
    struct NoGrid: Error {
        var detail: String
    }

    /// The points on one regular grid: bin i's centre is the first point's
    /// frequency + i × step, every point in the bin nearest it, bins between
    /// points NaN.
    ///
    /// The step is the most common spacing between neighbours (as printed),
    /// divided by 1, 2, 3 … until every point falls on the grid: first exactly
    /// as printed (but no finer than two units of the printed resolution,
    /// which every point lies on), else within half the printed resolution
    /// (a point printed rounded). Each divisor is tried as it is and stretched to divide the
    /// whole span evenly (a step printed rounded, such as RF Explorer's
    /// 200.000002980232 kHz). A WWB CSV at 12.5 kHz with 6.25 kHz points
    /// around a carrier printed to 100 Hz (the coordination fixture
    /// `wwb-style-572-636-head.csv`) gets a 6.25 kHz grid; a WSM file whose
    /// rows step by 1150 and 1175 kHz (`wsm-import-from-sheets-converter.csv`)
    /// a 25 kHz one.
    func frame() throws(NoGrid) -> SpectrumFrame {
        let count = frequenciesHz.count
        guard let first = frequenciesHz.first, let last = frequenciesHz.last else {
            throw NoGrid(detail: "no points")
        }
        // a single point: one bin as wide as the file's printing resolution
        guard count > 1 else {
            let width = max(resolutionHz, 1)
            return SpectrumFrame(startHz: first - width / 2, binWidthHz: width, timestamp: timestamp, powerDB: levels)
        }
        let span = last - first
        // a span of more grid units than an Int holds is no scan (and would trap converting to Int)
        guard span.isFinite, span / resolutionHz < 1e15 else {
            throw NoGrid(detail: "the frequencies span \(FrequencyFormat.label(span, maxFractionDigits: 0)): no scan is that wide")
        }
        let typical = mostCommonGap()
        let exact = resolutionHz * 1e-3 + abs(last) * 1e-12
        for tolerance in [exact, resolutionHz / 2 * 1.001 + abs(last) * 1e-12] {
            var divisor = 1
            while true {
                let asPrinted = typical / Double(divisor)
                let bins = Int((span / asPrinted).rounded())
                if bins + 1 > Self.maxBins { break }
                // every point printed to the resolution lies on a grid of the resolution itself: taken only
                // when it is the file's own spacing, else a step a rounded point is near comes first
                if tolerance == exact && divisor > 1 && asPrinted < 2 * resolutionHz { break }
                for step in [asPrinted, span / Double(max(bins, 1))] where bins >= count - 1 {
                    if let indices = gridIndices(step: step, tolerance: tolerance) {
                        var values = [Float](repeating: .nan, count: indices[indices.count - 1] + 1)
                        for (index, level) in zip(indices, levels) { values[index] = level }
                        return SpectrumFrame(startHz: first - step / 2, binWidthHz: step, timestamp: timestamp,
                                             powerDB: values)
                    }
                }
                divisor += 1
            }
        }
        throw NoGrid(detail: "the \(count) frequencies lie on no regular grid of at most \(Self.maxBins) points "
            + "(printed to \(FrequencyFormat.label(resolutionHz, maxFractionDigits: 3)))")
    }

    /// the spacing between neighbours seen most often, in whole units of the printed resolution [Hz]
    private func mostCommonGap() -> Double {
        var counts: [Int: Int] = [:]
        for (next, point) in zip(frequenciesHz.dropFirst(), frequenciesHz) {
            counts[Int(((next - point) / resolutionHz).rounded()), default: 0] += 1
        }
        let units = counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }!.key
        return Double(max(units, 1)) * resolutionHz
    }

    /// each point's bin on a grid of `step` from the first point; nil if one is off the grid or two share a bin
    private func gridIndices(step: Double, tolerance: Double) -> [Int]? {
        let first = frequenciesHz[0]
        var indices: [Int] = []
        indices.reserveCapacity(frequenciesHz.count)
        for hz in frequenciesHz {
            let index = Int(((hz - first) / step).rounded())
            guard abs(hz - (first + Double(index) * step)) <= tolerance, index > (indices.last ?? -1) else { return nil }
            indices.append(index)
        }
        return indices
    }
}

/// The frames of a scan file, read at once and handed out in order: a scan is
/// one frame per data set (WWB's .sdb2) or per sweep (RF Explorer's
/// cumulative CSV), and no time series beyond that.
package final class ScanFileReader: SpectrumFrameReader {
    package let metadata: CaptureMetadata
    package let skipped = 0
    private let frames: [SpectrumFrame]
    private let totalBytes: Int
    private var index = 0

    package var progress: (done: Int, total: Int?) {
        (frames.isEmpty ? totalBytes : totalBytes * index / frames.count, totalBytes)
    }

    init(metadata: CaptureMetadata, frames: [SpectrumFrame], totalBytes: Int) {
        self.metadata = metadata
        self.frames = frames
        self.totalBytes = totalBytes
    }

    package func next(into frame: inout SpectrumFrame) throws -> Bool {
        guard index < frames.count else { return false }
        frame = frames[index]
        index += 1
        return true
    }
}

/// The metadata every scan reader starts from: levels in `unit` (dBm in
/// every coordination format), stated as a recording states them.
func scanMetadata(format: String, unit: PowerUnit = .dBm) -> CaptureMetadata {
    var metadata = CaptureMetadata(format: format)
    metadata.gains = unit.recordedToken
    return metadata
}

/// The file's modification time [s since the Unix epoch]: when the scan was
/// saved, the best a format that states no time (a WWB or RF Explorer
/// two-column CSV) can tell; 0 if the file system does not say.
func fileModificationTime(_ path: String) -> Double {
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    return (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
}

/// A scan format read whole from its text (`ScanText`): from a path, or from bytes (the fuzz harnesses).
package protocol ScanFileFormat {
    static func read(_ file: ScanText, options: CaptureReadOptions) throws -> ScanFileReader
}

extension ScanFileFormat {
    static func read(path: String, options: CaptureReadOptions) throws -> ScanFileReader {
        try read(try ScanText(path: path), options: options)
    }

    /// A scan from its bytes, `name` standing for the file in messages.
    package static func read(bytes: [UInt8], name: String, options: CaptureReadOptions) throws -> any SpectrumFrameReader {
        try read(try ScanText(path: name, bytes: bytes), options: options)
    }
}
