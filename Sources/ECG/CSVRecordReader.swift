import Foundation

/// Reads an ECG in CSV: a header naming the columns, then one row per sample;
/// the first column is time (seconds, or milliseconds when its name says "ms"),
/// every further column a lead [mV]. The sample rate comes from the time column;
/// a declared rate that disagrees with it is an error, not a silently wrong rate.
public enum CSVRecordReader {
    /// largest relative disagreement allowed between a declared and the measured rate
    static let rateTolerance = 0.01

    public static func read(path: String, declaredRate: Double? = nil) throws -> ECGRecord {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ECGError(file: path, FileManager.default.fileExists(atPath: path) ? "cannot read (permission?)" : "no such file")
        }
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        return try parse(String(decoding: data, as: UTF8.self), file: path, name: name, declaredRate: declaredRate)
    }

    package static func parse(_ text: String, file: String, name: String, declaredRate: Double?) throws -> ECGRecord {
        var header: [String]?
        var times: [Double] = []
        var leads: [[Float]] = []
        var lineNumber = 0
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let trimmed = String(line).trimmingSpaces()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() }
            guard let names = header else {
                guard fields.count >= 2 else {
                    throw ECGError(file: file, location: .line(lineNumber),
                                   "expected a header `time,lead,…` with a time column and at least one lead")
                }
                header = fields
                leads = Array(repeating: [], count: fields.count - 1)
                continue
            }
            guard fields.count == names.count else {
                throw ECGError(file: file, location: .line(lineNumber),
                               "expected \(names.count) columns as in the header, found \(fields.count)")
            }
            guard let time = Double(fields[0]), time.isFinite else {
                throw ECGError(file: file, location: .line(lineNumber), "expected a time, found \"\(fields[0])\"")
            }
            if let previous = times.last, time <= previous {
                throw ECGError(file: file, location: .line(lineNumber),
                               "time \(fields[0]) does not increase (previous row \(previous))")
            }
            times.append(time)
            for lead in leads.indices {
                // NaN is kept as a missing sample; anything else unreadable is an error
                guard let value = Float(fields[lead + 1]) else {
                    throw ECGError(file: file, location: .line(lineNumber),
                                   "expected a number [mV] in column \(lead + 2) (\(names[lead + 1])), found \"\(fields[lead + 1])\"")
                }
                leads[lead].append(value)
            }
        }
        guard let names = header, times.count >= 2 else {
            throw ECGError(file: file, "expected a header and at least two rows of samples")
        }
        let timeScale = names[0].lowercased().contains("ms") ? 0.001 : 1.0
        let measured = Double(times.count - 1) / ((times[times.count - 1] - times[0]) * timeScale)
        if let declaredRate, abs(declaredRate - measured) > rateTolerance * measured {
            throw ECGError(file: file, "declared rate \(declaredRate) Hz does not match the time column (\(String(format: "%.3f", measured)) Hz)")
        }
        return ECGRecord(name: name, sampleRate: declaredRate ?? measured, leadNames: Array(names.dropFirst()), samples: leads)
    }
}
