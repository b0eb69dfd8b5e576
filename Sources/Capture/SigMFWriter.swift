import Foundation
import Signals

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
/// The meta file is written first, when the recording starts, and is valid
/// JSON at every moment after: each new capture segment is written over the
/// fixed closing text and followed by it again (one `pwrite` at the end of
/// the file), so memory does not grow with the recording and a recording cut
/// short by a crash, a kill or a full disk opens with what it has. The data
/// file is streamed; `finish` flushes it.
///
/// Invariant: a raw recording's writer is used by one thread at a time — its
/// writer thread until that thread is joined, then the recording's caller,
/// which finishes it — a hand-over the compiler cannot see through the join.
public final class SigMFWriter: @unchecked Sendable {
    public enum Datatype: String, Sendable {
        /// complex signed 8-bit (HackRF)
        case ci8
        /// complex unsigned 8-bit (RTL-SDR)
        case cu8
    }

    public let dataPath: String
    public let metaPath: String
    /// complex samples written so far (after a failed write: those on disk)
    public private(set) var sampleCount = 0
    /// capture segments written so far
    public private(set) var segmentCount = 0

    private let data: OutputSink
    /// the meta file's descriptor
    private let meta: Int32
    /// byte offset in the meta file where `closing` starts
    private var metaEnd: Int
    private static let closing = "\n  ],\n  \"annotations\": []\n}\n"
    private var segmentFrequencyHz: Double?
    private var finished = false

    /// - Parameters:
    ///   - basePath: path without extension; `.sigmf-data` and `.sigmf-meta` are added
    ///   - sampleRate: [samples/s]
    public init(basePath: String, datatype: Datatype, sampleRate: Double, hardware: String? = nil,
                description: String? = nil, recorder: String = "tscope") throws(CaptureError) {
        dataPath = basePath + ".sigmf-data"
        metaPath = basePath + ".sigmf-meta"
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
        let opening = "{\n  \"global\": \(String(decoding: json, as: UTF8.self)),\n  \"captures\": ["
        meta = open(metaPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard meta >= 0 else { throw Self.error(metaPath, errno: errno) }
        metaEnd = opening.utf8.count
        do {
            try Self.writeAll(meta, opening + Self.closing, at: 0, path: metaPath)
            data = try OutputSink.file(path: dataPath)
        } catch {
            close(meta)
            throw CaptureError(file: basePath, "\(error)")
        }
    }

    deinit { close(meta) }

    /// "disk full (No space left on device)" for ENOSPC, else the system's words
    static func error(_ path: String, errno number: Int32) -> CaptureError {
        let words = String(cString: strerror(number))
        return CaptureError(file: path, number == ENOSPC ? "disk full (\(words))" : words)
    }

    /// `text` at byte `offset` of `fd`, all of it.
    private static func writeAll(_ fd: Int32, _ text: String, at offset: Int, path: String) throws(CaptureError) {
        let failure = Array(text.utf8).withUnsafeBytes { SystemIO.writeAll($0, to: fd, at: offset) }
        if failure != 0 { throw error(path, errno: failure) }
    }

    /// After a failed data write: cuts a partly written I/Q pair off the data file (so it
    /// stays whole samples), counts only the samples on disk (those still buffered are
    /// lost with the error) and returns the error in words ("disk full (No space left on
    /// device)" for ENOSPC).
    private func dataFailed(_ error: Error) -> CaptureError {
        var status = stat()
        if stat(dataPath, &status) == 0 {
            let whole = status.st_size - status.st_size % 2
            if whole != status.st_size { truncate(dataPath, whole) }
            sampleCount = min(sampleCount, Int(whole) / 2)
        }
        let text = "\(error)"
        return text.hasSuffix(String(cString: strerror(ENOSPC))) ? Self.error(dataPath, errno: ENOSPC)
            : CaptureError(file: dataPath, text)
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
            // the samples before the segment on disk first: no segment ever starts past the data's end
            do { try data.flush() } catch { throw dataFailed(error) }
            let separator = segmentCount == 0 ? "\n" : ",\n"
            let segment = separator + "    {\"core:sample_start\": \(sampleCount), "
                + "\"core:frequency\": \(centerFrequencyHz), "
                + "\"core:datetime\": \"\(Self.isoDateTime(timestamp))\"}"
            try Self.writeAll(meta, segment + Self.closing, at: metaEnd, path: metaPath)
            metaEnd += segment.utf8.count
            segmentFrequencyHz = centerFrequencyHz
            segmentCount += 1
        }
        do {
            try data.write(samples)
        } catch {
            throw dataFailed(error)
        }
        sampleCount += samples.count / 2
    }

    /// Flushes the data; the meta file is already complete.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        do {
            try data.flush()
        } catch {
            throw dataFailed(error)
        }
        if fsync(meta) != 0 && errno != EINVAL { throw Self.error(metaPath, errno: errno) }
    }

    /// Removes the files of a recording that never started (no samples):
    /// a run that fails before the device streams leaves nothing behind.
    public func discardIfEmpty() {
        guard !finished, sampleCount == 0 else { return }
        finished = true
        for path in [dataPath, metaPath] { unlink(path) }
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
