import USBDriver

/// The Silicon Labs CP210x USB-to-UART bridge in front of an RF Explorer:
/// its UART is configured with vendor requests to interface 0 (bmRequestType
/// 0x41). Request numbers and values: Silicon Labs AN571 "CP210x Virtual
/// COM Port Interface", section 5 (as listed in tinyusb's
/// src/class/cdc/serial/cp210x.h). Firmware-Notes/rfexplorer.md.
public enum CP210xBridge {
    /// Silicon Labs CP210x default ids (RF Explorer keeps them)
    public static let vendorID: UInt16 = 0x10c4
    public static let productID: UInt16 = 0xea60

    public static let interface: UInt16 = 0
    public static let bulkInEndpoint: UInt8 = 0x81
    public static let bulkOutEndpoint: UInt8 = 0x01

    public enum Request: UInt8, Sendable {
        /// wValue 1 enables the UART, 0 disables it
        case ifcEnable = 0x00
        /// wValue: bits 0–3 stop bits, 4–7 parity, 8–15 data bits
        case setLineControl = 0x03
        /// wValue: DTR bit 0, RTS bit 1, their write masks bits 8 and 9
        case setModemHandshake = 0x07
        /// wValue: bit 0 TX, 1 RX (transmit/receive queues), 2–3 the same again
        case purge = 0x12
        /// 4-byte payload: baud rate, u32 LE
        case setBaudRate = 0x1e
    }

    public static let enable: UInt16 = 0x0001
    /// 8 data bits, no parity, 1 stop bit
    public static let lineControl8N1: UInt16 = 0x0800
    /// DTR and RTS on, both masks set
    public static let dtrAndRTSOn: UInt16 = 0x0303
    /// clear both queues
    public static let purgeAll: UInt16 = 0x000f
    /// control transfer timeout [ms]
    public static let controlTimeoutMS: UInt32 = 500

    public static func setup(_ request: Request, value: UInt16 = 0) -> ControlSetup {
        ControlSetup(requestType: .vendorInterfaceOut, request: request.rawValue, value: value, index: interface)
    }

    /// Configures the bridge's UART: enable, baud rate, 8N1, DTR/RTS, purge.
    public static func configure(_ transport: USBTransport, baudRate: UInt32) throws(USBError) {
        try transport.controlOut(setup(.ifcEnable, value: enable), data: [], timeoutMS: controlTimeoutMS)
        let rate = [UInt8(baudRate & 0xff), UInt8((baudRate >> 8) & 0xff), UInt8((baudRate >> 16) & 0xff),
                    UInt8(baudRate >> 24)]
        try transport.controlOut(setup(.setBaudRate), data: rate, timeoutMS: controlTimeoutMS)
        try transport.controlOut(setup(.setLineControl, value: lineControl8N1), data: [], timeoutMS: controlTimeoutMS)
        try transport.controlOut(setup(.setModemHandshake, value: dtrAndRTSOn), data: [], timeoutMS: controlTimeoutMS)
        try transport.controlOut(setup(.purge, value: purgeAll), data: [], timeoutMS: controlTimeoutMS)
    }
}
