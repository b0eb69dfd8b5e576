import CLibUSB

extension USBError {
    /// The `USBError` for a negative libusb return code. `device` names the
    /// model ("HackRF One") in messages; `operation` says what was attempted.
    package static func fromLibUSB(_ code: Int32, operation: String, device: String,
                                   timeoutMS: UInt32 = 0) -> USBError {
        switch code {
        case LIBUSB_ERROR_ACCESS.rawValue:
            return .accessDenied(device: device, udevHint: udevRulesHint)
        case LIBUSB_ERROR_BUSY.rawValue:
            return .busy(device: device)
        case LIBUSB_ERROR_NO_DEVICE.rawValue:
            return .disconnected(device: device)
        case LIBUSB_ERROR_TIMEOUT.rawValue:
            return .timeout(operation: operation, milliseconds: timeoutMS)
        case LIBUSB_ERROR_PIPE.rawValue:
            return .stalled(operation: operation)
        case LIBUSB_ERROR_NOT_FOUND.rawValue:
            return .notFound(device: device)
        default:
            return .io(operation: operation, detail: String(cString: libusb_strerror(code)))
        }
    }

    /// The `USBError` that ends a stream whose transfer came back with `status`.
    package static func fromTransferStatus(_ status: libusb_transfer_status, device: String) -> USBError {
        switch status {
        case LIBUSB_TRANSFER_NO_DEVICE:
            return .disconnected(device: device)
        case LIBUSB_TRANSFER_TIMED_OUT:
            return .timeout(operation: "bulk IN stream", milliseconds: 0)
        case LIBUSB_TRANSFER_STALL:
            return .stalled(operation: "bulk IN stream")
        case LIBUSB_TRANSFER_OVERFLOW:
            return .io(operation: "bulk IN stream", detail: "device sent more data than the transfer holds (overflow)")
        default:
            return .io(operation: "bulk IN stream", detail: "transfer failed (libusb status \(status.rawValue))")
        }
    }

    /// The libusb error code that stands for this error on the emulator wire
    /// (Firmware-Notes/fake-libusb.md), so the fake libusb reports it as a real
    /// device would.
    package var libusbCode: Int32 {
        switch self {
        case .notFound: return LIBUSB_ERROR_NOT_FOUND.rawValue
        case .accessDenied: return LIBUSB_ERROR_ACCESS.rawValue
        case .busy: return LIBUSB_ERROR_BUSY.rawValue
        case .disconnected: return LIBUSB_ERROR_NO_DEVICE.rawValue
        case .timeout: return LIBUSB_ERROR_TIMEOUT.rawValue
        case .stalled: return LIBUSB_ERROR_PIPE.rawValue
        case .unsupported: return LIBUSB_ERROR_NOT_SUPPORTED.rawValue
        case .io: return LIBUSB_ERROR_IO.rawValue
        }
    }
}

extension USBError {
    /// startBulkStream while a stream still runs: a driver bug, not a device fault
    package static let streamAlreadyRunning =
        USBError.io(operation: "start bulk stream", detail: "a stream is already running; stop it first")
}
