import CSoapySDR
import DSP
import Foundation
import Signals
import Synchronization
import ThreadKit

extension SoapyDevice {
    /// Applies `settings` (antenna, gains; the defaults where none are given) and sets up the receive
    /// stream in the format read: CS16, which holds every integer native format without loss, or CF32
    /// for anything else. The one setup of a SoapySDR receive path: spectra (`SoapySpectrumSource`)
    /// and one tuning's I/Q (`SoapyIQReceiver`).
    func setUpReceive(description: SoapyDeviceDescription,
                      settings: AnalyzerSettings) throws -> (Stream, RealtimeSpectrum.SampleFormat) {
        if let antenna = settings.antenna { try setAntenna(antenna) }
        let gains = description.gains(settings)
        if description.hasAutomaticGain { try setAutomaticGain(gains.automatic) }
        if let overall = gains.overall { try setOverallGain(overall) }
        for (name, value) in gains.elements { try setGain(name, value) }
        let integer = ["CS8", "CU8", "CS12", "CS16", "CU16"].contains(description.nativeFormat)
        let stream = try setupStream(format: integer ? SOAPY_SDR_CS16 : SOAPY_SDR_CF32)
        return (stream, integer ? .int16 : .float32)
    }

    /// Starts `stream` with the process's stderr captured until its first samples arrive (at most ten
    /// reads): libraries under a module print from the thread activation starts ("Allocating 15
    /// zero-copy buffers"), which would land on a full-screen view. Those first samples are dropped.
    func activateQuietly(_ stream: Stream, bytesPerSample: Int, timeoutMicroseconds: Int) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: stream.mtu * bytesPerSample, alignment: 16)
        defer { buffer.deallocate() }
        let (failure, _) = SoapyLog.capturingStandardError { () -> (any Error)? in
            do { try activate(stream) } catch { return error }
            for _ in 0..<10 {
                if case .samples = read(stream, into: buffer.baseAddress!, count: stream.mtu,
                                        timeoutMicroseconds: timeoutMicroseconds) { break }
            }
            return nil
        }
        if let failure { throw failure }
    }
}

/// One tuning's I/Q from a SoapySDR device, handed on block by block as it
/// is read: zero span's radio. The device is opened with the arguments it
/// was chosen by and set up as for a spectrum (`setUpReceive`: the same
/// gains, antenna and stream format), at one sample rate, then tuned; a
/// thread of its own reads the stream until `stop`.
///
/// SoapySDR reports an overflow (samples lost in the driver) without saying
/// how many: each is handed on as one transfer's worth (`mtu` samples), so a
/// trace in progress is abandoned rather than stitched across the gap.
public final class SoapyIQReceiver: Sendable {
    /// how long one read waits before checking for a stop [µs]
    static let readTimeoutMicroseconds = 100_000

    public let format: RealtimeSpectrum.SampleFormat
    /// the rate the device reports once set [S/s]
    public let sampleRateHz: Double
    /// samples one read returns at most
    public let mtu: Int
    private let device: SoapyDevice
    private let stream: SoapyDevice.Stream
    private let driver: String
    private let reader = Guarded<WorkerThread?>(nil)
    private let stopping = Atomic<Bool>(false)
    private let released = Atomic<Bool>(false)

    /// Opens the device, applies `settings`, sets up the stream and sets the sample rate.
    public init(description: SoapyDeviceDescription, settings: AnalyzerSettings, sampleRateHz: Double) throws {
        let device = try SoapyDevice(arguments: description.arguments)
        do {
            (stream, format) = try device.setUpReceive(description: description, settings: settings)
            try device.setSampleRate(sampleRateHz)
        } catch {
            device.close()
            throw error
        }
        let reported = device.sampleRate
        self.sampleRateHz = reported > 0 ? reported : sampleRateHz
        self.device = device
        mtu = stream.mtu
        driver = description.driver
    }

    deinit { close() }

    /// Tunes the receive channel [Hz] (before `start`).
    public func tune(to hz: Double) throws {
        try device.setFrequency(hz)
    }

