import Foundation

/// A SigMF recording (sigmf/SigMF, sigmf-spec.md): `NAME.sigmf-meta` (JSON)
/// beside `NAME.sigmf-data` (raw samples). Reads what turning it into spectra
/// needs and refuses metadata that is missing or contradicts the data.
public struct SigMFRecording: Sendable {
    public var metaPath: String
    public var dataPath: String
    public var format: IQSampleFormat
    /// [samples/s]
    public var sampleRateHz: Double
    /// captures: where each retune starts and its centre frequency
    public var segments: [IQSpectrumReader.Segment]
    /// `core:datetime` of the first capture [s since the Unix epoch], if given
    public var startTime: Double?
    public var hardware: String?
    public var description: String?

    /// largest .sigmf-meta read [bytes]
    static let maxMetaBytes = 16 << 20

    /// The two paths of a recording named by either file or by its base name.
    public static func paths(for path: String) -> (meta: String, data: String) {
        var base = path
        for suffix in [".sigmf-meta", ".sigmf-data", ".sigmf"] where base.hasSuffix(suffix) {
            base.removeLast(suffix.count)
            break
        }
        return (base + ".sigmf-meta", base + ".sigmf-data")
    }

    public init(path: String) throws {
        let (metaPath, dataPath) = Self.paths(for: path)
        guard let handle = FileHandle(forReadingAtPath: metaPath) else {
            throw CaptureError(file: metaPath, "cannot open the SigMF metadata (expected beside \(dataPath))")
        }
        defer { try? handle.close() }
        let bytes = (try? handle.read(upToCount: Self.maxMetaBytes + 1)) ?? Data()
        guard bytes.count <= Self.maxMetaBytes else {
            throw CaptureError(file: metaPath, "larger than \(Self.maxMetaBytes) bytes, expected SigMF JSON metadata")
        }
        var dataStatus = stat()
        guard stat(dataPath, &dataStatus) == 0 else {
            throw CaptureError(file: dataPath, "cannot open the SigMF data: \(String(cString: strerror(errno)))")
        }
        try self.init(metaPath: metaPath, metaJSON: bytes, dataPath: dataPath, dataBytes: Int(dataStatus.st_size))
    }

