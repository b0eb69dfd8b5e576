/// Direction and type bits of a control transfer's bmRequestType.
public struct ControlRequestType: Sendable, Equatable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// vendor request to the device, host → device (0x40)
    public static let vendorOut = ControlRequestType(rawValue: 0x40)
    /// vendor request to the device, device → host (0xC0)
    public static let vendorIn = ControlRequestType(rawValue: 0xC0)
    /// vendor request to an interface, host → device (0x41; CP210x)
    public static let vendorInterfaceOut = ControlRequestType(rawValue: 0x41)
    /// class request to an interface, host → device (0x21; CDC-ACM)
    public static let classInterfaceOut = ControlRequestType(rawValue: 0x21)

    public var isDeviceToHost: Bool { rawValue & 0x80 != 0 }
}

/// The setup packet of a control transfer, less its length.
public struct ControlSetup: Sendable, Equatable, CustomStringConvertible {
    public var requestType: ControlRequestType
    public var request: UInt8
    public var value: UInt16
    public var index: UInt16

    public init(requestType: ControlRequestType, request: UInt8, value: UInt16 = 0, index: UInt16 = 0) {
        self.requestType = requestType
        self.request = request
        self.value = value
        self.index = index
    }

    public var description: String {
        "type 0x\(String(requestType.rawValue, radix: 16)) req \(request) value \(value) index \(index)"
    }
}

/// Receives bulk IN data while a stream runs. Called on the transport's own
/// thread (libusb event thread or emulator thread): it must not block. The
/// buffer is only valid during the call.
public typealias BulkDataHandler = @Sendable (UnsafeRawBufferPointer) -> Void

/// Called once when a stream ends: nil after `stopBulkStream()`, else the error
/// that ended it (e.g. `.disconnected`).
public typealias BulkEndHandler = @Sendable (USBError?) -> Void

/// The seam between device drivers and USB. `LibUSBTransport` talks to real
/// hardware through libusb-1.0; `EmulatedTransport` hosts a firmware emulator.
/// A driver never knows which one it has. Sendable: a transport is opened on
/// one thread and streams on another, so its calls must be safe from any.
public protocol USBTransport: AnyObject, Sendable {
    /// What was opened: ids, serial, bus/address.
    var deviceInfo: USBDeviceInfo { get }

    /// Control transfer host → device; `data` may be empty.
    func controlOut(_ setup: ControlSetup, data: [UInt8], timeoutMS: UInt32) throws(USBError)

    /// Control transfer device → host; returns at most `length` bytes.
    func controlIn(_ setup: ControlSetup, length: Int, timeoutMS: UInt32) throws(USBError) -> [UInt8]

    /// One synchronous bulk IN read of up to `length` bytes.
    func bulkIn(endpoint: UInt8, length: Int, timeoutMS: UInt32) throws(USBError) -> [UInt8]

    /// One synchronous bulk OUT write; returns bytes written.
    func bulkOut(endpoint: UInt8, data: [UInt8], timeoutMS: UInt32) throws(USBError) -> Int

    /// Starts continuous bulk IN with `transfersInFlight` transfers of
    /// `transferSize` bytes each kept queued; every completed transfer is handed
    /// to `onData` in order. Throws if a stream is already running.
    func startBulkStream(endpoint: UInt8, transferSize: Int, transfersInFlight: Int,
                         onData: @escaping BulkDataHandler,
                         onEnd: @escaping BulkEndHandler) throws(USBError)

    /// Cancels the stream's transfers and waits until none is in flight; after
    /// it returns `onData` is not called again. Safe to call when none runs.
    func stopBulkStream()

    /// Releases the interface and closes the device. Idempotent.
    func close()
}

/// One attached (or emulated) USB device as enumeration sees it.
public struct USBDeviceInfo: Sendable, Equatable {
    public var vendorID: UInt16
    public var productID: UInt16
    /// bcdDevice from the device descriptor (HackRF: USB API version)
    public var bcdDevice: UInt16
    public var manufacturer: String?
    public var product: String?
    public var serialNumber: String?
    public var bus: UInt8
    public var address: UInt8

    public init(vendorID: UInt16, productID: UInt16, bcdDevice: UInt16 = 0,
                manufacturer: String? = nil, product: String? = nil, serialNumber: String? = nil,
                bus: UInt8 = 0, address: UInt8 = 0) {
        self.vendorID = vendorID
        self.productID = productID
        self.bcdDevice = bcdDevice
        self.manufacturer = manufacturer
        self.product = product
        self.serialNumber = serialNumber
        self.bus = bus
        self.address = address
    }

    /// "1d50:6089"
    public var idString: String {
        func hex4(_ v: UInt16) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: 4 - s.count) + s
        }
        return "\(hex4(vendorID)):\(hex4(productID))"
    }
}