    /// Starts reading on a thread of its own: each block of samples to `onData`, an overflow to `onLoss`
    /// (as `mtu` samples), a failed stream to `onEnd` (the reading stops). All on the reader thread.
    public func start(onData: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
                      onLoss: @escaping @Sendable (Int) -> Void,
                      onEnd: @escaping @Sendable (SoapyError) -> Void) throws {
        stop()
        try device.activateQuietly(stream, bytesPerSample: format.bytesPerSample,
                                   timeoutMicroseconds: Self.readTimeoutMicroseconds)
        stopping.store(false, ordering: .relaxed)
        let bytes = mtu * format.bytesPerSample, stride = format.bytesPerSample
        let device = self.device, stream = self.stream, driver = self.driver, mtu = self.mtu
        // the thread holds the receiver until `stop` joins it
        guard let thread = WorkerThread({ [self] in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 16)
            defer { buffer.deallocate() }
            while !stopping.load(ordering: .relaxed) {
                switch device.read(stream, into: buffer.baseAddress!, count: mtu,
                                   timeoutMicroseconds: Self.readTimeoutMicroseconds) {
                case .samples(let count): onData(UnsafeRawBufferPointer(rebasing: buffer[0..<(count * stride)]))
                case .overflow: onLoss(mtu)
                case .timeout: continue
                case .failed(let said):
                    onEnd(SoapyError("SoapySDR \(driver): the stream failed: \(said)"))
                    return
                }
            }
        }) else {
            device.deactivate(stream)
            throw SoapyError("SoapySDR \(driver): no reader thread could be started")
        }
        reader.withLock { $0 = thread }
    }

    /// Stops reading and the stream. Safe to call when stopped.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        guard let thread = reader.withLock({ $0.take() }) else { return }
        thread.join()
        device.deactivate(stream)
    }

    /// Stops, closes the stream and releases the device (once).
    public func close() {
        stop()
        guard !released.exchange(true, ordering: .relaxed) else { return }
        device.close(stream)
        device.close()
    }
}

extension SoapyDeviceDescription {
    /// The rate zero span streams at for an RBW and sweep time [S/s]: `requested` if given; else the
    /// lowest rate offered within `rateLimits` that holds the RBW filter (at least RBW ÷
    /// `ZeroSpanPlan.widestRBWShare`: a HackRF's 8 MS/s up to 1 MHz, as natively) and makes each of the
    /// trace's `points` a whole number of samples, so the sweep time is the one asked (an RTL-SDR at
    /// 100 kHz over 5 ms: 1 MS/s, 5 samples a point, where its lowest rate, 900 kS/s, would round 4.5
    /// samples to 5 and sweep 5.56 ms). Where no such rate is offered near the lowest, the lowest; with
    /// none holding the RBW, the highest (`hoppingRate`), where the plan then says how wide it may be.
    public func zeroSpanRate(rbwHz: Double, sweepSeconds: Double, points: Int, requested: Double?) -> Double {
        if let requested { return requested }
        let least = rbwHz / ZeroSpanPlan.widestRBWShare
        guard let lowest = lowestOfferedRate(atLeast: least) else { return hoppingRate }
        let pointsPerSecond = Double(points) / sweepSeconds
        let limits = rateLimits
        // a few whole-sample rates from the lowest up (a long sweep's points are many samples: any rate is near whole)
        var samples = max(1, (lowest / pointsPerSecond * (1 - 1e-9)).rounded(.up))
        for _ in 0..<64 {
            var rate = samples * Double(points) / sweepSeconds
            // whole hertz where it is one but for rounding (8 MS/s from 56 samples over 7 µs)
            if abs(rate - rate.rounded()) < 1e-3 { rate = rate.rounded() }
            if rate > limits.upperBound { break }
            if rate >= least, limits.contains(rate), sampleRateRanges.contains(where: { $0.lowerBound <= rate && rate <= $0.upperBound }) {
                return rate
            }
            samples += 1
        }
        return lowest
    }
}
