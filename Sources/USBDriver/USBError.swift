/// What can go wrong between a driver and a USB device, each with a message a
/// user can act on.
public enum USBError: Error, Equatable, Sendable, CustomStringConvertible {
    /// no device with these ids (and serial, if one was asked for)
    case notFound(device: String)
    /// the device exists but this user may not open it
    case accessDenied(device: String, udevHint: String)
    /// another program (or a kernel driver) holds the interface
    case busy(device: String)
    /// the device went away mid-run
    case disconnected(device: String)
    /// a transfer did not complete in time
    case timeout(operation: String, milliseconds: UInt32)
    /// the device answered a request with STALL (unsupported or bad value)
    case stalled(operation: String)
    /// the device does not speak what the driver needs (firmware too old, …)
    case unsupported(String)
    /// anything else libusb (or an emulator) reported
    case io(operation: String, detail: String)

    public var description: String {
        switch self {
        case .notFound(let device):
            return "\(device) not found: check the cable, then `tscope devices`"
        case .accessDenied(let device, let hint):
            return "\(device) found but access denied: \(hint)"
        case .busy(let device):
            return "\(device) is busy: another program (hackrf_sweep, gqrx, a kernel driver) is using it; close it and retry"
        case .disconnected(let device):
            return "\(device) disconnected"
        case .timeout(let operation, let ms):
            return "USB \(operation) timed out after \(ms) ms"
        case .stalled(let operation):
            return "device rejected \(operation) (USB stall)"
        case .unsupported(let detail):
            return detail
        case .io(let operation, let detail):
            return "USB \(operation) failed: \(detail)"
        }
    }
}

/// The udev hint shown with `accessDenied`.
public let udevRulesHint =
    "install Tools/udev/53-tscope.rules into /etc/udev/rules.d, run `udevadm control --reload && udevadm trigger`, then replug"
