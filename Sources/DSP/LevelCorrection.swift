import Signals
import ThreadKit

/// What `--unit`, `--correction` and `--antenna-factor` ask of the levels.
///
/// A calibrated level (dBm) can be read as the voltage it is across 50 Ω:
/// P = V²/R, so 1 µV across 50 Ω is 2·10⁻¹⁴ W, −106.99 dBm: dBµV = dBm +
/// 106.99 and dBmV = dBm + 46.99. Through an antenna factor
/// (dB/m: the field E [dBµV/m] = V [dBµV] + AF) it is field strength,
/// dBµV/m. `W` keeps dBm in the stream and is how the meter prints its
/// readings. Correction tables (cable loss, preamplifier) add in every unit,
/// on an uncalibrated analyzer too, where they shift its relative dB.
public struct LevelUnits: Sendable, Equatable {
    public enum Reading: String, Sendable, CaseIterable {
        case dBm, dBuV, dBmV, W
    }

    /// 10·log10(50 Ω × 1 mW / (1 µV)²): dBm → dBµV across 50 Ω [dB]
    public static let dBuVAbovedBm = 106.98970004336019
    /// dBm → dBmV across 50 Ω [dB]
    public static let dBmVAbovedBm = 46.98970004336019

    public var reading: Reading
    public var corrections: [LevelCorrectionTable]
    public var antennaFactor: LevelCorrectionTable?

    public init(reading: Reading = .dBm, corrections: [LevelCorrectionTable] = [], antennaFactor: LevelCorrectionTable? = nil) {
        self.reading = reading
        self.corrections = corrections
        self.antennaFactor = antennaFactor
    }

    /// whether levels are left as they come (no unit, no table)
    public var isIdentity: Bool { (reading == .dBm || reading == .W) && corrections.isEmpty && antennaFactor == nil }

    /// The unit levels come out in when they come in `incoming`: an
    /// uncalibrated analyzer's dB stays dB (a voltage needs an absolute power).
    public func unit(from incoming: PowerUnit) -> PowerUnit {
        guard incoming == .dBm else { return incoming }
        if antennaFactor != nil { return .dBuVPerMetre }
        switch reading {
        case .dBm, .W: return .dBm
        case .dBuV: return .dBuV
        case .dBmV: return .dBmV
        }
    }

    /// The whole correction at `frequencyHz` for levels coming in `incoming` [dB]:
    /// the tables, and for dBm the unit's constant and the antenna factor.
    public func offsetDB(atHz frequencyHz: Double, from incoming: PowerUnit) -> Double {
        var offset = corrections.reduce(0) { $0 + $1.correctionDB(atHz: frequencyHz) }
        guard incoming == .dBm else { return offset }
        if let antennaFactor {
            offset += Self.dBuVAbovedBm + antennaFactor.correctionDB(atHz: frequencyHz)
        } else if reading == .dBuV {
            offset += Self.dBuVAbovedBm
        } else if reading == .dBmV {
            offset += Self.dBmVAbovedBm
        }
        return offset
    }

    /// what the status line says: "dBuV/m, AF biconical.csv, + cable.csv"
    public var summary: String? {
        guard !isIdentity else { return nil }
        var parts: [String] = []
        if let antennaFactor { parts.append("AF \(antennaFactor.name)") } else if reading != .dBm { parts.append(reading.rawValue) }
        parts += corrections.map { "+ \($0.name)" }
        return parts.joined(separator: ", ")
    }
}

/// `LevelUnits` applied to frames: the per-bin offsets are computed once per
/// frame geometry and incoming unit and reused, one add per bin. Safe to call
/// from the DSP thread while the band changes (the geometry check sees it).
public final class LiveLevelCorrection: Sendable {
    private struct State {
        var key: (startHz: Double, binWidthHz: Double, count: Int, unit: PowerUnit)?
        var offsets: [Float] = []
    }

    public let units: LevelUnits
    private let state = Guarded(State())

    public init(_ units: LevelUnits) { self.units = units }

    /// Adds each bin's correction to `frame`'s levels (and every detector's, where kept), which are in `incoming`.
    public func apply(to frame: inout SpectrumFrame, incoming: PowerUnit) {
        state.withLock { state in
            let count = frame.powerDB.count
            if let key = state.key, key.startHz == frame.startHz, key.binWidthHz == frame.binWidthHz, key.count == count,
               key.unit == incoming {
                // the offsets made for this geometry
            } else {
                state.key = (frame.startHz, frame.binWidthHz, count, incoming)
                state.offsets = (0..<count).map { Float(units.offsetDB(atHz: frame.binCenterHz($0), from: incoming)) }
            }
            Self.add(state.offsets, to: &frame.powerDB)
            if var levels = frame.everyDetector, levels.allHold(count) {
                frame.everyDetector = nil  // one owner of each array while adding
                levels.forEachPlane { Self.add(state.offsets, to: &$0) }
                frame.everyDetector = levels
            }
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
