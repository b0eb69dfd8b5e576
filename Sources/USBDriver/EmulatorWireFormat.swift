/// The request/response framing between `EmulatorSocketServer` and the
/// libusb stand-in Tools/fakeusb/fakeusb.c (Firmware-Notes/fake-libusb.md).
/// All integers little-endian.
enum EmulatorWireFormat {
    static let protocolVersion: UInt16 = 1
    /// op u8, type/endpoint u8, request u8, reserved u8, value u16, index u16, length u32, wait [ms] u32
    static let requestHeaderSize = 16
    /// result i32 (≥ 0 ok, < 0 libusb error code), length u32 of the data that follows
    static let responseHeaderSize = 8
    /// largest data part of one request or response [bytes]
    static let maxPayload = 16 << 20

    enum Operation: UInt8 {
        case hello = 1
        case control = 2
        case bulkIn = 3
        case bulkOut = 4
    }

    struct Request {
        var operation: UInt8
        /// bmRequestType for control, the endpoint address for bulk
        var typeOrEndpoint: UInt8
        var request: UInt8
        var value: UInt16
        var index: UInt16
        /// bytes wanted (IN) or bytes following the header (OUT)
        var length: UInt32
        /// bulk IN: how long the server may wait for data before answering with none [ms]
        var waitMS: UInt32

        init(header bytes: UnsafeRawBufferPointer) {
            operation = bytes[0]
            typeOrEndpoint = bytes[1]
            request = bytes[2]
            value = UInt16(bytes[4]) | UInt16(bytes[5]) << 8
            index = UInt16(bytes[6]) | UInt16(bytes[7]) << 8
            length = Self.u32(bytes, 8)
            waitMS = Self.u32(bytes, 12)
        }

        private static func u32(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
    }

    /// Writes a response header into `header` (8 bytes).
    static func encodeResponse(result: Int32, length: Int, into header: UnsafeMutableRawBufferPointer) {
        let r = UInt32(bitPattern: result)
        let l = UInt32(truncatingIfNeeded: length)
        for i in 0..<4 {
            header[i] = UInt8(truncatingIfNeeded: r >> (8 * UInt32(i)))
            header[4 + i] = UInt8(truncatingIfNeeded: l >> (8 * UInt32(i)))
        }
    }

    /// Hello reply: vid u16, pid u16, bcdDevice u16, bus u8, address u8, then
    /// manufacturer, product, serial each as present u8, length u8, bytes.
    static func helloReply(_ info: USBDeviceInfo) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in [info.vendorID, info.productID, info.bcdDevice] {
            bytes.append(UInt8(value & 0xff))
            bytes.append(UInt8(value >> 8))
        }
        bytes.append(info.bus)
        bytes.append(info.address)
        for text in [info.manufacturer, info.product, info.serialNumber] {
            let utf8 = Array((text ?? "").utf8.prefix(255))
            bytes.append(text == nil ? 0 : 1)
            bytes.append(UInt8(utf8.count))
            bytes.append(contentsOf: utf8)
        }
        return bytes
    }
}
