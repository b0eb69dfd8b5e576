import Foundation

/// Reads a WFDB record (header, signal files, annotations) from disk.
public enum WFDBRecordReader {
    /// Loads the record whose header is `path` (with or without `.hea`).
    public static func read(path: String) throws -> ECGRecord {
        let base = recordBase(path)
        let headerPath = base + ".hea"
        let header = try WFDBHeader.parse(String(decoding: try contents(of: headerPath), as: UTF8.self), file: headerPath)
        let directory = (headerPath as NSString).deletingLastPathComponent
        return try decode(header: header) { name in
            let dataPath = directory.isEmpty ? name : directory + "/" + name
            return (dataPath, try contents(of: dataPath))
        }
    }

    /// Loads the annotations `<record>.<annotator>` next to the record, e.g. `100.atr`.
    public static func readAnnotations(recordPath: String, annotator: String = "atr") throws -> [WFDBAnnotation] {
        let path = recordBase(recordPath) + "." + annotator
        let bytes = try contents(of: path)
        return try bytes.withUnsafeBytes { try WFDBAnnotationReader.read($0, file: path) }
    }

    /// Decodes the signals a header describes; `load` returns a data file's path and bytes.
    package static func decode(header: WFDBHeader, load: (String) throws -> (path: String, bytes: [UInt8])) throws -> ECGRecord {
        var adu = Array(repeating: [Int16](), count: header.signals.count)
        var frameCount = header.sampleCount
        for group in fileGroups(header.signals) {
            let first = header.signals[group[0]]
            let (path, bytes) = try load(first.fileName)
            for index in group where header.signals[index].format != first.format {
                throw ECGError(file: path, "signals in one file must share a format (found \(first.format) and \(header.signals[index].format))")
            }
            let decoded = try bytes.withUnsafeBytes {
                try WFDBSignalDecoder.decode($0, format: first.format, signalCount: group.count,
                                            byteOffset: first.byteOffset, frameCount: frameCount, file: path)
            }
            if let known = frameCount, decoded[0].count != known {
                throw ECGError(file: path, "data holds \(decoded[0].count) samples per signal, other files of the record hold \(known)")
            }
            frameCount = decoded[0].count
            for (position, index) in group.enumerated() {
                try verifyChecksum(decoded[position], spec: header.signals[index], signal: index,
                                   complete: header.sampleCount != nil, file: path)
                adu[index] = decoded[position]
            }
        }
        let samples = zip(header.signals, adu).map { spec, values in physical(values, spec: spec) }
        let names = header.signals.enumerated().map { index, spec in
            spec.description.isEmpty ? "signal \(index)" : spec.description
        }
        return ECGRecord(name: header.recordName, sampleRate: header.sampleRate, leadNames: names, samples: samples)
    }

    /// Signal indices grouped by data file, in header order.
    static func fileGroups(_ signals: [WFDBSignalSpec]) -> [[Int]] {
        var groups: [[Int]] = []
        var groupOfFile: [String: Int] = [:]
        for (index, spec) in signals.enumerated() {
            if let group = groupOfFile[spec.fileName] {
                groups[group].append(index)
            } else {
                groupOfFile[spec.fileName] = groups.count
                groups.append([index])
            }
        }
        return groups
    }

    /// The header's checksum is the sum of all samples modulo 2^16; a mismatch
    /// means the wrong format or damaged data.
    static func verifyChecksum(_ values: [Int16], spec: WFDBSignalSpec, signal: Int, complete: Bool, file: String) throws {
        guard complete, let expected = spec.checksum else { return }
        var sum: UInt16 = 0
        for value in values { sum &+= UInt16(bitPattern: value) }
        if sum != UInt16(truncatingIfNeeded: expected) {
            throw ECGError(file: file, "checksum of signal \(signal) (\(spec.description)) is \(Int16(bitPattern: sum)), the header says \(expected): damaged data or wrong format in the header")
        }
    }

    /// adu → mV: (adu − baseline) / gain, scaled from the header's units; missing samples become NaN.
    static func physical(_ values: [Int16], spec: WFDBSignalSpec) -> [Float] {
        let invalid = WFDBSignalDecoder.invalidSample(format: spec.format)
        let scale = millivoltsPerUnit(spec.units) / spec.gain
        let baseline = Double(spec.baseline)
        return values.map { $0 == invalid ? .nan : Float((Double($0) - baseline) * scale) }
    }

    /// how many mV one of `units` is; 1 for units that are not voltages
    static func millivoltsPerUnit(_ units: String) -> Double {
        switch units {
        case "uV", "µV", "microvolts": return 0.001
        case "V": return 1000
        default: return 1
        }
    }

    /// the record path without a `.hea` extension
    static func recordBase(_ path: String) -> String {
        path.hasSuffix(".hea") ? String(path.dropLast(4)) : path
    }

    static func contents(of path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot read (permission?)" : "no such file"
            throw ECGError(file: path, reason)
        }
        return [UInt8](data)
    }
}
