import CLibUSB

/// The one libusb context of the process, created on first use and kept for
/// the process lifetime. nil when libusb cannot start (for example a container
/// without /dev/bus/usb): that means "no devices", never a crash.
///
/// Invariant: it holds a libusb_context pointer (not Sendable to Swift), set
/// once at init and never changed; libusb's context calls are thread-safe
/// (libusb-1.0 docs, "Multi-threaded applications").
final class LibUSBContext: @unchecked Sendable {
    /// libusb_context* (immutable after init; libusb is thread-safe on it)
    let pointer: OpaquePointer

    private init(pointer: OpaquePointer) { self.pointer = pointer }

    static let shared: LibUSBContext? = {
        var context: OpaquePointer?
        guard libusb_init(&context) == 0, let context else { return nil }
        return LibUSBContext(pointer: context)
    }()
}
