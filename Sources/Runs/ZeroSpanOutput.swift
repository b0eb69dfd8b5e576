import DSP
import Foundation
import Signals

/// `tscope zerospan`'s lines: per trace its time, its pulses and their
/// timing, as text or one JSON object. Pulse times count from the trigger
/// (negative before it) when triggered, from the trace's first point when
/// free-running; the trace's own time counts samples since the stream began.
struct ZeroSpanOutput: Sendable {
    let request: ZeroSpanRequest
    let plan: ZeroSpanPlan
    let unit: PowerUnit
    let device: String

    private func number(_ value: Double?, _ digits: Int = 9) -> String {
        guard let value, value.isFinite else { return "null" }
        return String(format: "%.\(digits)g", value)
    }

    func trace(_ levels: [Float], number index: Int, firstSample: Int, preTriggerPoints: Int, droppedSamples: Int) {
        let train = PulseMeasurement.measure(levelsDB: levels, pointSeconds: plan.pointSeconds,
                                             sampleSeconds: 1 / plan.sampleRateHz)
        let zero = request.trigger == nil ? 0 : Double(preTriggerPoints) * plan.pointSeconds
        let traceSeconds = Double(firstSample) / plan.sampleRateHz
        var line: String
        if request.json {
            let pulses = train.pulses.map { pulse in
                "{\"start_s\":\(number(pulse.startSeconds - zero)),\"width_s\":\(number(pulse.widthSeconds)),"
                    + "\"peak_db\":\(number(pulse.peakDB, 5)),\"rise_s\":\(number(pulse.riseSeconds)),"
                    + "\"fall_s\":\(number(pulse.fallSeconds))}"
            }
            let trigger = request.trigger.map {
                "{\"level_db\":\(number($0.levelDB)),\"slope\":\"\($0.slope.rawValue)\",\"pre_trigger_s\":\(number(zero))}"
            } ?? "null"
            line = "{\"trace\":\(index),\"time_s\":\(number(traceSeconds)),\"frequency_hz\":\(number(plan.frequencyHz, 12)),"
                + "\"rbw_hz\":\(number(plan.rbwHz)),\"sweep_time_s\":\(number(plan.sweepSeconds)),"
                + "\"points\":\(plan.points),\"unit\":\"\(unit.rawValue)\",\"trigger\":\(trigger),"
                + "\"pulses\":[\(pulses.joined(separator: ","))],\"period_s\":\(number(train.periodSeconds)),"
                + "\"duty\":\(number(train.duty, 6)),\"rise_s\":\(number(train.riseSeconds)),"
                + "\"fall_s\":\(number(train.fallSeconds)),\"floor_db\":\(number(train.floorDB, 5)),"
                + "\"dropped_samples\":\(droppedSamples),"
                + "\"levels_db\":[\(levels.map { number(Double($0), 5) }.joined(separator: ","))]}"
        } else {
            func time(_ seconds: Double?) -> String { seconds.map(TimeFormat.label) ?? "–" }
            let unitText = unit.rawValue
            line = "trace \(index) at \(String(format: "%.6f", traceSeconds)) s: \(train.pulses.count) pulse"
                + (train.pulses.count == 1 ? "" : "s") + ", period \(time(train.periodSeconds)), duty "
                + (train.duty.map { String(format: "%.1f %%", 100 * $0) } ?? "–")
                + ", rise \(time(train.riseSeconds)), fall \(time(train.fallSeconds)), floor "
                + String(format: "%.1f %@", train.floorDB, unitText)
            if droppedSamples > 0 { line += ", \(droppedSamples) samples dropped so far" }
            for (k, pulse) in train.pulses.enumerated() {
                line += "\n  pulse \(k + 1): start \(time(pulse.startSeconds - zero)), width \(time(pulse.widthSeconds)), "
                    + String(format: "peak %.1f %@", pulse.peakDB, unitText)
                    + ", rise \(time(pulse.riseSeconds)), fall \(time(pulse.fallSeconds))"
            }
        }
        print(line)
        fflush(nil)
    }
}
