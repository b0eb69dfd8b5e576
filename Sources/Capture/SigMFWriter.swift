import Foundation

/// Records raw I/Q as a SigMF recording (SigMF specification v1.0.0,
/// github.com/sigmf/SigMF sigmf-spec.md): `NAME.sigmf-data` holds the samples
/// as they came from the device, `NAME.sigmf-meta` the JSON metadata:
///
/// - `global`: `core:datatype` (`ci8` for HackRF, `cu8` for RTL-SDR: complex
///   8-bit, I then Q, no byte order needed), `core:sample_rate`,
///   `core:version` "1.0.0", `core:hw`, `core:recorder`, `core:description`;
/// - `captures`: one segment per run of samples at one centre frequency, each
///   with `core:sample_start` (in samples), `core:frequency` [Hz] and
///   `core:datetime` (ISO 8601 UTC, when its first block arrived), in
///   sample order as the spec requires;
/// - `annotations`: empty.
///
/// The data file is streamed; captures are streamed to
/// `NAME.sigmf-meta.partial` and assembled into the meta file by `finish`, so
/// memory does not grow with the recording. A recording cut short by a crash
/// keeps its data file and the partial captures list.
public final class SigMFWriter {
    public enum Datatype: String, Sendable {
        /// complex signed 8-bit (HackRF)
        case ci8
        /// complex unsigned 8-bit (RTL-SDR)
        case cu8
    }

    public let dataPath: String
    public let metaPath: String
    /// complex samples written so far
    public private(set) var sampleCount = 0
    /// capture segments written so far
    public private(set) var segmentCount = 0

    private let globalJSON: String
    private let data: OutputSink
    private let captures: OutputSink
    private let partialPath: String
    private var segmentFrequencyHz: Double?
    private var finished = false

    /// - Parameters:
    ///   - basePath: path without extension; `.sigmf-data` and `.sigmf-meta` are added
    ///   - sampleRate: [samples/s]
    public init(basePath: String, datatype: Datatype, sampleRate: Double, hardware: String? = nil,
                description: String? = nil, recorder: String = "tscope") throws(CaptureError) {
        dataPath = basePath + ".sigmf-data"
        metaPath = basePath + ".sigmf-meta"
        partialPath = metaPath + ".partial"
        var global: [String: Any] = [
            "core:datatype": datatype.rawValue,
            "core:sample_rate": sampleRate,
            "core:version": "1.0.0",
            "core:recorder": recorder,
        ]
        if let hardware { global["core:hw"] = hardware }
        if let description { global["core:description"] = description }
        guard let json = try? JSONSerialization.data(withJSONObject: global, options: [.sortedKeys]) else {
            throw CaptureError(file: metaPath, "cannot encode the global metadata")
        }
        globalJSON = String(decoding: json, as: UTF8.self)
        do {
            data = try OutputSink.file(path: dataPath)
            captures = try OutputSink.file(path: partialPath)
        } catch {
            throw CaptureError(file: basePath, "\(error)")
        }
    }

    /// Appends interleaved 8-bit I/Q samples tuned to `centerFrequencyHz`,
    /// received at `timestamp` [s since the Unix epoch, UTC]. A new capture
    /// segment starts whenever the frequency changes.
    public func append(samples: UnsafeRawBufferPointer, centerFrequencyHz: Double, timestamp: Double) throws {
        guard samples.count % 2 == 0 else {
            throw CaptureError(file: dataPath, location: .byte(sampleCount * 2),
                               "odd number of bytes (\(samples.count)): expected whole I/Q pairs")
        }
        if segmentFrequencyHz != centerFrequencyHz {
            let separator = segmentCount == 0 ? "\n" : ",\n"
            try captures.write(separator + "    {\"core:sample_start\": \(sampleCount), "
                               + "\"core:frequency\": \(centerFrequencyHz), "
                               + "\"core:datetime\": \"\(Self.isoDateTime(timestamp))\"}")
            segmentFrequencyHz = centerFrequencyHz
            segmentCount += 1
        }
        try data.write(samples)
        sampleCount += samples.count / 2
    }

    /// Flushes the data and writes the meta file.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        try data.flush()
        try captures.flush()
        let meta = try OutputSink.file(path: metaPath)
        try meta.write("{\n  \"global\": \(globalJSON),\n  \"captures\": [")
        guard let partial = FileHandle(forReadingAtPath: partialPath) else {
            throw CaptureError(file: partialPath, "cannot reopen the captures written so far")
        }
        defer { try? partial.close() }
        while let chunk = try partial.read(upToCount: 1 << 20), !chunk.isEmpty {
            try chunk.withUnsafeBytes { try meta.write($0) }
        }
        try meta.write("\n  ],\n  \"annotations\": []\n}\n")
        try meta.flush()
        try? FileManager.default.removeItem(atPath: partialPath)
    }

    /// Removes the files of a recording that never started (no samples):
    /// a run that fails before the device streams leaves nothing behind.
    public func discardIfEmpty() {
        guard !finished, sampleCount == 0 else { return }
        finished = true
        for path in [dataPath, partialPath, metaPath] { unlink(path) }
    }

    /// `2026-11-21T10:15:00.123456Z`
    static func isoDateTime(_ time: Double) -> String {
        let (whole, micros) = PrintableTime.microseconds(time)
        var seconds = time_t(whole)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), micros)
    }
}
