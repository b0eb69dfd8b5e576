import CSoapySDR
import Foundation
import Signals
import ThreadKit

/// A SoapySDR call that failed, in words: what was asked and what SoapySDR said.
public struct SoapyError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One receive channel (0) of a device opened through SoapySDR's C API
/// (libSoapySDR, the SDR world's common device layer; Debian packages a
/// module per device family).
///
/// Invariant: the device handle is a C pointer, and SoapySDR's device calls are
/// not promised to be thread-safe, so calls are made from one thread at a time:
/// the source configures it while its reader thread is stopped, and the reader
/// thread alone streams and retunes it while running (`SoapySpectrumSource`
/// joins the reader before it touches the device again).
public final class SoapyDevice: @unchecked Sendable {
    private let handle: OpaquePointer
    /// the arguments it was made with ("driver=rtlsdr,serial=…")
    public let arguments: String
    public let driver: String
    /// what the module calls the hardware ("HackRF One", "R820T" …)
    public let hardware: String
    public let hardwareInfo: [String: String]

    private static let rx = Int32(SOAPY_SDR_RX)

    /// Devices SoapySDR's modules find for `arguments` ("" for all), each as its key/value pairs.
    public static func enumerate(_ arguments: String = "") -> [[String: String]] {
        var count = 0
        let (found, _) = SoapyLog.capturingStandardError { SoapySDRDevice_enumerateStrArgs(arguments, &count) }
        guard let list = found else { return [] }
        defer { SoapySDRKwargsList_clear(list, count) }
        return (0..<count).map { dictionary(list[$0]) }
    }

    /// Makes the device; the error says what SoapySDR said.
    public init(arguments: String) throws(SoapyError) {
        let (made, printed) = SoapyLog.capturingStandardError { SoapySDRDevice_makeStrArgs(arguments) }
        guard let handle = made else {
            var said = String(cString: SoapySDRDevice_lastError())
            if said.isEmpty { said = SoapyLog.takeNewest() ?? printed.split(separator: "\n").last.map(String.init) ?? "" }
            throw SoapyError("SoapySDR could not open \"\(arguments)\": \(said.isEmpty ? "no such device" : said)")
        }
        self.handle = handle
        self.arguments = arguments
        driver = Self.string(SoapySDRDevice_getDriverKey(handle))
        hardware = Self.string(SoapySDRDevice_getHardwareKey(handle))
        var info = SoapySDRDevice_getHardwareInfo(handle)
        hardwareInfo = Self.dictionary(info)
        SoapySDRKwargs_clear(&info)
    }

    private let closed = Guarded(false)

    /// Releases the device (SoapySDR's unmake) once; nothing may be called after.
    public func close() {
        let wasOpen = closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        if wasOpen { SoapySDRDevice_unmake(handle) }
    }

    deinit { close() }

    // MARK: what the device offers

    /// tunable ranges of the receive channel [Hz]
    public var frequencyRanges: [ClosedRange<Double>] {
        var count = 0
        guard let ranges = SoapySDRDevice_getFrequencyRange(handle, Self.rx, 0, &count) else { return [] }
        defer { SoapySDR_free(ranges) }
        return (0..<count).compactMap { ranges[$0].minimum <= ranges[$0].maximum ? ranges[$0].minimum...ranges[$0].maximum : nil }
    }

    /// sample-rate ranges [S/s] (a discrete rate is a range of one value)
    public var sampleRateRanges: [ClosedRange<Double>] {
        var count = 0
        guard let ranges = SoapySDRDevice_getSampleRateRange(handle, Self.rx, 0, &count) else { return [] }
        defer { SoapySDR_free(ranges) }
        return (0..<count).compactMap { ranges[$0].minimum <= ranges[$0].maximum ? ranges[$0].minimum...ranges[$0].maximum : nil }
    }

    /// gain elements in the module's order (RF to baseband), each with its range [dB]
    public var gainElements: [(name: String, range: ClosedRange<Double>)] {
        var count = 0
        var list = SoapySDRDevice_listGains(handle, Self.rx, 0, &count)
        guard let names = list else { return [] }
        defer { SoapySDRStrings_clear(&list, count) }
        return (0..<count).compactMap { index in
            guard let pointer = names[index] else { return nil }
            let name = String(cString: pointer)
            let range = SoapySDRDevice_getGainElementRange(handle, Self.rx, 0, name)
            return (name, min(range.minimum, range.maximum)...max(range.minimum, range.maximum))
        }
    }

    /// the overall gain's range [dB]
    public var gainRange: ClosedRange<Double> {
        let range = SoapySDRDevice_getGainRange(handle, Self.rx, 0)
        return min(range.minimum, range.maximum)...max(range.minimum, range.maximum)
    }

    public var hasAutomaticGain: Bool { SoapySDRDevice_hasGainMode(handle, Self.rx, 0) }

    public var antennas: [String] { strings { SoapySDRDevice_listAntennas(handle, Self.rx, 0, $0) } }
    public var antenna: String { Self.string(SoapySDRDevice_getAntenna(handle, Self.rx, 0)) }
    public var sensors: [String] { strings { SoapySDRDevice_listSensors(handle, $0) } }

    public func readSensor(_ key: String) -> String { Self.string(SoapySDRDevice_readSensor(handle, key)) }

    /// the stream format the device gives without conversion, and its full scale
    public var nativeFormat: (format: String, fullScale: Double) {
        var fullScale = 0.0
        let format = Self.string(SoapySDRDevice_getNativeStreamFormat(handle, Self.rx, 0, &fullScale))
        return (format, fullScale)
    }

