@testable import USBDriver

/// What a client process writes to the emulator socket: a stream of 16-byte
/// request headers, each followed by its payload when it sends data (control
/// OUT, bulk OUT), read the way `EmulatorSocketServer` reads them until a
/// header it refuses. Each hello is answered with a reply built from the
/// request's bytes as device strings, decoded back by the documented layout
/// (what Tools/fakeusb/fakeusb.c does), and every response header decodes to
/// what was encoded.
func fuzzEmulatorWire(_ bytes: UnsafeRawBufferPointer) {
    var offset = 0
    while bytes.count - offset >= EmulatorWireFormat.requestHeaderSize {
        let header = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + EmulatorWireFormat.requestHeaderSize])
        offset += EmulatorWireFormat.requestHeaderSize
        let request = EmulatorWireFormat.Request(header: header)
        let length = Int(request.length)
        guard let operation = EmulatorWireFormat.Operation(rawValue: request.operation),
              length <= EmulatorWireFormat.maxPayload else { return }
        let sendsData = operation == .bulkOut || (operation == .control && request.typeOrEndpoint & 0x80 == 0)
        if sendsData {
            guard bytes.count - offset >= length else { return }
            offset += length
        }
        checkResponseHeader(result: Int32(bitPattern: UInt32(request.value) | UInt32(request.index) << 16), length: length)
        if operation == .hello {
            let text = String(decoding: header, as: UTF8.self)
            let info = USBDeviceInfo(vendorID: request.value, productID: request.index, bcdDevice: 0,
                                     manufacturer: request.request & 1 == 0 ? nil : text,
                                     product: request.request & 2 == 0 ? nil : String(repeating: text, count: 20),
                                     serialNumber: request.request & 4 == 0 ? nil : "", bus: header[1], address: header[3])
            checkHelloReply(EmulatorWireFormat.helloReply(info), info)
        }
    }
}

private func checkResponseHeader(result: Int32, length: Int) {
    var header = [UInt8](repeating: 0, count: EmulatorWireFormat.responseHeaderSize)
    header.withUnsafeMutableBytes { EmulatorWireFormat.encodeResponse(result: result, length: length, into: $0) }
    let decodedResult = header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 0, as: Int32.self) }
    let decodedLength = header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) }
    precondition(Int32(littleEndian: decodedResult) == result && Int(UInt32(littleEndian: decodedLength)) == length,
                 "response header does not decode to what was encoded")
}

private func checkHelloReply(_ reply: [UInt8], _ info: USBDeviceInfo) {
    precondition(reply.count >= 14, "hello reply too short")
    precondition(UInt16(reply[0]) | UInt16(reply[1]) << 8 == info.vendorID
                     && UInt16(reply[2]) | UInt16(reply[3]) << 8 == info.productID, "ids")
    var at = 8
    for text in [info.manufacturer, info.product, info.serialNumber] {
        precondition(at + 2 <= reply.count && reply[at] == (text == nil ? 0 : 1), "present flag")
        let count = Int(reply[at + 1])
        precondition(at + 2 + count <= reply.count && count <= 255, "string beyond the reply")
        precondition(Array(reply[(at + 2)..<(at + 2 + count)]) == Array((text ?? "").utf8.prefix(count)), "string bytes")
        at += 2 + count
    }
    precondition(at == reply.count, "bytes after the last string")
}
