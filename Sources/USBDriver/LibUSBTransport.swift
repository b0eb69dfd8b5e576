import CLibUSB
import Foundation
import ThreadKit

/// A `USBTransport` on libusb-1.0: one opened device with one claimed interface.
///
/// Invariant: the device handle is a C pointer (not Sendable to Swift), read
/// and cleared only in `state`; libusb's synchronous transfer calls on one
/// handle are thread-safe (libusb-1.0 docs, "Multi-threaded applications"),
/// and `close` stops the stream before it closes the handle.
public final class LibUSBTransport: USBTransport, @unchecked Sendable {
    public let deviceInfo: USBDeviceInfo
    /// model name used in error messages ("HackRF One")
    private let deviceName: String
    private let context: LibUSBContext
    /// the interfaces claimed (released on close)
    private let interfaceNumbers: [Int32]
    private struct State {
        /// libusb_device_handle*; nil after close()
        var handle: OpaquePointer?
        var stream: LibUSBBulkStream?
    }
    private let state: Guarded<State>

    private init(deviceInfo: USBDeviceInfo, deviceName: String, context: LibUSBContext,
                 interfaceNumbers: [Int32], handle: sending OpaquePointer) {
        self.deviceInfo = deviceInfo
        self.deviceName = deviceName
        self.context = context
        self.interfaceNumbers = interfaceNumbers
        state = Guarded(State(handle: handle))
    }

    deinit { close() }

    /// Finds the first device with these ids (and `serial`, if given), opens
    /// it, selects configuration 1 unless already active, optionally detaches
    /// a kernel driver (RTL-SDR's dvb_usb_rtl28xxu) and claims `interface`
    /// and `alsoClaim` (a CDC-ACM port's data interface: using its endpoints
    /// unclaimed makes the kernel claim it on the fly and log a warning).
    /// `deviceName` names the model in error messages.
    public static func open(vendorID: UInt16, productID: UInt16, serial: String? = nil,
                            interface: Int32 = 0, alsoClaim: [Int32] = [], detachKernelDriver: Bool = false,
                            deviceName: String? = nil) throws(USBError) -> LibUSBTransport {
        let name = deviceName ?? "USB device \(USBDeviceInfo(vendorID: vendorID, productID: productID).idString)"
        guard let context = LibUSBContext.shared else { throw .notFound(device: name) }
        let (handle, info) = try openMatching(context: context, vendorID: vendorID, productID: productID,
                                              serial: serial, name: name)
        let interfaces = [interface] + alsoClaim
        do {
            try prepare(handle, interfaces: interfaces, detachKernelDriver: detachKernelDriver, name: name)
        } catch {
            libusb_close(handle)
            throw error
        }
        return LibUSBTransport(deviceInfo: info, deviceName: name, context: context,
                               interfaceNumbers: interfaces, handle: handle)
    }

    private static func openMatching(context: LibUSBContext, vendorID: UInt16, productID: UInt16,
                                     serial: String?, name: String) throws(USBError) -> (OpaquePointer, USBDeviceInfo) {
        var list: UnsafeMutablePointer<OpaquePointer?>?
        let count = libusb_get_device_list(context.pointer, &list)
        guard count >= 0, let list else {
            throw USBError.fromLibUSB(Int32(truncatingIfNeeded: count), operation: "device enumeration", device: name)
        }
        defer { libusb_free_device_list(list, 1) }

        // an open failure is reported only if no other matching device opens
        var firstFailure: USBError?
        for index in 0..<count {
            guard let device = list[index] else { continue }
            var descriptor = libusb_device_descriptor()
            guard libusb_get_device_descriptor(device, &descriptor) == 0,
                  descriptor.idVendor == vendorID, descriptor.idProduct == productID else { continue }
            var handle: OpaquePointer?
            let rc = libusb_open(device, &handle)
            guard rc == 0, let handle else {
                if firstFailure == nil { firstFailure = .fromLibUSB(rc, operation: "open", device: name) }
                continue
            }
            let info = USBEnumerator.info(device: device, descriptor: descriptor, handle: handle)
            if let serial, info.serialNumber != serial {
                libusb_close(handle)
                continue
            }
            return (handle, info)
        }
        if let firstFailure { throw firstFailure }
        throw .notFound(device: serial.map { "\(name) with serial \($0)" } ?? name)
    }

    private static func prepare(_ handle: OpaquePointer, interfaces: [Int32], detachKernelDriver: Bool,
                                name: String) throws(USBError) {
        var configuration: Int32 = 0
        var rc = libusb_get_configuration(handle, &configuration)
        guard rc == 0 else { throw .fromLibUSB(rc, operation: "get configuration", device: name) }
        if configuration != 1 {
            rc = libusb_set_configuration(handle, 1)
            guard rc == 0 else { throw .fromLibUSB(rc, operation: "set configuration", device: name) }
        }
        for (index, interface) in interfaces.enumerated() {
            if detachKernelDriver, libusb_kernel_driver_active(handle, interface) == 1 {
                rc = libusb_detach_kernel_driver(handle, interface)
                guard rc == 0 else { throw .fromLibUSB(rc, operation: "detach kernel driver", device: name) }
            }
            rc = libusb_claim_interface(handle, interface)
            guard rc == 0 else {
                for claimed in interfaces[..<index] { libusb_release_interface(handle, claimed) }
                throw .fromLibUSB(rc, operation: "claim interface \(interface)", device: name)
            }
        }
    }