    /// Parses metadata against a data file of `dataBytes` bytes.
    public init(metaPath: String, metaJSON: Data, dataPath: String, dataBytes: Int) throws {
        func fail(_ detail: String) -> CaptureError { CaptureError(file: metaPath, detail) }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: metaJSON)
        } catch {
            throw fail("not valid JSON: \((error as NSError).userInfo[NSDebugDescriptionErrorKey] ?? error)")
        }
        guard let top = root as? [String: Any] else { throw fail("expected a JSON object with 'global' and 'captures'") }
        guard let global = top["global"] as? [String: Any] else { throw fail("missing the 'global' object") }
        guard global["core:version"] is String else { throw fail("global: missing 'core:version'") }
        guard let datatype = global["core:datatype"] as? String else { throw fail("global: missing 'core:datatype'") }
        guard let format = IQSampleFormat(sigmfDatatype: datatype) else {
            throw fail("global: core:datatype '\(datatype)' is not supported (cu8, ci8, ci16_le, cf32_le are)")
        }
        if let channels = global["core:num_channels"] as? NSNumber, channels.intValue != 1 {
            throw fail("global: core:num_channels \(channels) is not supported (1 is)")
        }
        guard let rate = (global["core:sample_rate"] as? NSNumber)?.doubleValue else {
            throw fail("global: missing 'core:sample_rate'")
        }
        guard rate.isFinite, rate > 0 else { throw fail("global: core:sample_rate must be positive, found \(rate)") }
        guard dataBytes % format.bytesPerSample == 0 else {
            throw fail("the data file holds \(dataBytes) bytes, not a whole number of \(datatype) samples "
                + "(\(format.bytesPerSample) bytes each): truncated or another datatype")
        }
        let sampleCount = dataBytes / format.bytesPerSample
        guard let captures = top["captures"] as? [[String: Any]] else { throw fail("missing the 'captures' array") }
        var segments: [IQSpectrumReader.Segment] = []
        var startTime: Double?
        for (index, capture) in captures.enumerated() {
            let start = (capture["core:sample_start"] as? NSNumber)?.intValue ?? 0
            guard start >= 0, start <= sampleCount else {
                throw fail("captures[\(index)]: core:sample_start \(start) lies beyond the \(sampleCount) samples of the data")
            }
            if let last = segments.last, start < last.sampleStart {
                throw fail("captures[\(index)]: core:sample_start \(start) comes before the previous capture's")
            }
            let frequency = (capture["core:frequency"] as? NSNumber)?.doubleValue ?? 0
            guard frequency.isFinite else { throw fail("captures[\(index)]: core:frequency is not a number") }
            segments.append(IQSpectrumReader.Segment(sampleStart: start, centerHz: frequency))
            if index == 0, let text = capture["core:datetime"] as? String {
                guard let date = Self.parseDateTime(text) else {
                    throw fail("captures[0]: core:datetime '\(text)' is not ISO 8601 (e.g. 2024-05-01T12:00:00Z)")
                }
                startTime = date
            }
        }
        self.metaPath = metaPath
        self.dataPath = dataPath
        self.format = format
        self.sampleRateHz = rate
        self.segments = segments
        self.startTime = startTime
        self.hardware = global["core:hw"] as? String
        self.description = global["core:description"] as? String
    }

    /// Unix time [s] of an RFC 3339 date-time such as `2024-05-01T12:00:00Z`:
    /// any number of fraction digits (the first 9 count), `Z` or a `±HH:MM`
    /// offset; nil otherwise. Parsed here rather than by ISO8601DateFormatter,
    /// whose ICU parser dies of SIGFPE on a fraction of ~40 digits (found by
    /// Fuzz/harnesses/SigMFMetaFuzz.swift).
    static func parseDateTime(_ text: String) -> Double? {
        var bytes = Array(text.utf8)
        guard let offset = removeZone(&bytes), bytes.count >= 19,
              bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") else { return nil }
        // "YYYY-MM-DDTHH:MM:SS." + 9 digits; further digits only have to be digits
        let nanosecondsEnd = 29
        if bytes.count > nanosecondsEnd {
            guard bytes[nanosecondsEnd...].allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else { return nil }
            bytes.removeSubrange(nanosecondsEnd...)
        }
        var clock = WallClockParser(rule: .utcOffset(seconds: offset))
        return bytes.withUnsafeBufferPointer { all in
            clock.parse(date: UnsafeBufferPointer(rebasing: all[0..<10]), time: UnsafeBufferPointer(rebasing: all[11...]))
        }
    }

    /// Removes a trailing `Z` or `±HH:MM` from `bytes`; its offset east of UTC
    /// [s], or nil if there is none.
    private static func removeZone(_ bytes: inout [UInt8]) -> Int? {
        if bytes.last == UInt8(ascii: "Z") || bytes.last == UInt8(ascii: "z") {
            bytes.removeLast()
            return 0
        }
        guard bytes.count >= 6 else { return nil }
        let zone = Array(bytes.suffix(6))
        let sign: Int
        switch zone[0] {
        case UInt8(ascii: "+"): sign = 1
        case UInt8(ascii: "-"): sign = -1
        default: return nil
        }
        let digits = [zone[1], zone[2], zone[4], zone[5]].map { Int($0 &- UInt8(ascii: "0")) }
        guard zone[3] == UInt8(ascii: ":"), digits.allSatisfy({ $0 < 10 }) else { return nil }
        let hours = digits[0] * 10 + digits[1], minutes = digits[2] * 10 + digits[3]
        guard hours < 24, minutes < 60 else { return nil }
        bytes.removeLast(6)
        return sign * (hours * 3600 + minutes * 60)
    }

    /// A frame reader over the data file.
    public func makeReader(options: IQOptions) throws -> IQSpectrumReader {
        var options = options
        if options.startTime == nil { options.startTime = startTime }
        let reader = try IQSpectrumReader(input: try ByteInput(path: dataPath), format: format, sampleRateHz: sampleRateHz,
                                          segments: segments, options: options, metadataFormat: "sigmf")
        return reader
    }
}
