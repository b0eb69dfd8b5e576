import Foundation
import Signals

/// Which format a path is, from the codecs' `recognition` and
/// `outputExtensions` (the stages are described on `CaptureRecognition`).
extension CaptureFormat {
    /// What the extension of an output path names; nil if it says nothing
    /// definite (.csv could be three formats: --format decides).
    public static func forOutput(path: String) -> CaptureFormat? {
        let ext = fileExtension(path)
        return CaptureCodecs.all.first { $0.outputExtensions.contains(ext) }.map(CaptureFormat.init)
    }

    /// The format of an existing file from its extension and first bytes.
    public static func detect(path: String) throws -> CaptureFormat {
        let codecs = CaptureCodecs.all
        let ext = fileExtension(path)
        if let named = codecs.first(where: { $0.recognition.extensions.contains(ext) }) { return CaptureFormat(named) }

        // 64 bytes: longer than every magic and than a sweep text's date and time
        let head = try firstBytes(path, count: 64)
        if head.isEmpty { throw CaptureError(file: path, "empty: nothing to read") }
        if let marked = codecs.first(where: { $0.recognition.magic.map { head.starts(with: $0) } ?? false }) {
            return CaptureFormat(marked)
        }
        if let claimed = codecs.first(where: { $0.recognition.checkedExtensions.contains(ext) }) {
            if let problem = claimed.recognition.mismatch?(head) {
                throw CaptureError(file: path, location: .byte(0), problem)
            }
            return CaptureFormat(claimed)
        }

        let texts = codecs.compactMap { codec in codec.recognition.firstLine.map { (codec: codec, firstLine: $0) } }
        let startsWithDigit = head.first.map { (0x30...0x39).contains($0) } == true
        guard startsWithDigit || texts.contains(where: { $0.firstLine.extensions.contains(ext) }) else {
            // only the formats of this kind of file: text formats for a text, the others for binary bytes
            let isText = Self.looksLikeText(head)
            let fitting = allCases.filter { $0.canRead && $0.codec.recognition.isText == isText }.map(\.rawValue)
            var detail = "unknown kind of \(isText ? "text" : "file"): give --in-format (\(fitting.joined(separator: ", ")))"
            if !isText { detail += "; raw I/Q also needs --rate and --center" }
            throw CaptureError(file: path, detail)
        }
        let text = String(decoding: head, as: UTF8.self)
        var wholeLine: Substring?
        func hasStructure(_ check: @Sendable (Substring) -> Bool) throws -> Bool {
            if wholeLine == nil {
                let start = try firstBytes(path, count: Self.firstLineLimit)
                let end = start.firstIndex(of: UInt8(ascii: "\n")) ?? start.endIndex
                wholeLine = Substring(String(decoding: start[..<end], as: UTF8.self))
            }
            return check(wholeLine!)
        }
        let matched = try texts.first { candidate in
            guard text.range(of: candidate.firstLine.pattern, options: .regularExpression) != nil else { return false }
            guard let structure = candidate.firstLine.structure else { return true }
            return try hasStructure(structure)
        }
        if let matched {
            guard matched.codec is any ReadableCaptureCodec else {
                throw CaptureError(file: path, "is \(matched.codec.summary), which tscope does not read back")
            }
            return CaptureFormat(matched.codec)
        }
        // the text formats a file of this extension (or starting with a digit) can be, each with its first line
        let fitting = texts.filter { $0.codec is any ReadableCaptureCodec }
            .filter { $0.firstLine.extensions.contains(ext) || (startsWithDigit && ext.isEmpty) }
        let candidates = fitting.isEmpty ? texts.filter { $0.codec is any ReadableCaptureCodec } : fitting
        throw CaptureError(file: path, location: .line(1),
                           "expected the first line of "
                            + candidates.map { "\($0.codec.name) ('\($0.firstLine.example)')" }.joined(separator: ", ")
                            + "; give --in-format (\(candidates.map(\.codec.name).joined(separator: ", ")))")
    }

    /// whether a file's first bytes are text: no NUL and no other control character but tab, CR, LF
    /// (UTF-8 beyond ASCII counts as text)
    static func looksLikeText(_ head: [UInt8]) -> Bool {
        !head.isEmpty && head.allSatisfy { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D } && !head.contains(0x7F)
    }

    /// the most of a text's first line a structure check looks at [bytes]
    static let firstLineLimit = 1 << 20

    static func fileExtension(_ path: String) -> String {
        URL(fileURLWithPath: path).pathExtension.lowercased()
    }

    private static func firstBytes(_ path: String, count: Int) throws -> [UInt8] {
        let input = try ByteInput(path: path)
        var bytes = [UInt8](repeating: 0, count: count)
        let n = try bytes.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, count: count) }
        return Array(bytes[0..<n])
    }
}
