import Foundation
import Signals

/// An output file written beside its target under a temporary name
/// (`.NAME.partial-PID-N` in the target's directory) and renamed over the
/// target only once complete: rename(2) within one directory is atomic, so a
/// failed run leaves neither a half-written target nor a new empty file.
/// Dropped without `commit`, it removes what it wrote (with SQLite's -wal,
/// -shm and -journal companions).
///
/// Targets that cannot be renamed over (stdout as "-", /dev/null, a FIFO)
/// are written in place: `path == target`, and commit and discard do nothing.
public final class AtomicOutput {
    public let target: String
    /// where the writer writes until `commit`
    public let path: String
    private var settled = false

    public init(target: String) {
        self.target = target
        if Self.writesInPlace(target) {
            path = target
            settled = true
        } else {
            let url = URL(fileURLWithPath: target)
            let name = ".\(url.lastPathComponent).partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            path = url.deletingLastPathComponent().appendingPathComponent(name).path
        }
    }

    deinit { discard() }

    /// Whether `target` is written where it is: "-" (stdout) or an existing
    /// file that is not a regular file (a device, a FIFO).
    public static func writesInPlace(_ target: String) -> Bool {
        if target == "-" { return true }
        var status = stat()
        guard stat(target, &status) == 0 else { return false }
        return (status.st_mode & S_IFMT) != S_IFREG
    }

    /// Renames the finished file over the target.
    public func commit() throws(CaptureError) {
        guard !settled else { return }
        guard rename(path, target) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw CaptureError(file: target, "cannot move the finished output into place: \(reason)")
        }
        settled = true
    }

    /// `error` as the user should read it: naming the target, not the temporary name.
    public func naming(_ error: any Error) -> any Error {
        if var failure = error as? CaptureError {
            if failure.file == path { failure.file = target }
            failure.detail = failure.detail.replacingOccurrences(of: path, with: target)
            return failure
        }
        if var failure = error as? OutputError, failure.destination == path {
            failure.destination = target
            return failure
        }
        return error
    }

    /// Removes what was written; the target is as it was.
    public func discard() {
        guard !settled else { return }
        settled = true
        for companion in ["", "-wal", "-shm", "-journal"] { unlink(path + companion) }
    }
}

/// A frame writer whose output appears only when `finish` succeeds;
/// `abandon` leaves the target as it was: a new file is written under a
/// temporary name and renamed (`AtomicOutput`); a session appended to an
/// existing capture store goes in as one transaction and is rolled back.
public final class AtomicFrameWriter: SpectrumFrameWriter {
    private let writer: SpectrumFrameWriter
    private let output: AtomicOutput?

    init(writer: SpectrumFrameWriter, output: AtomicOutput?) {
        self.writer = writer
        self.output = output
    }

    public func write(_ frame: SpectrumFrame) throws {
        do { try writer.write(frame) } catch { throw output?.naming(error) ?? error }
    }

    public func finish() throws {
        do {
            try writer.finish()
            try output?.commit()
        } catch {
            abandon()
            throw output?.naming(error) ?? error
        }
    }

    /// Undoes everything this writer wrote.
    public func abandon() {
        (writer as? AbandonableFrameWriter)?.abandon()
        output?.discard()
    }
}

extension AtomicFrameWriter: SweepRowWriting {
    /// Passes a frame's rows on to the writer inside (a byte-identical round trip needs them).
    public func write(_ frame: SpectrumFrame, rows: SweepRowLayout?) throws {
        do {
            if let rowWriter = writer as? SweepRowWriting { try rowWriter.write(frame, rows: rows) } else { try writer.write(frame) }
        } catch { throw output?.naming(error) ?? error }
    }
}

/// A frame writer that can drop what it wrote (the capture store rolls its session back).
public protocol AbandonableFrameWriter: SpectrumFrameWriter {
    func abandon()
}
