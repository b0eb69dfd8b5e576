import Foundation

/// Reference beats for scoring, from a WFDB annotation file or a CSV.
///
/// A CSV holds one beat per row: a column named `sample` (or `index`) of
/// sample indices, else a time column (`time`, `time_s`, `time_ms`, … as the
/// signal CSV names them) in seconds or milliseconds; without a header the
/// first column is sample indices when every value is a whole number, times
/// in seconds otherwise. A `type` (or `symbol`) column keeps only the beat
/// labels (WFDB mnemonics N, L, R, V, A, …), so `ecg detect --out x.csv` and
/// a WFDB file converted by `rdann` read back.
public enum BeatReference {
    /// WFDB beat mnemonics (ecgcodes.h `isqrs` codes 1–13, 25, 30, 34, 35, 38, 41)
    static let beatLabels: Set<String> = ["N", "L", "R", "a", "V", "F", "J", "A", "S", "E", "j", "/", "Q", "f", "e", "n", "B", "r", "?"]

    /// Beats in `path` as sample indices at `sampleRate`, ascending.
    public static func read(path: String, sampleRate: Double) throws -> [Int] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ECGError(file: path, FileManager.default.fileExists(atPath: path) ? "cannot read (permission?)" : "no such file")
        }
        let bytes = [UInt8](data)
        let isTable = ["csv", "txt", "tsv"].contains((path as NSString).pathExtension.lowercased())
        switch (path as NSString).pathExtension.lowercased() {
        // a .txt may be rdann's text of an annotation file: that is read below, as a binary one is
        case _ where isTable && !WFDBAnnotationText.isText(bytes):
            return try parseCSV(String(decoding: data, as: UTF8.self), file: path, sampleRate: sampleRate)
        case "edf":
            // an EDF+ file's annotations that mark beats
            return try EDFReader.read(path: path).beatSamples(atRate: sampleRate).sorted()
        default:
            let annotations = try WFDBAnnotationReader.read(contents: bytes, file: path)
            return annotations.filter(\.isBeat).map(\.sample).sorted()
        }
    }

    package static func parseCSV(_ text: String, file: String, sampleRate: Double) throws -> [Int] {
        var beats: [Int] = []
        var valueColumn = 0
        var typeColumn: Int?
        var timeScale: Double?   // nil: sample indices; else seconds per unit
        var decided = false
        var rawValues: [(value: Double, line: Int)] = []
        try CSVRecordReader.rows(text) { fields, lineNumber, chosen in
            if !decided {
                decided = true
                if fields.contains(where: { CSVRecordReader.number($0, chosen) == nil }) {
                    let names = fields.map { CSVRecordReader.words($0).joined() }
                    typeColumn = names.firstIndex { $0 == "type" || $0 == "symbol" || $0 == "label" }
                    if let sample = names.firstIndex(where: { ["sample", "samples", "index", "sampleindex"].contains($0) }) {
                        valueColumn = sample
                    } else if let time = fields.firstIndex(where: CSVRecordReader.isTimeName) {
                        valueColumn = time
                        timeScale = CSVRecordReader.timeUnit(fields[time])
                    } else {
                        throw ECGError(file: file, location: .line(lineNumber),
                                       "expected a `sample` or a `time` column in the header, found \(fields.joined(separator: ","))")
                    }
                    return
                }
            }
            guard valueColumn < fields.count, let value = CSVRecordReader.number(fields[valueColumn], chosen), value.isFinite else {
                throw ECGError(file: file, location: .line(lineNumber),
                               "expected a sample index or a time in column \(valueColumn + 1), found \"\(valueColumn < fields.count ? fields[valueColumn] : "")\"")
            }
            if let typeColumn {
                guard typeColumn < fields.count else {
                    throw ECGError(file: file, location: .line(lineNumber), "expected a beat type in column \(typeColumn + 1)")
                }
                if !beatLabels.contains(fields[typeColumn]) { return }
            }
            rawValues.append((value, lineNumber))
        }
        if !decided || rawValues.isEmpty { throw ECGError(file: file, "no reference beats in the file") }
        // no header: whole numbers are sample indices, anything else seconds
        if typeColumn == nil && timeScale == nil && valueColumn == 0,
           rawValues.contains(where: { $0.value != $0.value.rounded() }) {
            timeScale = 1
        }
        for (value, line) in rawValues {
            let sample = timeScale.map { (value * $0 * sampleRate).rounded() } ?? value
            guard sample >= 0, sample < Double(Int32.max) else {
                throw ECGError(file: file, location: .line(line), "beat at \(value) is outside the record")
            }
            beats.append(Int(sample))
        }
        return beats.sorted()
    }
}
