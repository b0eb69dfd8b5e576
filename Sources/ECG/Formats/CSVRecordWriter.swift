import Foundation

/// Writes a record in the CSV that `CSVRecordReader` reads: a header
/// `time_s,<lead>,…`, then one row per sample, time in seconds and each lead
/// in mV (shortest text that reads back the same Float; `nan` where missing).
public enum CSVRecordWriter {
    public static func write(_ record: ECGRecord, to path: String) throws {
        guard OutputFile.write(Data(text(record).utf8), to: path) else {
            throw ECGError(file: path, "cannot write")
        }
    }

    public static func text(_ record: ECGRecord) -> String {
        // commas would split a label into two columns
        var text = "time_s," + record.leadNames.map { $0.replacingOccurrences(of: ",", with: ";") }.joined(separator: ",") + "\n"
        text.reserveCapacity(record.frameCount * (12 + 10 * record.leadNames.count))
        for index in 0..<record.frameCount {
            text += String(format: "%.6f", Double(index) / record.sampleRate)
            for lead in record.samples {
                text += ","
                text += lead[index].isNaN ? "nan" : "\(lead[index])"
            }
            text += "\n"
        }
        return text
    }
}