    /// The open handle, or `.disconnected` after close().
    private func openHandle() throws(USBError) -> OpaquePointer {
        guard let handle = state.withLock({ $0.handle }) else { throw .disconnected(device: deviceName) }
        return handle
    }

    public func controlOut(_ setup: ControlSetup, data: [UInt8], timeoutMS: UInt32) throws(USBError) {
        let handle = try openHandle()
        guard data.count <= Int(UInt16.max) else {
            throw .io(operation: "control OUT (\(setup))", detail: "\(data.count) bytes exceed the 65535-byte limit")
        }
        var payload = data
        let rc = payload.withUnsafeMutableBufferPointer { bytes in
            libusb_control_transfer(handle, setup.requestType.rawValue, setup.request, setup.value, setup.index,
                                    bytes.baseAddress, UInt16(bytes.count), timeoutMS)
        }
        guard rc >= 0 else {
            throw .fromLibUSB(rc, operation: "control OUT (\(setup))", device: deviceName, timeoutMS: timeoutMS)
        }
    }

    public func controlIn(_ setup: ControlSetup, length: Int, timeoutMS: UInt32) throws(USBError) -> [UInt8] {
        let handle = try openHandle()
        guard (0...Int(UInt16.max)).contains(length) else {
            throw .io(operation: "control IN (\(setup))", detail: "length \(length) outside 0…65535")
        }
        var buffer = [UInt8](repeating: 0, count: length)
        let rc = buffer.withUnsafeMutableBufferPointer { bytes in
            libusb_control_transfer(handle, setup.requestType.rawValue, setup.request, setup.value, setup.index,
                                    bytes.baseAddress, UInt16(length), timeoutMS)
        }
        guard rc >= 0 else {
            throw .fromLibUSB(rc, operation: "control IN (\(setup))", device: deviceName, timeoutMS: timeoutMS)
        }
        buffer.removeSubrange(Int(rc)...)
        return buffer
    }

    public func bulkIn(endpoint: UInt8, length: Int, timeoutMS: UInt32) throws(USBError) -> [UInt8] {
        let handle = try openHandle()
        guard (0...Int(Int32.max)).contains(length) else {
            throw .io(operation: "bulk IN", detail: "length \(length) is out of range")
        }
        var buffer = [UInt8](repeating: 0, count: length)
        var transferred: Int32 = 0
        let rc = buffer.withUnsafeMutableBufferPointer { bytes in
            libusb_bulk_transfer(handle, endpoint, bytes.baseAddress, Int32(length), &transferred, timeoutMS)
        }
        guard rc == 0 else {
            throw .fromLibUSB(rc, operation: "bulk IN (endpoint 0x\(String(endpoint, radix: 16)))",
                              device: deviceName, timeoutMS: timeoutMS)
        }
        buffer.removeSubrange(Int(transferred)...)
        return buffer
    }

    public func bulkOut(endpoint: UInt8, data: [UInt8], timeoutMS: UInt32) throws(USBError) -> Int {
        let handle = try openHandle()
        guard data.count <= Int(Int32.max) else {
            throw .io(operation: "bulk OUT", detail: "\(data.count) bytes is too large for one transfer")
        }
        var payload = data
        var transferred: Int32 = 0
        let rc = payload.withUnsafeMutableBufferPointer { bytes in
            libusb_bulk_transfer(handle, endpoint, bytes.baseAddress, Int32(bytes.count), &transferred, timeoutMS)
        }
        guard rc == 0 else {
            throw .fromLibUSB(rc, operation: "bulk OUT (endpoint 0x\(String(endpoint, radix: 16)))",
                              device: deviceName, timeoutMS: timeoutMS)
        }
        return Int(transferred)
    }

    public func startBulkStream(endpoint: UInt8, transferSize: Int, transfersInFlight: Int,
                                onData: @escaping BulkDataHandler,
                                onEnd: @escaping BulkEndHandler) throws(USBError) {
        try state.withLock { (state) throws(USBError) in
            guard let handle = state.handle else { throw .disconnected(device: deviceName) }
            if let running = state.stream {
                guard running.hasEnded else { throw .streamAlreadyRunning }
                running.stop()
                state.stream = nil
            }
            let newStream = try LibUSBBulkStream(
                context: context, handle: handle, endpoint: endpoint, transferSize: transferSize,
                transferCount: transfersInFlight, deviceName: deviceName, onData: onData, onEnd: onEnd)
            try newStream.start()
            state.stream = newStream
        }
    }

    public func stopBulkStream() {
        let running = state.withLock { state in
            defer { state.stream = nil }
            return state.stream
        }
        running?.stop()
    }

    public func close() {
        stopBulkStream()
        state.withLock { state in
            guard let open = state.handle else { return }
            state.handle = nil
            for interface in interfaceNumbers { libusb_release_interface(open, interface) }
            libusb_close(open)
        }
    }
}
