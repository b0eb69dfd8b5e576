import ECG
import Foundation
import ThreadKit

/// A live ECG source whose samples are also written to `--record FILE` as they
/// are read (`ECGStreamRecorder`: EDF+ or WFDB by the file's extension). A
/// Bluetooth sensor's dropped links are marked in the file where they happened.
/// The recording is finished (its header final) when the source ends, when
/// `finish` is called, or when the process exits normally.
public final class RecordingECGSource: LinkedECGSource {
    public let inner: any ECGSource
    public let recorder: ECGStreamRecorder
    private var gapsMarked = 0
    private var rows: [[Float]]

    public var leadNames: [String] { inner.leadNames }
    public var sampleRate: Double { inner.sampleRate }
    public var lastReadArrival: Double? { (inner as? LinkedECGSource)?.lastReadArrival }
    public var gaps: [ECGStreamGap] { (inner as? LinkedECGSource)?.gaps ?? [] }
    public var linkNote: String? { (inner as? LinkedECGSource)?.linkNote }

    public init(_ inner: any ECGSource, path: String) throws {
        self.inner = inner
        recorder = try ECGStreamRecorder(path: path, sampleRate: inner.sampleRate, leadNames: inner.leadNames)
        rows = Array(repeating: [], count: max(1, inner.leadNames.count))
        OpenRecordings.add(recorder)
    }

    public func read(into chunk: inout ECGChunk) throws -> ECGReadResult {
        let result = try inner.read(into: &chunk)
        let gaps = self.gaps
        if gaps.count > gapsMarked {
            for gap in gaps[gapsMarked...] { try recorder.markGap(seconds: gap.seconds, atSample: gap.afterSample) }
            gapsMarked = gaps.count
        }
        switch result {
        case .samples(let count):
            for lead in rows.indices {
                rows[lead].removeAll(keepingCapacity: true)
                if lead < chunk.leads.count { rows[lead].append(contentsOf: chunk.leads[lead][0..<count]) }
            }
            try recorder.append(rows, count: count)
        case .end:
            try finish()
        case .waiting:
            break
        }
        return result
    }

    /// Writes the final header (idempotent).
    public func finish() throws {
        try recorder.finish()
        OpenRecordings.remove(recorder)
    }
}

/// The recordings still open, finished by an `atexit` handler when a command
/// ends by `exit` (a viewer's `q`, ArgumentParser's exit) rather than by returning.
enum OpenRecordings {
    private static let open = Guarded<(registered: Bool, recorders: [ObjectIdentifier: ECGStreamRecorder])>((false, [:]))

    static func add(_ recorder: ECGStreamRecorder) {
        let register = open.withLock { state in
            state.recorders[ObjectIdentifier(recorder)] = recorder
            defer { state.registered = true }
            return !state.registered
        }
        if register { atexit { OpenRecordings.finishAll() } }
    }

    static func remove(_ recorder: ECGStreamRecorder) {
        open.withLock { state in state.recorders[ObjectIdentifier(recorder)] = nil }
    }

    static func finishAll() {
        open.withLock { state in
            for recorder in state.recorders.values { try? recorder.finish() }
            state.recorders = [:]
        }
    }
}

extension ECGSourceRequest {
    /// The opened stream, recorded to `record` when one was asked for.
    /// Creates `--record`'s files before a stream is opened, so a path that cannot be written fails at once.
    public func checkRecordPath() throws {
        if let record { try ECGStreamRecorder.checkWritable(record) }
    }

    /// Removes the empty files `checkRecordPath` made, when the run fails before recording.
    func discardRecordFiles() {
        guard let record, let format = ECGStreamRecorder.format(of: record) else { return }
        let base = WFDBRecordReader.recordBase(record)
        for file in format == .edf ? [record] : [base + ".hea", base + ".dat"]
        where (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) == 0 {
            try? FileManager.default.removeItem(atPath: file)
        }
    }

    func recorded(_ opened: Opened) throws -> Opened {
        guard let record else { return opened }
        var recorded = opened
        recorded.source = try RecordingECGSource(opened.source, path: record)
        return recorded
    }

    /// The Bluetooth sensor behind a source, recorded or not.
    public static func sensor(_ source: any ECGSource) -> BluetoothECGSource? {
        source as? BluetoothECGSource ?? (source as? RecordingECGSource)?.inner as? BluetoothECGSource
    }
}
