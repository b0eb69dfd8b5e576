/// A device's firmware, emulated at the USB-transfer level: it answers the same
/// control and bulk transfers the real firmware does. Hosted by
/// `EmulatedTransport` (in-process) or `EmulatorSocketServer` (for the libusb
/// stand-in used in tests and benchmarks).
///
/// Calls are serialised by the host: an emulator need not be thread-safe.
public protocol FirmwareEmulator: AnyObject {
    /// Descriptor facts enumeration reports for the emulated device.
    var deviceInfo: USBDeviceInfo { get }

    /// Handles a host → device control transfer.
    func controlOut(_ setup: ControlSetup, data: [UInt8]) throws(USBError)

    /// Handles a device → host control transfer; returns at most `length` bytes.
    func controlIn(_ setup: ControlSetup, length: Int) throws(USBError) -> [UInt8]

    /// Fills `buffer` with the next bulk IN data of `endpoint`; returns the
    /// number of bytes written (0 = nothing to send now, like a NAK).
    func bulkIn(endpoint: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(USBError) -> Int

    /// Accepts bulk OUT data; returns the number of bytes taken.
    func bulkOut(endpoint: UInt8, data: [UInt8]) throws(USBError) -> Int
}
