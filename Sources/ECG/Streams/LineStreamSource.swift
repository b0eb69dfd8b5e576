import Foundation

/// A live source reading text lines from a file descriptor: a serial port
/// (`SerialPort`), stdin or a pipe. Never blocks: `read` polls the descriptor,
/// takes what has arrived and returns `.waiting` when nothing has.
public final class LineStreamSource: ECGSource {
    public let name: String
    public let leadNames: [String]
    public let sampleRate: Double
    private let descriptor: Int32
    private let closesDescriptor: Bool
    private var parser: LineSampleParser
    /// parsed samples not yet handed out, one ring per lead
    private var pending: [SampleRing]
    private var readBuffer: [UInt8]
    private var ended = false
    private var delivered = 0

    /// - Parameters:
    ///   - name: the device path or "stdin", for messages
    ///   - sampleRate: the rate the device sends at [Hz] (lines carry no time)
    ///   - closesDescriptor: close it when the source goes away
    public init(descriptor: Int32, name: String, sampleRate: Double, parser: LineSampleParser, closesDescriptor: Bool) {
        self.descriptor = descriptor
        self.name = name
        self.sampleRate = sampleRate
        self.parser = parser
        self.closesDescriptor = closesDescriptor
        leadNames = (1...parser.leadCount).map { "\($0)" }
        // two seconds of samples (and at least what one full read can carry) may
        // wait between reads before the oldest are dropped
        pending = Array(repeating: SampleRing(capacity: max(Self.readSize, Int(2 * sampleRate))), count: parser.leadCount)
        readBuffer = Array(repeating: 0, count: Self.readSize)
    }

    /// Reads lines from stdin (`--stdin --rate R`).
    public static func standardInput(sampleRate: Double, parser: LineSampleParser) -> LineStreamSource {
        LineStreamSource(descriptor: STDIN_FILENO, name: "stdin", sampleRate: sampleRate, parser: parser, closesDescriptor: false)
    }

    deinit {
        if closesDescriptor { close(descriptor) }
    }

    /// lines skipped as garbage so far
    public var garbageLines: Int { parser.garbageLines }
    /// lines skipped for NaN or infinite values
    public var nonFiniteLines: Int { parser.nonFiniteLines }
    /// samples dropped because the reader fell behind
    public var droppedSamples: Int { pending.first?.overwritten ?? 0 }

    public func read(into chunk: inout ECGChunk) throws -> ECGReadResult {
        if !ended { try drainDescriptor() }
        let count = pending.first.map { min($0.count, chunk.capacity) } ?? 0
        guard count > 0 else { return ended ? .end : .waiting }
        for lead in pending.indices where lead < chunk.leads.count {
            chunk.leads[lead].withUnsafeMutableBufferPointer {
                _ = pending[lead].read(into: UnsafeMutableBufferPointer(rebasing: $0[0..<count]))
            }
        }
        chunk.count = count
        chunk.firstSampleIndex = delivered
        delivered += count
        return .samples(count)
    }

    /// bytes per read; a read of one-character lines carries at most half as many samples
    static let readSize = 4096

    /// Reads what is available now, without blocking, while the rings have room
    /// for another full read: a producer faster than the consumer (a file piped
    /// in) waits in the pipe instead of losing samples.
    private func drainDescriptor() throws {
        while let ring = pending.first, ring.count <= ring.capacity - Self.readSize / 2 {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 0)
            if ready < 0 {
                if errno == EINTR { continue }
                throw ECGError(file: name, "cannot poll: \(String(cString: strerror(errno)))")
            }
            if ready == 0 { return }
            if poller.revents & Int16(POLLIN) == 0 {
                // hang-up or error with no data left: the device went away
                ended = true
                return
            }
            let got = readBuffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR || errno == EAGAIN { return }
                throw ECGError(file: name, "read failed: \(String(cString: strerror(errno)))")
            }
            if got == 0 {
                ended = true
                return
            }
            readBuffer.withUnsafeBytes { bytes in
                parser.feed(UnsafeRawBufferPointer(rebasing: bytes[0..<got])) { values in
                    for lead in values.indices {
                        withUnsafePointer(to: Float(values[lead])) {
                            pending[lead].write(UnsafeBufferPointer(start: $0, count: 1))
                        }
                    }
                }
            }
            if got < readBuffer.count { return }
        }
    }
}
