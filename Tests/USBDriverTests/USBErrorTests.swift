import CLibUSB
import Testing
@testable import USBDriver

@Suite struct USBErrorTests {
    @Test func libusbCodesMapToActionableErrors() {
        let device = "HackRF One"
        #expect(USBError.fromLibUSB(LIBUSB_ERROR_ACCESS.rawValue, operation: "open", device: device)
                == .accessDenied(device: device, udevHint: udevRulesHint))
        #expect(USBError.fromLibUSB(LIBUSB_ERROR_BUSY.rawValue, operation: "claim", device: device) == .busy(device: device))
        #expect(USBError.fromLibUSB(LIBUSB_ERROR_NO_DEVICE.rawValue, operation: "x", device: device)
                == .disconnected(device: device))
        #expect(USBError.fromLibUSB(LIBUSB_ERROR_TIMEOUT.rawValue, operation: "control IN", device: device, timeoutMS: 100)
                == .timeout(operation: "control IN", milliseconds: 100))
        #expect(USBError.fromLibUSB(LIBUSB_ERROR_PIPE.rawValue, operation: "SET_FREQ", device: device)
                == .stalled(operation: "SET_FREQ"))
        #expect(USBError.fromLibUSB(LIBUSB_ERROR_NOT_FOUND.rawValue, operation: "open", device: device)
                == .notFound(device: device))
        #expect(USBError.fromLibUSB(LIBUSB_ERROR_OVERFLOW.rawValue, operation: "bulk IN", device: device)
                == .io(operation: "bulk IN", detail: String(cString: libusb_strerror(LIBUSB_ERROR_OVERFLOW.rawValue))))
    }

    @Test func messagesNameTheDeviceAndTheRemedy() {
        let denied = USBError.accessDenied(device: "HackRF One", udevHint: udevRulesHint).description
        #expect(denied.hasPrefix("HackRF One found but access denied: install Tools/udev/"))
        #expect(USBError.busy(device: "RTL-SDR").description.contains("RTL-SDR is busy"))
        #expect(USBError.notFound(device: "tinySA").description.contains("tscope devices"))
        #expect(USBError.timeout(operation: "bulk IN", milliseconds: 500).description == "USB bulk IN timed out after 500 ms")
    }

    @Test func wireCodesRoundTrip() {
        let errors: [USBError] = [
            .notFound(device: "d"), .accessDenied(device: "d", udevHint: udevRulesHint), .busy(device: "d"),
            .disconnected(device: "d"), .timeout(operation: "op", milliseconds: 0), .stalled(operation: "op"),
        ]
        for error in errors {
            #expect(USBError.fromLibUSB(error.libusbCode, operation: "op", device: "d") == error)
        }
        #expect(USBError.unsupported("x").libusbCode == LIBUSB_ERROR_NOT_SUPPORTED.rawValue)
        #expect(USBError.io(operation: "a", detail: "b").libusbCode == LIBUSB_ERROR_IO.rawValue)
    }

    @Test func transferStatusesEndStreamsWithTheRightError() {
        #expect(USBError.fromTransferStatus(LIBUSB_TRANSFER_NO_DEVICE, device: "HackRF One") == .disconnected(device: "HackRF One"))
        #expect(USBError.fromTransferStatus(LIBUSB_TRANSFER_STALL, device: "x") == .stalled(operation: "bulk IN stream"))
    }
}
