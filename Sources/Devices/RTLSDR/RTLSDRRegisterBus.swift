import USBDriver

/// RTL2832U register access over a `USBTransport`, one control transfer per
/// access, exactly as librtlsdr encodes them (see `RTLSDRProtocol`).
struct RTLSDRRegisterBus {
    let transport: USBTransport
    var timeoutMS: UInt32 = RTLSDRProtocol.controlTimeoutMS

    /// Writes a 1- or 2-byte block register (big-endian when 2 bytes).
    func write(_ block: RTLSDRBlock, _ address: UInt16, value: UInt16, length: Int) throws(USBError) {
        let bytes: [UInt8] = length == 1 ? [UInt8(truncatingIfNeeded: value)]
                                         : [UInt8(value >> 8), UInt8(truncatingIfNeeded: value)]
        try transport.controlOut(.rtlWrite(block: block, address: address), data: bytes, timeoutMS: timeoutMS)
    }

    /// Reads a 1-byte block register.
    func read(_ block: RTLSDRBlock, _ address: UInt16) throws(USBError) -> UInt8 {
        let reply = try transport.controlIn(.rtlRead(block: block, address: address), length: 1, timeoutMS: timeoutMS)
        guard let byte = reply.first else {
            throw .io(operation: "read RTL2832U register 0x\(String(address, radix: 16))", detail: "empty reply")
        }
        return byte
    }

    /// Writes a demodulator register, then the dummy read of page 0x0a reg 0x01
    /// librtlsdr does after every demod write.
    func demodWrite(page: UInt8, _ register: UInt8, value: UInt16, length: Int = 1) throws(USBError) {
        let bytes: [UInt8] = length == 1 ? [UInt8(truncatingIfNeeded: value)]
                                         : [UInt8(value >> 8), UInt8(truncatingIfNeeded: value)]
        try transport.controlOut(.demodWrite(page: page, register: register), data: bytes, timeoutMS: timeoutMS)
        _ = try transport.controlIn(.demodRead(page: RTLSDRDemod.dummyReadPage, register: 0x01), length: 1,
                                    timeoutMS: timeoutMS)
    }

    /// Bytes to an I2C device behind the repeater: first byte = register.
    func i2cWrite(address: UInt8, _ bytes: [UInt8]) throws(USBError) {
        try transport.controlOut(.rtlWrite(block: .i2c, address: UInt16(address)), data: bytes, timeoutMS: timeoutMS)
    }

    /// Reads `length` bytes from an I2C device (from the register last written).
    func i2cRead(address: UInt8, length: Int) throws(USBError) -> [UInt8] {
        let reply = try transport.controlIn(.rtlRead(block: .i2c, address: UInt16(address)), length: length,
                                            timeoutMS: timeoutMS)
        guard reply.count == length else {
            throw .io(operation: "I2C read from 0x\(String(address, radix: 16))",
                      detail: "got \(reply.count) of \(length) bytes")
        }
        return reply
    }

    /// Opens (true) or closes the I2C repeater to the tuner.
    func setRepeater(_ on: Bool) throws(USBError) {
        try demodWrite(page: 1, 0x01, value: UInt16(on ? RTLSDRDemod.repeaterOn : RTLSDRDemod.repeaterOff))
    }

    /// Runs `body` with the repeater open, closing it afterwards even on error.
    func withRepeater<T>(_ body: () throws(USBError) -> T) throws(USBError) -> T {
        try setRepeater(true)
        let result: T
        do { result = try body() } catch {
            try? setRepeater(false)
            throw error
        }
        try setRepeater(false)
        return result
    }
}
