import Foundation

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

    /// The whole of a small UTF-8 text file (a calibration, a reference list); unreadable or not UTF-8 is one error naming it.
    public static func readText(_ path: String) throws(InputError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(file: path, "cannot read: \(String(cString: strerror(errno)))")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw InputError(file: path, "not UTF-8 text") }
        return text
    }

    public var description: String {
        switch location {
        case .line(let line): return "\(file):\(line): \(detail)"
        case .byte(let offset): return "\(file): byte \(offset): \(detail)"
        case .whole: return "\(file): \(detail)"
        }
    }
}
