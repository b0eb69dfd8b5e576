import DSP
import Devices
import Foundation
import Signals

/// `tscope measure harmonics|toi --check-gain DB`: the bench check of
/// whether the analyzer made a product itself. It measures at the settings
/// given, changes the analyzer's front-end gain by DB (a HackRF's LNA, an
/// RTL-SDR's tuner gain, a tinySA's input attenuation the other way), measures
/// again, and for each product compares its dBc (`DSP.GainCheck` states the
/// rule).
extension MeasureRun {
    /// The front-end gain change the check makes.
    public struct GainStep: Sendable, Equatable {
        /// the settings the second measurement runs at
        public var settings: AnalyzerSettings
        /// the change made [dB] (a snapped RTL-SDR step may differ from the one asked)
        public var changeDB: Double
        /// "LNA 16 dB → 8 dB", "attenuation 10 dB → 20 dB"
        public var description: String
    }

    /// The settings after changing `kind`'s front-end gain by `changeDB`; a
    /// usage error naming what the analyzer takes when it cannot.
    public static func gainStep(_ settings: AnalyzerSettings, kind: AnalyzerKind?, changeDB: Double) throws -> GainStep {
        let asked = FrequencyFormat.trimmed(changeDB, maxFractionDigits: 1)
        guard changeDB != 0, changeDB.isFinite else { throw UsageError("--check-gain \(asked): expected a gain change in dB, e.g. -8") }
        var changed = settings
        switch kind?.id {
        case AnalyzerKind.hackrf.id?:
            let lna = settings.lnaGainDB ?? HackRFGains.sweepDefaults.lnaDB
            let wanted = Double(lna) + changeDB
            guard changeDB.truncatingRemainder(dividingBy: 8) == 0, (0...40).contains(wanted) else {
                let choices = stride(from: -lna, through: 40 - lna, by: 8).filter { $0 != 0 }.map { ($0 > 0 ? "+" : "") + "\($0)" }
                throw UsageError("--check-gain \(asked): a HackRF's LNA gain steps 8 dB over 0–40 dB; from \(lna) dB: "
                    + choices.joined(separator: ", "))
            }
            changed.lnaGainDB = Int(wanted)
            return GainStep(settings: changed, changeDB: changeDB, description: "LNA \(lna) dB → \(Int(wanted)) dB")
        case AnalyzerKind.rtlsdr.id?:
            guard case .manual(let tenths)? = settings.tunerGain else {
                throw UsageError("--check-gain: set the RTL-SDR's tuner gain with --gain DB first (automatic gain would undo the change)")
            }
            guard case .manual(let next) = RTLSDRGain.nearest(dB: Double(tenths) / 10 + changeDB), next != tenths else {
                throw UsageError("--check-gain \(asked): the tuner has no gain step that far from \(Double(tenths) / 10) dB")
            }
            changed.tunerGain = .manual(tenthsDB: next)
            return GainStep(settings: changed, changeDB: Double(next - tenths) / 10,
                            description: "gain \(Double(tenths) / 10) dB → \(Double(next) / 10) dB")
        case AnalyzerKind.tinysa.id?:
            guard case .fixed(let attenuation)? = settings.tinySA.attenuation else {
                throw UsageError("--check-gain: set the tinySA's attenuation with --attenuation DB first (automatic would undo the change)")
            }
            // more gain is less attenuation
            let wanted = Double(attenuation) - changeDB
            guard changeDB == changeDB.rounded(), TinySASettings.attenuationRange.contains(Int(wanted)),
                  wanted == wanted.rounded() else {
                throw UsageError("--check-gain \(asked): the tinySA's attenuation is 0–31 dB in 1 dB steps; it is \(attenuation) dB")
            }
            changed.tinySA.attenuation = .fixed(Int(wanted))
            return GainStep(settings: changed, changeDB: changeDB,
                            description: "attenuation \(attenuation) dB → \(Int(wanted)) dB")
        default:
            throw UsageError("--check-gain needs a HackRF, an RTL-SDR or a tinySA named with --device (their gain or attenuation is set here)")
        }
    }

