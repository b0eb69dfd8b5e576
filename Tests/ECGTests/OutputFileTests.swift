import Foundation
import Testing
@testable import ECG

/// An output path that is a FIFO (as `/dev/stdout` or `/dev/null` is a device) is written through, not
/// replaced by a regular file renamed over it; a regular file is replaced whole.
@Suite struct OutputFileTests {
    @Test func aFIFOIsWrittenThroughAndStaysAFIFO() throws {
        let directory = NSTemporaryDirectory() + "tscope-output-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/out.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let received = ReadBack()
        let done = DispatchSemaphore(value: 0)
        let reader = Thread {
            // opening for reading waits for the writer; reading to the end waits for it to close
            if let handle = FileHandle(forReadingAtPath: fifo) { received.set(handle.readDataToEndOfFile()) }
            done.signal()
        }
        reader.start()
        #expect(OutputFile.write(payload, to: fifo))
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(received.get() == payload)
        var status = stat()
        #expect(stat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
    }

    @Test func aRegularFileIsReplacedWhole() throws {
        let path = NSTemporaryDirectory() + "tscope-output-" + UUID().uuidString + ".txt"
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(OutputFile.write(Data(String(repeating: "long old text\n", count: 100).utf8), to: path))
        #expect(OutputFile.write(Data("new\n".utf8), to: path))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
        #expect(!OutputFile.write(Data("x".utf8), to: "/nonexistent-directory-of-tscope/out.txt"))
    }
}

private final class ReadBack: @unchecked Sendable {
    // Invariant: `data` is only read and written under `lock`.
    private let lock = NSLock()
    private var data: Data?
    func set(_ value: Data) { lock.lock(); data = value; lock.unlock() }
    func get() -> Data? { lock.lock(); defer { lock.unlock() }; return data }
}
