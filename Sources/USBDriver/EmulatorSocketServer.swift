import ThreadKit
import CLibUSB
import Foundation

/// Hosts one `FirmwareEmulator` on a Unix-domain socket so that the libusb
/// stand-in (Tools/fakeusb) can reach it from another process. Clients are
/// served one after another on the server's own thread. Protocol:
/// Firmware-Notes/fake-libusb.md.
///
/// Call `stop()` when done: the serving thread keeps the server alive until then.
///
/// Invariant: the emulator, the socket descriptors and the scratch buffer are
/// used by the serving thread alone (the compiler cannot see a thread as an
/// owner); the client descriptor, `stopping` and the thread handle are in
/// `state`; `stop` joins the thread, and only deinit closes and frees them.
public final class EmulatorSocketServer: @unchecked Sendable {
    public let socketPath: String
    private let emulator: FirmwareEmulator
    private let listenFD: Int32
    /// written to by stop() to wake the server thread out of poll()
    private let wakePipe: (read: Int32, write: Int32)
    private struct State {
        /// the client being served (shut down by stop() to end a blocking read)
        var clientFD: Int32 = -1
        var stopping = false
        var thread: WorkerThread?
    }
    private let state = Guarded(State())
    /// reused for every request's data; grows to the largest request seen
    private var scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 64)

    /// Binds `socketPath` (which must not exist) and starts serving.
    public init(emulator: FirmwareEmulator, socketPath: String) throws(USBError) {
        self.emulator = emulator
        self.socketPath = socketPath
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(socketPath.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !pathBytes.isEmpty, pathBytes.count < capacity else {
            throw .io(operation: "emulator socket", detail: "path must be 1…\(capacity - 1) bytes: \(socketPath)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Self.systemError("socket") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            let error = Self.systemError("bind \(socketPath)")
            Glibc.close(fd)
            throw error
        }
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            let error = Self.systemError("pipe")
            Glibc.close(fd)
            unlink(socketPath)
            throw error
        }
        pipeFDs.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
        listenFD = fd
        wakePipe = (pipeFDs[0], pipeFDs[1])
        guard let thread = WorkerThread({ [self] in serve() }) else {
            throw .io(operation: "emulator socket", detail: "could not start the server thread")
        }
        state.withLock { $0.thread = thread }
    }

    deinit {
        stop()
        Glibc.close(listenFD)
        Glibc.close(wakePipe.read)
        Glibc.close(wakePipe.write)
        scratch.deallocate()
    }

    /// Closes the socket, ends the current client and joins the thread. Idempotent.
    public func stop() {
        let thread = state.withLock { state -> WorkerThread?? in
            guard !state.stopping else {
                return .none
            }
            state.stopping = true
            if state.clientFD >= 0 { shutdown(state.clientFD, Int32(SHUT_RDWR)) }
            defer { state.thread = nil }
            return .some(state.thread)
        }
        guard let thread else { return }
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
        thread?.join()
        unlink(socketPath)
    }

    private static func systemError(_ operation: String) -> USBError {
        .io(operation: "emulator socket: \(operation)", detail: String(cString: strerror(errno)))
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    /// Waits until `fd` is readable or stop() is called; false on stop.
    private func waitReadable(_ fd: Int32) -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
        while true {
            let rc = poll(&fds, 2, -1)
            if rc < 0 && errno == EINTR { continue }
            if rc < 0 || fds[1].revents != 0 { return false }
            if fds[0].revents != 0 { return true }
        }
    }

    private func serve() {
        while !isStopping {
            guard waitReadable(listenFD) else { return }
            let client = accept(listenFD, nil, nil)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let accepted = state.withLock { state in
                if !state.stopping { state.clientFD = client }
                return !state.stopping
            }
            if accepted { serveClient(client) }
            state.withLock { $0.clientFD = -1 }
            Glibc.close(client)
        }
    }

    /// Answers requests until the client hangs up, breaks the protocol, or stop().
    private func serveClient(_ fd: Int32) {
        var header = [UInt8](repeating: 0, count: EmulatorWireFormat.requestHeaderSize)
        while waitReadable(fd) {
            let gotHeader = header.withUnsafeMutableBytes { readExactly(fd, $0) }
            guard gotHeader else { return }
            let request = header.withUnsafeBytes { EmulatorWireFormat.Request(header: $0) }
            guard handle(request, fd: fd) else { return }
        }
    }

    /// Handles one request; false ends the connection.
    private func handle(_ request: EmulatorWireFormat.Request, fd: Int32) -> Bool {
        let length = Int(request.length)
        guard let operation = EmulatorWireFormat.Operation(rawValue: request.operation),
              length <= EmulatorWireFormat.maxPayload else { return false }
        switch operation {
        case .hello:
            guard request.value == EmulatorWireFormat.protocolVersion else {
                return respond(fd, result: LIBUSB_ERROR_NOT_SUPPORTED.rawValue, count: 0)
            }
            let reply = EmulatorWireFormat.helloReply(emulator.deviceInfo)
            return respond(fd, bytes: reply)
        case .control:
            let setup = ControlSetup(requestType: ControlRequestType(rawValue: request.typeOrEndpoint),
                                     request: request.request, value: request.value, index: request.index)
            if setup.requestType.isDeviceToHost {
                do {
                    let reply = try emulator.controlIn(setup, length: length)
                    return respond(fd, bytes: Array(reply.prefix(length)))
                } catch {
                    return respond(fd, result: error.libusbCode, count: 0)
                }
            }
            guard let data = readPayload(fd, length: length) else { return false }
            do {
                try emulator.controlOut(setup, data: data)
                return respond(fd, result: Int32(length), count: 0)
            } catch {
                return respond(fd, result: error.libusbCode, count: 0)
            }
        case .bulkIn:
            reserveScratch(length)
            do {
                let count = try pollBulkIn(endpoint: request.typeOrEndpoint, length: length, waitMS: request.waitMS)
                return respond(fd, result: Int32(count), count: count)
            } catch {
                return respond(fd, result: error.libusbCode, count: 0)
            }
        case .bulkOut:
            guard let data = readPayload(fd, length: length) else { return false }
            do {
                let taken = try emulator.bulkOut(endpoint: request.typeOrEndpoint, data: data)
                return respond(fd, result: Int32(clamping: taken), count: 0)
            } catch {
                return respond(fd, result: error.libusbCode, count: 0)
            }
        }
    }

    /// Asks the emulator for bulk IN data into `scratch` until it gives some or
    /// `waitMS` has passed (at least once; emulators pace themselves by NAKing).
    private func pollBulkIn(endpoint: UInt8, length: Int, waitMS: UInt32) throws(USBError) -> Int {
        let buffer = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<length])
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(waitMS) * 1_000_000
        while true {
            let count = min(max(try emulator.bulkIn(endpoint: endpoint, into: buffer), 0), length)
            if count > 0 || DispatchTime.now().uptimeNanoseconds >= deadline || isStopping { return count }
            usleep(EmulatedBulkStream.nakRetryMicroseconds)
        }
    }

    private func reserveScratch(_ length: Int) {
        guard length > scratch.count else { return }
        scratch.deallocate()
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 64)
    }

    private func readPayload(_ fd: Int32, length: Int) -> [UInt8]? {
        var data = [UInt8](repeating: 0, count: length)
        let ok = data.withUnsafeMutableBytes { readExactly(fd, $0) }
        return ok ? data : nil
    }

    /// Sends a header with `result` followed by the first `count` bytes of scratch.
    private func respond(_ fd: Int32, result: Int32, count: Int) -> Bool {
        var header = (UInt64(0))
        return withUnsafeMutableBytes(of: &header) { raw in
            let header = UnsafeMutableRawBufferPointer(rebasing: raw[0..<EmulatorWireFormat.responseHeaderSize])
            EmulatorWireFormat.encodeResponse(result: result, length: count, into: header)
            return writeAll(fd, UnsafeRawBufferPointer(header))
                && (count == 0 || writeAll(fd, UnsafeRawBufferPointer(rebasing: scratch[0..<count])))
        }
    }

    /// Sends `bytes` as a successful reply (result = byte count).
    private func respond(_ fd: Int32, bytes: [UInt8]) -> Bool {
        reserveScratch(bytes.count)
        bytes.withUnsafeBytes { scratch.copyMemory(from: $0) }
        return respond(fd, result: Int32(bytes.count), count: bytes.count)
    }

    private func readExactly(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        var done = 0
        while done < buffer.count {
            let n = recv(fd, buffer.baseAddress! + done, buffer.count - done, 0)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            done += n
        }
        return true
    }

    private func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < buffer.count {
            let n = send(fd, buffer.baseAddress! + done, buffer.count - done, Int32(MSG_NOSIGNAL))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            done += n
        }
        return true
    }
}
