import Foundation

/// The whole text of a scan file, split into numbered lines. Scan files are
/// small (a coordination scan is a few thousand points, kilobytes to a few
/// MB), so they are read at once, up to `maxBytes`.
package struct ScanText {
    /// one line without its terminator ("\n" or "\r\n")
    struct Line {
        /// 1-based line number
        var number: Int
        var text: Substring
    }

    /// the largest scan file read [bytes]: far above any coordination scan
    static let maxBytes = 64 << 20

    let path: String
    let text: String

    init(path: String) throws {
        let input = try ByteInput(path: path)
        if let total = input.totalBytes, total > Self.maxBytes {
            throw CaptureError(file: path, "\(total) bytes: larger than the \(Self.maxBytes) bytes a scan file has at most")
        }
        var bytes = [UInt8](repeating: 0, count: 1 << 16)
        var data: [UInt8] = []
        while true {
            let n = try bytes.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, count: $0.count) }
            if n == 0 { break }
            data.append(contentsOf: bytes[0..<n])
            if data.count > Self.maxBytes {
                throw CaptureError(file: path, "larger than the \(Self.maxBytes) bytes a scan file has at most")
            }
        }
        try self.init(path: path, bytes: data)
    }

    /// `bytes` as UTF-8 text (a byte-order mark is skipped)
    init(path: String, bytes: [UInt8]) throws {
        self.path = path
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        guard let text = String(validating: body, as: UTF8.self) else {
            let bad = Self.firstInvalidUTF8(body)
            throw CaptureError(file: path, location: .byte(bad), "not UTF-8 text, expected a scan file's text")
        }
        self.text = text
    }

    /// every line, numbered from 1; a last line without a terminator counts
    var lines: [Line] {
        var result: [Line] = []
        var number = 0
        // "\r\n" is one Character in Swift: both line ends are separators
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            result.append(Line(number: number, text: line))
        }
        if result.last?.text.isEmpty == true { result.removeLast() }
        return result
    }

    /// A damage report naming this file and `line`.
    func error(_ line: Line, _ detail: String) -> CaptureError {
        CaptureError(file: path, location: .line(line.number), detail)
    }

    private static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int {
        var low = 0, high = bytes.count
        // the longest valid prefix, by bisection (a cut inside a character counts as invalid)
        while low < high {
            let mid = (low + high + 1) / 2
            if String(validating: bytes[0..<mid], as: UTF8.self) != nil { low = mid } else { high = mid - 1 }
        }
        return low
    }
}

/// A decimal number as a scan file prints it, and how many digits it has
/// after its decimal separator (which says how finely the file prints it).
struct ScanNumber {
    var value: Double
    var decimals: Int

    /// `text` trimmed of spaces: optional sign, digits, optionally a decimal
    /// separator (`.`, or `,` where `decimalComma`) and more digits; nil otherwise
    init?(_ text: Substring, decimalComma: Bool = false) {
        let field = text.trimmingCharacters(in: .whitespaces)
        var digits = 0
        var separator: String.Index?
        for index in field.indices {
            let c = field[index]
            if c.isASCII && c.isNumber {
                digits += 1
            } else if (c == "." || (decimalComma && c == ",")) && separator == nil {
                separator = index
            } else if (c == "-" || c == "+") && index == field.startIndex {
                continue
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        let plain = decimalComma ? field.replacingOccurrences(of: ",", with: ".") : field
        guard let value = Double(plain), value.isFinite else { return nil }
        self.value = value
        decimals = separator.map { field.distance(from: $0, to: field.endIndex) - 1 } ?? 0
    }

    /// one unit of the last printed digit, in the number's own unit (0.001 for "571.050")
    var resolution: Double { pow(10, -Double(decimals)) }
}
