/// Why an input (a capture file, an ECG record, a device or stream) could not be
/// read or written: always names the file and where in it (line or byte
/// offset), so the user can find the damage. Capture calls it `CaptureError`,
/// ECG calls it `ECGError`.
public struct InputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// where in the input the problem is
    public enum Location: Equatable, Sendable {
        case line(Int)
        case byte(Int)
        case whole
    }

    /// file or device path, or "stdin"
    public var file: String
    public var location: Location
    /// what was expected or what went wrong, e.g. "expected 7 or more columns, found 3"
    public var detail: String

    public init(file: String, location: Location = .whole, _ detail: String) {
        self.file = file
        self.location = location
        self.detail = detail
    }

    public var description: String {
        switch location {
        case .line(let line): return "\(file):\(line): \(detail)"
        case .byte(let offset): return "\(file): byte \(offset): \(detail)"
        case .whole: return "\(file): \(detail)"
        }
    }
}
