#if SensorLink
import Analyzers
import DSP
import Foundation
import Signals
import ThreadKit

/// Many viewers in one process, each on its own gRPC stream asking for every
/// frame of `band` in the analyzer's own bins: the load `Tools/bench-serve`
/// puts on a sensor, counting what each viewer received.
public enum RemoteLoad {
    public struct Viewer: Sendable {
        public var frames: Int
        /// bins of the last frame
        public var bins: Int
    }

    /// Runs `viewers` streams for `seconds` after each received its first frame.
    /// - Parameters:
    ///   - detectors: viewer i asks for `detectors[i % count]` (nil: the sensor's own); empty: all the sensor's own
    ///   - cpuSeconds: read at the window's start and end (the sensor's CPU time) [s]
    ///   - clock: times the wait for the first frames and the measuring window
    public static func run(sensor: RemoteSensor, viewers: Int, band: FrequencyRange, seconds: Double,
                           detectors: [SpectrumDetector?] = [], cpuSeconds: () -> Double = { 0 },
                           clock: any MonotonicClock = SystemClock()) throws
        -> (viewers: [Viewer], seconds: Double, cpuSeconds: Double) {
        let counts = (0..<viewers).map { _ in Locked(Viewer(frames: 0, bins: 0)) }
        let sources = counts.enumerated().map { index, count in
            var sensor = sensor
            sensor.detector = detectors.isEmpty ? nil : detectors[index % detectors.count]
            return RemoteSpectrumSource(sensor: sensor, onFrame: { frame in
                count.withLock {
                    $0.frames += 1
                    $0.bins = frame.powerDB.count
                }
            }, onEnd: { _ in })
        }
        defer { for source in sources { source.stop() } }
        for source in sources { try source.start(band: band, binWidthHz: 0) }
        // every viewer streaming before the clock starts
        let ready = clock.now + 20
        let nobodyRings = Doorbell()
        while counts.contains(where: { $0.value.frames == 0 }) {
            guard clock.now < ready else { throw RemoteError.lost(sensor.endpoint, "a viewer got no frame in 20 s") }
            // look again in 10 ms [s]
            clock.wait(until: clock.now + 0.01, orUntilRung: nobodyRings)
        }
        let before = counts.map(\.value.frames)
        let cpuBefore = cpuSeconds()
        let started = clock.now
        while clock.now < started + seconds { clock.wait(until: started + seconds, orUntilRung: nobodyRings) }
        let elapsed = clock.now - started
        let cpu = cpuSeconds() - cpuBefore
        let after = counts.map(\.value)
        return (zip(before, after).map { Viewer(frames: $1.frames - $0, bins: $1.bins) }, elapsed, cpu)
    }

    /// A process's user + system CPU time from /proc/PID/stat [s]; 0 where it cannot be read.
    public static func cpuSeconds(pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        // fields after "(comm)": state is field 3; utime and stime are fields 14 and 15
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
#endif
