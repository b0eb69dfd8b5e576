import Analyzers
import Capture
import Devices
import Foundation
import PostgresStore
import Signals

/// Recording from the viewer (`r`/`R` in `tscope watch`): as many sessions
/// in a row as wanted, each a new capture file in the record directory.
///
/// `onFrame` is called with every frame on the DSP thread and never blocks
/// (it reaches only the Sendable session); everything else runs on the UI
/// thread. `poll` (once per drawn
/// frame) stops a session whose --duration has passed or whose writer failed
/// (disk full), keeping everything written before.
public final class ViewerRecording {
    /// frames per second stored, each the per-bin peak of the frames between
    /// (the same default as `tscope record --frame-rate`)
    public static let frameRate = 10.0

    public struct Settings {
        public var directory: String
        public var label: String?
        public var operatorName: String?
        /// [s], nil = until r again
        public var duration: Double?
        public var metadata: CaptureMetadata

        /// tscope captures in the current directory, unlabelled, until `r` again (a viewer given no recording options)
        public static var inCurrentDirectory: Settings {
            Settings(directory: ".", label: nil, operatorName: nil, duration: nil, metadata: CaptureMetadata(format: "tscope"))
        }

        public init(directory: String, label: String?, operatorName: String?, duration: Double?,
                    metadata: CaptureMetadata) {
            self.directory = directory
            self.label = label
            self.operatorName = operatorName
            self.duration = duration
            self.metadata = metadata
        }
    }

    private let recorder = RecordingSession()
    private let settings: Settings
    private let deviceCounters: () -> (dropped: Int, bad: Int)
    /// the last outcome (saved / failed), for the status line
    public private(set) var message: String?
    /// one line per finished session, printed after the terminal is restored
    public private(set) var summaries: [String] = []
    /// sessions a write error ended early: `watch` then exits non-zero, as `record` does
    public private(set) var failedSessions = 0
    /// the analyzer's name for the metadata, known once it is open
    public var device: String?
    /// its USB serial number, when known
    public var serial: String?
    /// the converter in front of it, for the metadata
    public var conversion: FrequencyConversion?

    /// - Parameter deviceCounters: the device's dropped- and bad-block counters now
    public init(settings: Settings, deviceCounters: @escaping () -> (dropped: Int, bad: Int)) {
        self.settings = settings
        self.deviceCounters = deviceCounters
    }

    public var isRecording: Bool { recorder.isRecording }

    /// For the DSP thread: hands a frame to the running session, if any.
    public var onFrame: @Sendable (SpectrumFrame) -> Void {
        let recorder = recorder
        return { recorder.post($0) }
    }

    /// For the source's thread: marks a device outage in the recording (ignored when not recording).
    public var onGap: @Sendable (ReconnectGap) -> Void {
        let recorder = recorder
        return { gap in recorder.markGap(from: gap.fromTimestamp, to: gap.toTimestamp, reason: gap.reason) }
    }

    /// Starts a session for the band now shown, or stops the running one.
    public func toggle(band: FrequencyRange, binWidthHz: Double) {
        if recorder.isRecording {
            stop()
            return
        }
        // --record-dir postgresql://…: each recording a new session in that database
        let output: RecordingSession.Plan.Output
        if SensorLink.isDatabaseURL(settings.directory) {
            #if SensorLink
            do {
                output = .database(PostgresCaptureStore.database(try PostgresLocation(url: settings.directory)))
            } catch {
                message = "cannot record: \(error)"
                return
            }
            #else
            message = "cannot record: \(SensorLink.missing("--record-dir postgresql://…"))"
            return
            #endif
        } else {
            do {
                try FileManager.default.createDirectory(atPath: settings.directory, withIntermediateDirectories: true)
            } catch {
                message = "cannot record: cannot create \(settings.directory): \(error.localizedDescription)"
                return
            }
            output = .directory(settings.directory)
        }
        var metadata = settings.metadata
        metadata.device = metadata.device ?? device
        metadata.serial = metadata.serial ?? serial
        metadata.conversion = metadata.conversion ?? conversion
        let plan = RecordingSession.Plan(
            output: output, label: settings.label, operatorName: settings.operatorName,
            duration: settings.duration, requestedFrameRate: Self.frameRate, band: band,
            binWidthHz: binWidthHz, metadata: metadata)
        do {
            // a write error shows at the next poll (once per drawn frame), which stops the session
            let counters = deviceCounters()
            let path = try recorder.start(plan, deviceDroppedBlocks: counters.dropped, deviceBadBlocks: counters.bad)
            message = "recording \((path as NSString).lastPathComponent)"
        } catch {
            message = "cannot record: \(error)"
        }
    }

    /// The badge while recording ("● REC 00:12", with "−00:48" left under
    /// --duration), after stopping a due or failed session.
    public func poll() -> String? {
        guard recorder.isRecording else { return nil }
        if recorder.isComplete || recorder.writeError != nil {
            stop()
            return nil
        }
        var badge = "● REC \(Self.clock(recorder.elapsed))"
        if let remaining = recorder.remaining { badge += " −\(Self.clock(remaining.rounded(.up)))" }
        return badge
    }

    /// On quit or a signal: finishes an active session properly.
    public func finish() { if recorder.isRecording { stop() } }

    private func stop() {
        let path = recorder.path ?? settings.directory
        do {
            let counters = deviceCounters()
            guard let summary = try recorder.stop(deviceDroppedBlocks: counters.dropped,
                                                  deviceBadBlocks: counters.bad) else { return }
            let name = (summary.path as NSString).lastPathComponent
            let line = "\(summary.path): \(summary.frames) frames in \(String(format: "%.1f", summary.elapsed)) s, "
                + "dropped blocks \(summary.droppedBlocks), bad blocks \(summary.badBlocks), "
                + "dropped frames \(summary.droppedFrames)"
            if let failure = summary.failure {
                failedSessions += 1
                message = "recording stopped: \(failure.detail); \(summary.frames) frames kept in \(name)"
                summaries.append("\(line); stopped early: \(failure.detail)")
            } else {
                message = "saved \(name): \(summary.frames) frames"
                summaries.append(line)
            }
        } catch {
            failedSessions += 1
            message = "recording stopped: \(error); what was committed is kept in \(path)"
            summaries.append("\(path): \(error)")
        }
    }

    /// `mm:ss`, or `h:mm:ss` from an hour on [s]
    public static func clock(_ seconds: Double) -> String {
        let total = seconds.isFinite ? max(0, Int(seconds.rounded(.down))) : 0
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%02d:%02d", m, s)
    }
}
