import Foundation
import Testing
@testable import USBDriver

@Suite struct EnumerationTests {
    /// libusb's enumeration against the kernel's own list (sysfs: each device's idVendor and idProduct),
    /// on whatever bus this machine has: the same number of HackRFs and RTL-SDRs (none in a container
    /// without USB, where both must say so), and only devices with the asked-for ids. The enumeration
    /// with devices present is tested through the fake libusb (LibUSBTransportThroughFakeTests).
    @Test func enumerationAgreesWithSysfs() throws {
        let ids: [(vendorID: UInt16, productID: UInt16)] = [(0x1d50, 0x6089), (0x0bda, 0x2838)]
        let devices = try USBEnumerator.devices(matching: ids)
        for device in devices {
            #expect(ids.contains { $0.vendorID == device.vendorID && $0.productID == device.productID })
        }
        let sysfs = "/sys/bus/usb/devices"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: sysfs)) ?? []
        let inSysfs = entries.filter { entry in
            func id(_ name: String) -> UInt16? {
                (try? String(contentsOfFile: "\(sysfs)/\(entry)/\(name)", encoding: .ascii))
                    .flatMap { UInt16($0.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) }
            }
            guard let vendor = id("idVendor"), let product = id("idProduct") else { return false }
            return ids.contains { $0.vendorID == vendor && $0.productID == product }
        }
        // libusb lists what the kernel lists, where it can reach /dev/bus/usb
        if FileManager.default.fileExists(atPath: "/dev/bus/usb") || inSysfs.isEmpty {
            #expect(devices.count == inSysfs.count, "libusb \(devices), sysfs \(inSysfs)")
        } else {
            #expect(devices.isEmpty, "no /dev/bus/usb: libusb opens nothing, sysfs lists \(inSysfs)")
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
