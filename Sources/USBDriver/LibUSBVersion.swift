import CLibUSB

/// The libusb linked at run time.
public enum LibUSBLibrary {
    /// "major.minor.micro.nano" plus the release-candidate suffix, from `libusb_get_version()`.
    public static var version: String {
        guard let info = libusb_get_version()?.pointee else { return "unknown" }
        let suffix = info.rc.map { String(cString: $0) } ?? ""
        return "\(info.major).\(info.minor).\(info.micro).\(info.nano)\(suffix)"
    }
}