    /// Measures at `selection`'s settings, then at `step`'s, and prints each product's verdict (text or one JSON line).
    public static func gainCheck(_ selection: DeviceSelection, settings: Settings, step: GainStep,
                                 checkBand: (FrequencyRange, FrequencyRange) throws -> FrequencyRange) throws {
        var frames: [SpectrumFrame] = []
        var unit = PowerUnit.dB
        for pass in 0..<2 {
            var chosen = selection
            if pass == 1 { chosen.settings = step.settings }
            try sweep(chosen, settings: settings, count: 1, checkBand: checkBand) { frame, measuredUnit in
                frames.append(frame)
                unit = measuredUnit
            }
        }
        guard frames.count == 2 else { throw CommandError("measure --check-gain: no trace at one of the two gains") }
        print(try gainCheckReport(settings.kind, before: frames[0], after: frames[1], step: step, unit: unit,
                                  json: settings.json, time: unixTimeNow()))
        fflush(nil)
    }

    /// The check's report on the traces before and after the change.
    public static func gainCheckReport(_ kind: MeasureKind, before: SpectrumFrame, after: SpectrumFrame, step: GainStep,
                                       unit: PowerUnit, json: Bool, time: Double) throws -> String {
        let result: GainCheck.Result
        switch kind {
        case let .harmonics(fundamental, count):
            guard let first = BenchMeasurements.harmonics(fundamentalHz: fundamental, count: count, in: before),
                  let second = BenchMeasurements.harmonics(fundamentalHz: fundamental, count: count, in: after),
                  let compared = GainCheck.compare(first, second, gainChangeDB: step.changeDB) else {
                throw CommandError("measure harmonics: no fundamental near \(FrequencyFormat.label(fundamental, maxFractionDigits: 6)) at one of the gains")
            }
            result = compared
        case let .toi(f1, f2):
            guard let first = BenchMeasurements.intermodulation(f1: f1, f2: f2, in: before),
                  let second = BenchMeasurements.intermodulation(f1: f1, f2: f2, in: after) else {
                throw CommandError("measure toi: the tones or their products are not within the band at one of the gains")
            }
            result = GainCheck.compare(first, second, gainChangeDB: step.changeDB)
        case .acpr, .noise:
            throw UsageError("--check-gain is for harmonics and toi: their products are what an analyzer makes itself")
        }
        func db(_ value: Double) -> String { String(format: "%.2f", value) }
        if json {
            let products = result.products.map {
                "{\"name\":\"\($0.name.replacingOccurrences(of: "−", with: "-"))\",\"order\":\($0.order)"
                    + ",\"frequency_hz\":\(Int64($0.hz.rounded())),\"dbc_before\":\(db($0.dBcBefore)),\"dbc_after\":\(db($0.dBcAfter))"
                    + ",\"moved_db\":\(db($0.movedDB)),\"analyzer_made_moves_db\":\(db($0.analyzerMadeMoveDB))"
                    + ",\"analyzer_made\":\($0.analyzerMade)}"
            }
            return "{\"time\":\"\(MeterLine.utcISO8601(time))\",\"measurement\":\"\(kind.name)\",\"check\":\"gain\""
                + ",\"unit\":\"\(unit.rawValue)\",\"change\":\"\(step.description)\",\"gain_change_db\":\(db(step.changeDB))"
                + ",\"reference_moved_db\":\(db(result.referenceMovedDB)),\"products\":[" + products.joined(separator: ",") + "]}"
        }
        var lines = ["gain check: \(step.description) (\(db(step.changeDB)) dB); the "
                        + (kind.name == "toi" ? "tones" : "fundamental") + " moved \(db(result.referenceMovedDB)) dB",
                     "  product  frequency          dBc before  dBc after   moved   made by"]
        for product in result.products {
            let name = product.name + String(repeating: " ", count: max(0, 8 - product.name.count))
            let frequency = FrequencyFormat.label(product.hz, maxFractionDigits: 6)
            lines.append("  " + name + " " + frequency + String(repeating: " ", count: max(0, 17 - frequency.count))
                + String(format: "%10.2f %10.2f %7.2f   ", product.dBcBefore, product.dBcAfter, product.movedDB)
                + (product.analyzerMade ? "the analyzer" : "the signal"))
        }
        lines.append("a product in the signal keeps its dBc; one the analyzer makes moves (n−1) dB per dB of gain "
            + "(IM3 and H3: 2, H2: 1), called the analyzer's at half that or more")
        return lines.joined(separator: "\n")
    }
}
