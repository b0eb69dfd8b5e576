import Signals
import ThreadKit

/// A calibration applied to frames: per bin the table's offset (linear in dB
/// between its points, held flat beyond its ends) plus the gain correction
/// (the table's gain minus the analyzer's now). The per-bin offsets are
/// computed once per frame geometry and reused: applying them is one add per bin.
public struct CalibrationCorrection: Sendable {
    public let table: CalibrationTable
    /// added to every bin besides the table's offsets: the gain it was made at minus the gain now [dB]
    public let gainCorrectionDB: Double

    private var geometry: (startHz: Double, binWidthHz: Double, count: Int)?
    private var offsets: [Float] = []

    /// - Parameter gainDB: the analyzer's total gain now [dB]; nil (unknown) is taken as the table's own
    public init(table: CalibrationTable, gainDB: Double?) {
        self.table = table
        if let now = gainDB, let made = table.gainDB { gainCorrectionDB = made - now } else { gainCorrectionDB = 0 }
    }

    /// whether every frequency of `band` lies within the calibrated range
    public func covers(_ band: FrequencyRange) -> Bool {
        guard let covered = table.coveredHz else { return false }
        return covered.contains(band.lowerHz) && covered.contains(band.upperHz)
    }

    /// The offset for a bin centred at `frequencyHz` [dB]: interpolated
    /// inside the calibrated range, the nearest end's outside it.
    public func offsetDB(atHz frequencyHz: Double) -> Double {
        guard let covered = table.coveredHz else { return gainCorrectionDB }
        let clamped = min(max(frequencyHz, covered.lowerBound), covered.upperBound)
        return (table.offsetDB(atHz: clamped) ?? 0) + gainCorrectionDB
    }

    /// Adds each bin's offset to `frame`'s levels (NaN stays NaN).
    public mutating func apply(to frame: inout SpectrumFrame) {
        let count = frame.powerDB.count
        let wanted = (startHz: frame.startHz, binWidthHz: frame.binWidthHz, count: count)
        if geometry.map({ $0 != wanted }) ?? true {
            geometry = wanted
            offsets = (0..<count).map { Float(offsetDB(atHz: frame.binCenterHz($0))) }
        }
        Self.add(offsets, to: &frame.powerDB)
        // every detector's levels, where the source kept them all (a sensor's viewers read them in dBm too)
        if var levels = frame.everyDetector, levels.allHold(count) {
            frame.everyDetector = nil  // one owner of each array while adding
            levels.forEachPlane { Self.add(offsets, to: &$0) }
            frame.everyDetector = levels
        }
    }

    private static func add(_ offsets: [Float], to levels: inout [Float]) {
        offsets.withUnsafeBufferPointer { offset in
            levels.withUnsafeMutableBufferPointer { power in
                for i in 0..<min(offset.count, power.count) { power[i] += offset[i] }
            }
        }
    }
}

/// A calibration on a live analyzer: frames are corrected while the band
/// tuned lies within the calibrated range, and left in dB outside it, so a
/// reading is never called dBm where the calibration does not reach.
/// `tune(to:)` is called when the band changes; `correct` on the DSP thread.
public final class LiveCalibration: Sendable {
    private struct State {
        var correction: CalibrationCorrection
        var active = false
    }

    private let state: Guarded<State>
    public let table: CalibrationTable
    /// the unit of uncorrected levels (an SDR's dB)
    public let uncalibratedUnit: PowerUnit
    /// why the table cannot apply at all, or nil: a table made at a known
    /// gain on an analyzer whose gain is not known now (automatic), or the
    /// other way round, would read wrong by the difference nobody knows
    public let unusable: String?

    public init(table: CalibrationTable, gainDB: Double?, uncalibratedUnit: PowerUnit = .dB) {
        self.table = table
        self.uncalibratedUnit = uncalibratedUnit
        switch (table.gainDB, gainDB) {
        case (.some, .none): unusable = "gain auto"
        case (.none, .some): unusable = "made at gain auto"
        default: unusable = nil
        }
        state = Guarded(State(correction: CalibrationCorrection(table: table, gainDB: gainDB)))
    }

    /// the gain correction in use [dB]
    public var gainCorrectionDB: Double { state.withLock { $0.correction.gainCorrectionDB } }

    /// Starts (or stops) correcting for a newly tuned band; returns the unit its levels are in.
    @discardableResult
    public func tune(to band: FrequencyRange) -> PowerUnit {
        let usable = unusable == nil
        return state.withLock { state in
            state.active = usable && state.correction.covers(band)
            return state.active ? .dBm : uncalibratedUnit
        }
    }

    /// whether frames are being corrected
    public var isActive: Bool { state.withLock { $0.active } }

    /// the unit levels are in now
    public var unit: PowerUnit { isActive ? .dBm : uncalibratedUnit }

    /// `frame`, corrected when the tuned band is calibrated.
    public func correct(_ frame: SpectrumFrame) -> SpectrumFrame {
        var frame = frame
        state.withLock { state in
            if state.active { state.correction.apply(to: &frame) }
        }
        return frame
    }
}
