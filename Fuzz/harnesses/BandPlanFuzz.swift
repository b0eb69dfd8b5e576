import Signals

/// A band plan file (`--band-plan FILE`); a plan that parses has allocations
/// with a stop above the start, a label without control characters, sorted,
/// each found again by a lookup at its centre (itself or a narrower one), and
/// at most `BandPlan.maximumLanes` rows.
func fuzzBandPlan(_ bytes: UnsafeRawBufferPointer) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let plan = try? BandPlan.parse(text, file: "fuzz.csv") else { return }
    precondition(!plan.allocations.isEmpty, "a plan without allocations")
    precondition(plan.lanes.count == plan.allocations.count && plan.laneCount <= BandPlan.maximumLanes, "lanes")
    for (allocation, next) in zip(plan.allocations, plan.allocations.dropFirst()) {
        precondition(allocation.startHz <= next.startHz, "not sorted")
    }
    for allocation in plan.allocations.prefix(256) {
        precondition(allocation.startHz >= 0 && allocation.stopHz > allocation.startHz, "impossible allocation")
        precondition(!allocation.label.isEmpty
            && !allocation.label.unicodeScalars.contains { $0.properties.generalCategory == .control }, "bad label")
        let found = plan.allocation(at: allocation.centerHz)
        precondition(found.map { $0.widthHz <= allocation.widthHz } == true, "an allocation not found at its centre")
    }
}
