import ThreadKit
import CLibUSB
import Foundation

/// Continuous bulk IN on libusb: `transferCount` transfers of `transferSize`
/// bytes, allocated once, kept submitted, and serviced by a dedicated event
/// thread. Each completed transfer goes to `onData` and is resubmitted.
///
/// Invariant: the libusb transfers and their buffers are C memory (not
/// Sendable to Swift) touched by libusb's event thread in callbacks and freed
/// only in deinit, after `finish` has seen every transfer come back and
/// joined that thread; the bookkeeping the threads share is in `state`.
final class LibUSBBulkStream: @unchecked Sendable {
    private let context: LibUSBContext
    private let deviceName: String
    private let onData: BulkDataHandler
    private let onEnd: BulkEndHandler
    private let transfers: [UnsafeMutablePointer<libusb_transfer>]
    /// one allocation holding every transfer's buffer
    private let storage: UnsafeMutableRawPointer

    private struct State {
        var inFlight: [Bool]
        var inFlightCount = 0
        /// no more resubmits or deliveries; the event thread ends when none is in flight
        var stopping = false
        /// onEnd has been called (exactly once per stream)
        var ended = false
        var eventThread: WorkerThread?
    }
    private let state: Guarded<State>
    /// signalled whenever a transfer comes back, so `finish` looks again at what is in flight
    private let returned = DispatchSemaphore(value: 0)

    init(context: LibUSBContext, handle: OpaquePointer, endpoint: UInt8, transferSize: Int, transferCount: Int,
         deviceName: String, onData: @escaping BulkDataHandler, onEnd: @escaping BulkEndHandler) throws(USBError) {
        guard transferSize > 0, transferSize <= Int(Int32.max), (1...64).contains(transferCount) else {
            throw .io(operation: "start bulk stream",
                      detail: "need 1…64 transfers of a positive size (got \(transferCount) × \(transferSize) bytes)")
        }
        var allocated: [UnsafeMutablePointer<libusb_transfer>] = []
        for _ in 0..<transferCount {
            guard let transfer = libusb_alloc_transfer(0) else {
                allocated.forEach { libusb_free_transfer($0) }
                throw .io(operation: "start bulk stream", detail: "out of memory for USB transfers")
            }
            allocated.append(transfer)
        }
        self.context = context
        self.deviceName = deviceName
        self.onData = onData
        self.onEnd = onEnd
        self.transfers = allocated
        self.storage = UnsafeMutableRawPointer.allocate(byteCount: transferSize * transferCount, alignment: 64)
        state = Guarded(State(inFlight: Array(repeating: false, count: transferCount)))

        let me = Unmanaged.passUnretained(self).toOpaque()
        for (index, transfer) in transfers.enumerated() {
            transfer.pointee.dev_handle = handle
            transfer.pointee.endpoint = endpoint
            transfer.pointee.type = UInt8(LIBUSB_TRANSFER_TYPE_BULK.rawValue)
            transfer.pointee.timeout = 0 // a stream waits for data indefinitely; stop() cancels
            transfer.pointee.buffer = storage.advanced(by: index * transferSize).assumingMemoryBound(to: UInt8.self)
            transfer.pointee.length = Int32(transferSize)
            transfer.pointee.user_data = me
            transfer.pointee.callback = bulkStreamTransferDone
        }
    }

    deinit {
        transfers.forEach { libusb_free_transfer($0) }
        storage.deallocate()
    }

    /// true once the stream ended by itself (an error was reported through onEnd)
    var hasEnded: Bool { state.withLock { $0.ended } }

    /// Starts the event thread and submits every transfer.
    func start() throws(USBError) {
        guard let thread = WorkerThread({ [self] in runEvents() }) else {
            throw .io(operation: "start bulk stream", detail: "could not start the USB event thread")
        }
        let refused: Int32? = state.withLock { state in
            state.eventThread = thread
            for index in transfers.indices {
                let rc = libusb_submit_transfer(transfers[index])
                guard rc == 0 else { return rc }
                state.inFlight[index] = true
                state.inFlightCount += 1
            }
            return nil
        }
        if let refused {
            finish(reportingEnd: false)
            throw .fromLibUSB(refused, operation: "submit bulk transfer", device: deviceName)
        }
    }

    /// Cancels every transfer, waits until all have come back, stops the event
    /// thread and then reports onEnd(nil) unless an error already ended the stream.
    func stop() {
        finish(reportingEnd: true)
    }

    private func finish(reportingEnd: Bool) {
        let alreadyEnded = state.withLock { state in
            defer {
                state.stopping = true
                state.ended = true
                cancelInFlight(state.inFlight)
            }
            return state.ended
        }
        // 100 ms: a bound on each wait, in case a signal was taken by an earlier look
        while state.withLock({ $0.inFlightCount }) > 0 { _ = returned.wait(timeout: .now() + 0.1) }
        libusb_interrupt_event_handler(context.pointer)
        let thread = state.withLock { state in
            defer { state.eventThread = nil }
            return state.eventThread
        }
        thread?.join()
        if reportingEnd && !alreadyEnded { onEnd(nil) }
    }

    /// Inside `state`'s lock.
    private func cancelInFlight(_ inFlight: [Bool]) {
        for index in transfers.indices where inFlight[index] {
            // NOT_FOUND means it already completed; its callback is still due
            _ = libusb_cancel_transfer(transfers[index])
        }
    }

    private func runEvents() {
        // 100 ms: how long the thread may sleep before rechecking for stop
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        while true {
            if state.withLock({ $0.stopping && $0.inFlightCount == 0 }) { return }
            libusb_handle_events_timeout_completed(context.pointer, &timeout, nil)
        }
    }

    /// Called by libusb (on an event thread) when `transfer` comes back:
    /// delivered and resubmitted while the stream runs, else counted as back.
    fileprivate func transferDone(_ transfer: UnsafeMutablePointer<libusb_transfer>) {
        guard let index = transfers.firstIndex(of: transfer) else { return }
        let status = transfer.pointee.status
        let completed = status == LIBUSB_TRANSFER_COMPLETED
        if completed && !state.withLock({ $0.stopping }) {
            onData(UnsafeRawBufferPointer(start: transfer.pointee.buffer, count: Int(transfer.pointee.actual_length)))
        }
        let failure: USBError? = state.withLock { state in
            if completed && !state.stopping {
                let rc = libusb_submit_transfer(transfers[index])
                if rc == 0 { return nil }
                state.inFlight[index] = false
                state.inFlightCount -= 1
                return endWithError(&state, .fromLibUSB(rc, operation: "resubmit bulk transfer", device: deviceName))
            }
            state.inFlight[index] = false
            state.inFlightCount -= 1
            if !completed && status != LIBUSB_TRANSFER_CANCELLED && !state.stopping {
                return endWithError(&state, .fromTransferStatus(status, device: deviceName))
            }
            return nil
        }
        returned.signal()
        if let failure { onEnd(failure) }
    }

    /// Inside `state`'s lock: the first failure ends the stream; the error to report, once.
    private func endWithError(_ state: inout State, _ error: USBError) -> USBError? {
        state.stopping = true
        let report = !state.ended
        state.ended = true
        cancelInFlight(state.inFlight)
        return report ? error : nil
    }
}

/// libusb transfer callback: forwards to the stream named by user_data.
private func bulkStreamTransferDone(_ transfer: UnsafeMutablePointer<libusb_transfer>?) {
    guard let transfer, let owner = transfer.pointee.user_data else { return }
    Unmanaged<LibUSBBulkStream>.fromOpaque(owner).takeUnretainedValue().transferDone(transfer)
}
