import ThreadKit
import CLibUSB
import Foundation

/// Continuous bulk IN on libusb: `transferCount` transfers of `transferSize`
/// bytes, allocated once, kept submitted, and serviced by a dedicated event
/// thread. Each completed transfer goes to `onData` and is resubmitted.
// @unchecked: the libusb transfers and their buffers are C memory touched by
// libusb's event thread in callbacks and freed only after that thread is
// joined; the in-flight bookkeeping it shares is under `condition`.
final class LibUSBBulkStream: @unchecked Sendable {
    private let context: LibUSBContext
    private let deviceName: String
    private let onData: BulkDataHandler
    private let onEnd: BulkEndHandler
    private let transfers: [UnsafeMutablePointer<libusb_transfer>]
    /// one allocation holding every transfer's buffer
    private let storage: UnsafeMutableRawPointer

    /// guards everything below; signalled whenever a transfer comes back
    private let condition = NSCondition()
    private var inFlight: [Bool]
    private var inFlightCount = 0
    /// no more resubmits or deliveries; the event thread ends when none is in flight
    private var stopping = false
    /// onEnd has been called (exactly once per stream)
    private var ended = false
    private var eventThread: WorkerThread?

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
        self.inFlight = Array(repeating: false, count: transferCount)

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
    var hasEnded: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended
    }

    /// Starts the event thread and submits every transfer.
    func start() throws(USBError) {
        guard let thread = WorkerThread({ [self] in runEvents() }) else {
            throw .io(operation: "start bulk stream", detail: "could not start the USB event thread")
        }
        eventThread = thread
        condition.lock()
        for index in transfers.indices {
            let rc = libusb_submit_transfer(transfers[index])
            guard rc == 0 else {
                condition.unlock()
                finish(reportingEnd: false)
                throw .fromLibUSB(rc, operation: "submit bulk transfer", device: deviceName)
            }
            inFlight[index] = true
            inFlightCount += 1
        }
        condition.unlock()
    }

    /// Cancels every transfer, waits until all have come back, stops the event
    /// thread and then reports onEnd(nil) unless an error already ended the stream.
    func stop() {
        finish(reportingEnd: true)
    }

    private func finish(reportingEnd: Bool) {
        condition.lock()
        let alreadyEnded = ended
        stopping = true
        ended = true
        cancelInFlight()
        while inFlightCount > 0 { condition.wait() }
        condition.unlock()
        libusb_interrupt_event_handler(context.pointer)
        eventThread?.join()
        eventThread = nil
        if reportingEnd && !alreadyEnded { onEnd(nil) }
    }

    /// With `condition` held.
    private func cancelInFlight() {
        for index in transfers.indices where inFlight[index] {
            // NOT_FOUND means it already completed; its callback is still due
            _ = libusb_cancel_transfer(transfers[index])
        }
    }

    private func runEvents() {
        // 100 ms: how long the thread may sleep before rechecking for stop
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        while true {
            condition.lock()
            let done = stopping && inFlightCount == 0
            condition.unlock()
            if done { return }
            libusb_handle_events_timeout_completed(context.pointer, &timeout, nil)
        }
    }

    /// Called by libusb (on an event thread) when `transfer` comes back.
    fileprivate func transferDone(_ transfer: UnsafeMutablePointer<libusb_transfer>) {
        guard let index = transfers.firstIndex(of: transfer) else { return }
        let status = transfer.pointee.status
        condition.lock()
        if status == LIBUSB_TRANSFER_COMPLETED && !stopping {
            condition.unlock()
            let length = Int(transfer.pointee.actual_length)
            onData(UnsafeRawBufferPointer(start: transfer.pointee.buffer, count: length))
            condition.lock()
            if !stopping {
                let rc = libusb_submit_transfer(transfer)
                if rc == 0 {
                    condition.unlock()
                    return
                }
                inFlight[index] = false
                inFlightCount -= 1
                endWithError(.fromLibUSB(rc, operation: "resubmit bulk transfer", device: deviceName))
                return
            }
        }
        inFlight[index] = false
        inFlightCount -= 1
        if status != LIBUSB_TRANSFER_COMPLETED && status != LIBUSB_TRANSFER_CANCELLED && !stopping {
            endWithError(.fromTransferStatus(status, device: deviceName))
            return
        }
        condition.broadcast()
        condition.unlock()
    }

    /// With `condition` held; releases it. The first failure ends the stream.
    private func endWithError(_ error: USBError) {
        stopping = true
        let report = !ended
        ended = true
        cancelInFlight()
        condition.broadcast()
        condition.unlock()
        if report { onEnd(error) }
    }
}

/// libusb transfer callback: forwards to the stream named by user_data.
private func bulkStreamTransferDone(_ transfer: UnsafeMutablePointer<libusb_transfer>?) {
    guard let transfer, let owner = transfer.pointee.user_data else { return }
    Unmanaged<LibUSBBulkStream>.fromOpaque(owner).takeUnretainedValue().transferDone(transfer)
}