    public func gain(_ element: String) -> Double { SoapySDRDevice_getGainElement(handle, Self.rx, 0, element) }
    public var sampleRate: Double { SoapySDRDevice_getSampleRate(handle, Self.rx, 0) }

    // MARK: settings

    public func setSampleRate(_ rate: Double) throws(SoapyError) {
        try check(SoapySDRDevice_setSampleRate(handle, Self.rx, 0, rate), "set the sample rate to \(rate) S/s")
    }

    public func setFrequency(_ hz: Double) throws(SoapyError) {
        try check(SoapySDRDevice_setFrequency(handle, Self.rx, 0, hz, nil), "tune to \(FrequencyFormat.label(hz))")
    }

    public func setGain(_ element: String, _ dB: Double) throws(SoapyError) {
        try check(SoapySDRDevice_setGainElement(handle, Self.rx, 0, element, dB), "set gain \(element) to \(dB) dB")
    }

    public func setOverallGain(_ dB: Double) throws(SoapyError) {
        try check(SoapySDRDevice_setGain(handle, Self.rx, 0, dB), "set the gain to \(dB) dB")
    }

    public func setAutomaticGain(_ on: Bool) throws(SoapyError) {
        try check(SoapySDRDevice_setGainMode(handle, Self.rx, 0, on), "set automatic gain \(on ? "on" : "off")")
    }

    public func setAntenna(_ name: String) throws(SoapyError) {
        try check(SoapySDRDevice_setAntenna(handle, Self.rx, 0, name), "select antenna \(name)")
    }

    // MARK: streaming

    /// A receive stream of channel 0 in `format` (SOAPY_SDR_CS16 or CF32).
    ///
    /// Invariant: the stream handle is a C pointer, immutable after setup, used
    /// only through its device's calls under the device's own one-thread-at-a-time
    /// rule (the reader thread is joined before the stream is deactivated or closed).
    public final class Stream: @unchecked Sendable {
        fileprivate let pointer: OpaquePointer
        /// elements (complex samples) one read returns at most
        public let mtu: Int
        public let format: String
        fileprivate init(pointer: OpaquePointer, mtu: Int, format: String) {
            self.pointer = pointer
            self.mtu = mtu
            self.format = format
        }
    }

    public func setupStream(format: String) throws(SoapyError) -> Stream {
        var channel = 0
        guard let stream = SoapySDRDevice_setupStream(handle, Self.rx, format, &channel, 1, nil) else {
            throw SoapyError("SoapySDR \(driver): could not set up a \(format) receive stream: "
                + String(cString: SoapySDRDevice_lastError()))
        }
        let mtu = SoapySDRDevice_getStreamMTU(handle, stream)
        return Stream(pointer: stream, mtu: mtu > 0 ? mtu : 16_384, format: format)
    }

    public func activate(_ stream: Stream) throws(SoapyError) {
        try check(SoapySDRDevice_activateStream(handle, stream.pointer, 0, 0, 0), "start streaming")
    }

    public func deactivate(_ stream: Stream) {
        _ = SoapySDRDevice_deactivateStream(handle, stream.pointer, 0, 0)
    }

    public func close(_ stream: Stream) {
        _ = SoapySDRDevice_closeStream(handle, stream.pointer)
    }

    /// The outcome of one read.
    public enum ReadResult: Equatable {
        /// this many samples arrived
        case samples(Int)
        case timeout
        /// samples were lost in the device or its driver (how many is not known)
        case overflow
        /// the stream failed: SoapySDR's words
        case failed(String)
    }

    /// Reads up to `count` samples into `buffer` (room for `count` of the stream's format), waiting up to `timeoutMicroseconds`.
    public func read(_ stream: Stream, into buffer: UnsafeMutableRawPointer, count: Int, timeoutMicroseconds: Int) -> ReadResult {
        var flags: Int32 = 0
        var timeNs: Int64 = 0
        var buffers: [UnsafeMutableRawPointer?] = [buffer]
        let result = buffers.withUnsafeMutableBufferPointer { pointers in
            SoapySDRDevice_readStream(handle, stream.pointer, pointers.baseAddress, count, &flags, &timeNs, timeoutMicroseconds)
        }
        if result > 0 { return .samples(Int(result)) }
        switch result {
        case 0, SOAPY_SDR_TIMEOUT: return .timeout
        case SOAPY_SDR_OVERFLOW: return .overflow
        default: return .failed(String(cString: SoapySDR_errToStr(result)))
        }
    }

    // MARK: helpers

    private func check(_ status: Int32, _ what: String) throws(SoapyError) {
        guard status != 0 else { return }
        let said = String(cString: SoapySDRDevice_lastError())
        throw SoapyError("SoapySDR \(driver): could not \(what): \(said.isEmpty ? String(cString: SoapySDR_errToStr(status)) : said)")
    }

    private func strings(_ list: (UnsafeMutablePointer<Int>) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> [String] {
        var count = 0
        var owned = list(&count)
        guard let names = owned else { return [] }
        defer { SoapySDRStrings_clear(&owned, count) }
        return (0..<count).compactMap { names[$0].map { String(cString: $0) } }
    }

    private static func string(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        defer { SoapySDR_free(pointer) }
        return String(cString: pointer)
    }

    static func dictionary(_ kwargs: SoapySDRKwargs) -> [String: String] {
        var result: [String: String] = [:]
        for index in 0..<kwargs.size {
            guard let key = kwargs.keys[index], let value = kwargs.vals[index] else { continue }
            result[String(cString: key)] = String(cString: value)
        }
        return result
    }
}
