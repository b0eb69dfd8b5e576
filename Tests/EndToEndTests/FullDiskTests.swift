import Capture
import Foundation
import Testing

/// `tscope record` onto a full filesystem: a 2 MiB tmpfs mounted in a private
/// mount namespace (`unshare --map-root-user --mount`, so it needs no root and
/// vanishes with the run); the files are copied out before the namespace ends.
@Suite(.serialized) struct FullDiskTests {
    /// Runs `tscope <arguments>` with `$DIR` (in the arguments) a fresh 2 MiB tmpfs;
    /// returns the result and the directory the tmpfs's files were copied to.
    func runOnFullDisk(_ arguments: [String], label: String) throws -> (ProcessResult, URL) {
        let mountPoint = try Paths.temporaryDirectory("\(label)-mnt")
        let copied = try Paths.temporaryDirectory("\(label)-out")
        defer { try? FileManager.default.removeItem(at: mountPoint) }
        let script = """
            mount -t tmpfs -o size=2m tmpfs "$1" || exit 99
            "$3" "${@:4}"; status=$?
            cp -a "$1"/. "$2"/; exit $status
            """
        let substituted = arguments.map { $0.replacingOccurrences(of: "$DIR", with: mountPoint.path) }
        let result = try run(URL(fileURLWithPath: "/usr/bin/unshare"),
                             ["--map-root-user", "--mount", "/bin/bash", "-c", script, "_", mountPoint.path,
                              copied.path, Paths.tscope.path] + substituted, timeoutSeconds: 120)
        #expect(result.status != 99, "cannot mount a tmpfs here: \(result.stderr)")
        return (result, copied)
    }

    @Test func recordEndsAtOnceOnAFullDiskKeepingWhatWasStored() throws {
        // 4000 bins × 4 B × 10 frames/s: the 2 MiB fill in a few seconds, long before --duration
        let started = Date()
        let (result, copied) = try runOnFullDisk(
            ["record", "--device", "demo", "-w", "5000", "--frame-rate", "10", "--duration", "120",
             "--output", "$DIR/run.tscope"], label: "full")
        defer { try? FileManager.default.removeItem(at: copied) }
        #expect(Date().timeIntervalSince(started) < 60, "the recording went on after the disk filled")
        #expect(result.status == 1, "stderr: \(result.stderr)")
        let errorLine = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(errorLine.contains("run.tscope: disk full (No space left on device); recording ended, "),
                "\(result.stderr)")
        #expect(result.stdoutText.hasSuffix("run.tscope\n"), "the path is printed: \(result.stdoutText)")
        let files = try FileManager.default.contentsOfDirectory(atPath: copied.path)
        // the -wal stays when the disk has no room to fold it in (SQLite merges it on the next open)
        #expect(files.contains("run.tscope") && !files.contains("run.tscope-reserve"), "\(files)")
        let reader = try CaptureStoreReader(path: copied.appendingPathComponent("run.tscope").path)
        let session = try #require(reader.sessions.first)
        #expect(session.stoppedAt != nil, "the session row is finished")
        #expect(reader.frameCount > 10)
        #expect(session.frames == reader.frameCount, "the row counts the frames actually stored")
        #expect(errorLine.contains("recording ended, \(reader.frameCount) frames stored in "), "\(errorLine)")
    }

    @Test func rawRecordingEndsOnAFullDiskAndOpens() throws {
        let (result, copied) = try runOnFullDisk(
            ["record", "--raw", "--device", "demo", "--duration", "120", "--output", "$DIR/raw"], label: "full-raw")
        defer { try? FileManager.default.removeItem(at: copied) }
        #expect(result.status == 1, "stderr: \(result.stderr)")
        let errorLine = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(errorLine.contains("raw.sigmf-data: disk full (No space left on device); recording ended"),
                "\(result.stderr)")
        #expect(result.stdoutText.hasSuffix("raw.sigmf-meta\n"), "\(result.stdoutText)")
        let recording = try SigMFRecording(path: copied.appendingPathComponent("raw.sigmf-meta").path)
        #expect(recording.segments.count > 10)
        // the samples reported are those on disk, not those still buffered when the disk filled
        let dataBytes = try FileManager.default.attributesOfItem(
            atPath: copied.appendingPathComponent("raw.sigmf-data").path)[.size] as? Int ?? -1
        #expect(result.stderr.contains("raw.sigmf-meta: \(dataBytes / 2) samples in "), "\(dataBytes) bytes; \(result.stderr)")
        let export = try run(Paths.tscope, ["export", "--layout", "long", "--csv",
                                            copied.appendingPathComponent("raw.csv").path,
                                            copied.appendingPathComponent("raw.sigmf-meta").path])
        #expect(export.status == 0, "stderr: \(export.stderr)")
    }

    /// The viewer's `r` recording onto a full disk: stopped at once with the cause on the status line,
    /// the session row finished with the frames stored, one clean line on stderr after the view closes.
    @Test func viewerRecordingStopsOnAFullDisk() throws {
        let tmux = try #require(try TmuxSession(width: 140, height: 40), "Tools/install-deps --test installs tmux")
        let mountPoint = try Paths.temporaryDirectory("full-view-mnt")
        let copied = try Paths.temporaryDirectory("full-view-out")
        defer {
            try? FileManager.default.removeItem(at: mountPoint)
            try? FileManager.default.removeItem(at: copied)
        }
        try tmux.type("unshare --map-root-user --mount bash -c 'mount -t tmpfs -o size=700k tmpfs \"$1\" && "
            + "\(Paths.tscope.path) watch --device demo --record-dir \"$1\"; s=$?; cp -a \"$1\"/. \"$2\"/; exit $s' "
            + "_ \(mountPoint.path) \(copied.path); echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("DEMO", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        try tmux.keys("r")
        #expect(tmux.waitFor("● REC 00:0", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        #expect(tmux.waitFor("recording stopped: disk full (No space left on device); ", timeoutSeconds: 90) != nil,
                "\(tmux.screen())")
        try tmux.keys("q")
        let after = try #require(tmux.waitFor("STATUS=", timeoutSeconds: 10), "\(tmux.screen())")
        // tmux wraps the line and drops the space at a wrap: compare without spaces at line ends
        let joined = after.replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: ";stopped", with: "; stopped")
        #expect(joined.contains("; stopped early: disk full (No space left on device)"), "\(after)")
        #expect(!joined.contains("recorded recording"), "\(after)")
        #expect(joined.contains("STATUS=1"), "a recording lost to a write error makes watch exit non-zero: \(after)")
        let names = try FileManager.default.contentsOfDirectory(atPath: copied.path).filter { $0.hasSuffix(".tscope") }
        #expect(names.count == 1, "\(names)")
        let reader = try CaptureStoreReader(path: copied.appendingPathComponent(names.first ?? "none").path)
        let session = try #require(reader.sessions.first)
        #expect(session.stoppedAt != nil)
        #expect(reader.frameCount > 0 && session.frames == reader.frameCount)
        #expect(joined.contains(": \(reader.frameCount) frames in "), "\(after)")
    }
}
