import Testing
@testable import USBDriver

@Suite struct EnumerationTests {
    /// Holds on any machine: with or without USB (containers have no
    /// /dev/bus/usb), enumeration returns only devices with the asked-for ids.
    @Test func enumerationReturnsOnlyMatchingDevices() throws {
        let ids: [(vendorID: UInt16, productID: UInt16)] = [(0x1d50, 0x6089), (0x0bda, 0x2838)]
        let devices = try USBEnumerator.devices(matching: ids)
        for device in devices {
            #expect(ids.contains { $0.vendorID == device.vendorID && $0.productID == device.productID })
        }
    }

    /// pid.codes' test id 1209:0002 is never a real device.
    @Test func openingAnAbsentDeviceSaysNotFoundWithItsName() {
        #expect(throws: USBError.notFound(device: "Toy Radio")) {
            try LibUSBTransport.open(vendorID: 0x1209, productID: 0x0002, deviceName: "Toy Radio")
        }
        #expect(throws: USBError.notFound(device: "USB device 1209:0002 with serial 42")) {
            try LibUSBTransport.open(vendorID: 0x1209, productID: 0x0002, serial: "42")
        }
    }
}
