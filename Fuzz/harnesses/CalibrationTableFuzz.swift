import Signals

/// A calibration table (`tscope calibrate`'s file); a table that parses has
/// increasing frequencies and an offset everywhere between its ends.
func fuzzCalibrationTable(_ bytes: UnsafeRawBufferPointer) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let table = try? CalibrationTable.parse(text, file: "fuzz.csv"), let covered = table.coveredHz else { return }
    precondition(zip(table.points, table.points.dropFirst()).allSatisfy { $0.frequencyHz < $1.frequencyHz },
                 "frequencies not increasing")
    let middle = covered.lowerBound + (covered.upperBound - covered.lowerBound) / 2
    for frequency in [covered.lowerBound, middle, covered.upperBound] {
        precondition(table.offsetDB(atHz: frequency)?.isFinite == true, "no offset inside the table")
    }
}
