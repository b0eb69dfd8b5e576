import CLibUSB

/// Lists attached USB devices by vendor/product id, independent of the model.
public enum USBEnumerator {
    /// Devices whose ids are in `ids` (every device when `ids` is empty), with
    /// bus/address, bcdDevice and, when the device can be opened, its
    /// manufacturer/product/serial strings. A device this user may not open is
    /// still listed, with nil strings. No libusb (no /dev/bus/usb) → [].
    public static func devices(matching ids: [(vendorID: UInt16, productID: UInt16)]) throws(USBError) -> [USBDeviceInfo] {
        guard let context = LibUSBContext.shared else { return [] }
        var list: UnsafeMutablePointer<OpaquePointer?>?
        let count = libusb_get_device_list(context.pointer, &list)
        guard count >= 0, let list else {
            throw USBError.fromLibUSB(Int32(truncatingIfNeeded: count), operation: "device enumeration", device: "USB bus")
        }
        defer { libusb_free_device_list(list, 1) }

        var found: [USBDeviceInfo] = []
        for index in 0..<count {
            guard let device = list[index] else { continue }
            var descriptor = libusb_device_descriptor()
            guard libusb_get_device_descriptor(device, &descriptor) == 0 else { continue }
            let wanted = ids.isEmpty || ids.contains {
                $0.vendorID == descriptor.idVendor && $0.productID == descriptor.idProduct
            }
            guard wanted else { continue }
            var handle: OpaquePointer?
            if libusb_open(device, &handle) == 0, let handle {
                found.append(info(device: device, descriptor: descriptor, handle: handle))
                libusb_close(handle)
            } else {
                found.append(info(device: device, descriptor: descriptor, handle: nil))
            }
        }
        return found
    }

    /// Descriptor facts of `device`; strings only when `handle` is open.
    static func info(device: OpaquePointer, descriptor: libusb_device_descriptor, handle: OpaquePointer?) -> USBDeviceInfo {
        USBDeviceInfo(
            vendorID: descriptor.idVendor,
            productID: descriptor.idProduct,
            bcdDevice: descriptor.bcdDevice,
            manufacturer: handle.flatMap { string($0, index: descriptor.iManufacturer) },
            product: handle.flatMap { string($0, index: descriptor.iProduct) },
            serialNumber: handle.flatMap { string($0, index: descriptor.iSerialNumber) },
            bus: libusb_get_bus_number(device),
            address: libusb_get_device_address(device))
    }

    /// String descriptor `index` as text; nil when absent (index 0) or unreadable.
    static func string(_ handle: OpaquePointer, index: UInt8) -> String? {
        guard index != 0 else { return nil }
        // 255 bytes is the most a USB string descriptor can carry
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = libusb_get_string_descriptor_ascii(handle, index, &buffer, Int32(buffer.count))
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<Int(length)], as: UTF8.self)
    }
}
