import DSP
import Foundation
import Signals
import Synchronization
import ThreadKit
import USBDriver

/// Why hopping stopped on its own.
public enum RTLSDRHopError: Error, Equatable, Sendable, CustomStringConvertible {
    /// no data for `seconds`
    case stalled(seconds: Double)
    case usb(USBError)

    public var description: String {
        switch self {
        case .stalled(let seconds):
            return "RTL-SDR stopped delivering: no data for \(seconds) s (unplugged? try replugging it)"
        case .usb(let error):
            return error.description
        }
    }
}

/// rtl_power's scan loop on its own thread: tune each hop of a plan, skip
/// stale bytes, read the hop's buffer, integrate it; after every pass over
/// all hops call `onPass` with the accumulator (which the callback reads and
/// resets when it reports). The sample stream runs throughout.
public final class RTLSDRHopper: Sendable {
    /// Called on the hop thread after each complete pass; return false to stop.
    public typealias PassHandler = @Sendable (RTLSDRHopAccumulator) -> Bool

    public let device: RTLSDRDevice
    public let plan: RTLSDRHopPlan
    public let window: SpectralWindow
    public let detector: SpectrumDetector
    /// a hop with no data for this long ends the run [s]
    public let stallTimeout: Double

    private let collector: RTLSDRHopCollector
    private let hopThread = Guarded<WorkerThread?>(nil)
    private let stopRequested = Atomic<Bool>(false)
    private let passes = Atomic<Int>(0)

    /// bytes that may hold the previous tuning after a retune: the transfers
    /// in flight plus rtl_power's BUFFER_DUMP of 4096
    static let staleBytes = RTLSDRStreaming.transfersInFlight * RTLSDRStreaming.transferSize + 4096

    public init(device: RTLSDRDevice, plan: RTLSDRHopPlan, window: SpectralWindow,
                detector: SpectrumDetector = .sample, stallTimeout: Double = 1) {
        self.device = device
        self.plan = plan
        self.window = window
        self.detector = detector
        self.stallTimeout = stallTimeout
        collector = RTLSDRHopCollector(bufferBytes: plan.bufferBytes)
    }

    /// complete passes so far
    public var completedPasses: Int { passes.load(ordering: .relaxed) }

    /// Sets the rate, resets the buffer, starts the stream and the hop thread.
    /// `onEnd` runs once on the hop thread when hopping ends: nil after
    /// `stop()` or when `onPass` returned false, else the error.
    public func start(onPass: @escaping PassHandler,
                      onEnd: @escaping @Sendable (RTLSDRHopError?) -> Void) throws(USBError) {
        try device.setSampleRate(UInt32(plan.sampleRateHz))
        try device.setCenterFrequency(UInt32(plan.hopCenterHz(0)))
        try device.resetBuffer()
        let collector = self.collector
        try device.startStreaming(onData: { data in collector.ingest(data) },
                                  onEnd: { error in collector.end(error) })
        // the accumulator (FFT, window, sums) belongs to the hop thread alone: made there, never shared
        guard let thread = WorkerThread({ [self] in
            let outcome = run(accumulator: RTLSDRHopAccumulator(plan: plan, window: window, detector: detector),
                              onPass: onPass)
            onEnd(outcome)
        }) else {
            device.stopStreaming()
            throw .io(operation: "RTL-SDR hop thread", detail: "no thread could be started")
        }
        hopThread.withLock { $0 = thread }
    }

    /// Stops hopping and the stream; waits for the hop thread. Idempotent.
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        collector.cancel()
        if let thread = hopThread.withLock({ $0.take() }), !thread.isCurrent { thread.join() }
        device.stopStreaming()
    }

    private var shouldStop: Bool { stopRequested.load(ordering: .acquiring) }

    private func run(accumulator: RTLSDRHopAccumulator, onPass: PassHandler) -> RTLSDRHopError? {
        var tunedHop = 0
        var first = true
        while !shouldStop {
            for hop in 0..<plan.hopCount {
                if hop != tunedHop {
                    do { try device.setCenterFrequency(UInt32(plan.hopCenterHz(hop))) } catch { return .usb(error) }
                    tunedHop = hop
                    collector.arm(discard: Self.staleBytes)
                } else {
                    // same tuning as the last read (single hop): only the first read skips stale bytes
                    collector.arm(discard: first ? Self.staleBytes : 0)
                }
                first = false
                switch collector.wait(timeout: stallTimeout) {
                case .filled(let iq):
                    accumulator.add(hop: hop, iq: iq)
                case .stalled:
                    return .stalled(seconds: stallTimeout)
                case .ended(let error):
                    if shouldStop { return nil }
                    return error.map { .usb(($0 as? USBError) ?? .io(operation: "bulk IN", detail: "\($0)")) }
                        ?? .usb(.disconnected(device: "RTL-SDR"))
                }
            }
            passes.add(1, ordering: .relaxed)
            if !onPass(accumulator) { return nil }
        }
        return nil
    }
}
