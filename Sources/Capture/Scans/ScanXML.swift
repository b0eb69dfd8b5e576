/// The little XML a WWB scan file uses, read tag by tag: elements with
/// attributes, text between tags, the prolog and comments skipped. Not a
/// general XML parser (no DTDs, no CDATA); enough for `.sdb2` files, which
/// hold nothing else (the coordination fixture `wwb6-ulxd4q-572-636.sdb2`).
struct ScanXMLTokens {
    enum Token {
        /// `<name a="1">` (or `<name/>`, then `selfClosing`)
        case open(name: Substring, attributes: [Substring: String], selfClosing: Bool)
        case close(name: Substring)
        /// the text between two tags, spaces trimmed, entities not yet replaced (empty text is skipped)
        case text(Substring)
    }

    /// What was wrong where [byte offset].
    struct Malformed: Error {
        var offset: Int
        var detail: String
    }

    private let utf8: Substring.UTF8View
    private let text: Substring
    private var position: String.Index

    init(_ text: String) {
        self.text = Substring(text)
        utf8 = self.text.utf8
        position = self.text.startIndex
    }

    /// byte offset of the next token
    var offset: Int { utf8.distance(from: utf8.startIndex, to: position) }

    mutating func next() throws(Malformed) -> Token? {
        while true {
            guard position < text.endIndex else { return nil }
            guard text[position] == "<" else {
                let end = text[position...].firstIndex(of: "<") ?? text.endIndex
                let content = text[position..<end].trimmingCharacters(in: .whitespacesAndNewlines)
                position = end
                if content.isEmpty { continue }
                return .text(Substring(content))
            }
            let rest = text[position...]
            if rest.hasPrefix("<?") { try skip(past: "?>"); continue }
            if rest.hasPrefix("<!--") { try skip(past: "-->"); continue }
            if rest.hasPrefix("<!") { throw Malformed(offset: offset, detail: "expected an element, found a declaration or CDATA") }
            return try tag()
        }
    }

    private mutating func skip(past end: String) throws(Malformed) {
        guard let range = text[position...].range(of: end) else {
            throw Malformed(offset: offset, detail: "expected '\(end)' before the end of the file")
        }
        position = range.upperBound
    }

    private mutating func tag() throws(Malformed) -> Token {
        let start = offset
        guard let close = text[position...].firstIndex(of: ">") else {
            throw Malformed(offset: start, detail: "expected '>' closing the tag before the end of the file")
        }
        var inside = text[text.index(after: position)..<close]
        position = text.index(after: close)
        if inside.hasPrefix("/") {
            let name = inside.dropFirst().trimmingCharacters(in: .whitespacesAndNewlines)
            guard Self.isName(Substring(name)) else { throw Malformed(offset: start, detail: "expected a closing tag's name") }
            return .close(name: Substring(name))
        }
        let selfClosing = inside.hasSuffix("/")
        if selfClosing { inside = inside.dropLast() }
        let nameEnd = inside.firstIndex { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" } ?? inside.endIndex
        let name = inside[..<nameEnd]
        guard Self.isName(name) else { throw Malformed(offset: start, detail: "expected a tag name after '<'") }
        var attributes: [Substring: String] = [:]
        var rest = inside[nameEnd...]
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            if rest.isEmpty { break }
            guard let equals = rest.firstIndex(of: "=") else {
                throw Malformed(offset: start, detail: "expected name=\"value\" in <\(name)>")
            }
            let key = Substring(rest[..<equals].trimmingCharacters(in: .whitespaces))
            var afterEquals = rest[rest.index(after: equals)...].drop { $0 == " " }
            guard let quote = afterEquals.first, quote == "\"" || quote == "'", Self.isName(key) else {
                throw Malformed(offset: start, detail: "expected name=\"value\" in <\(name)>")
            }
            afterEquals = afterEquals.dropFirst()
            guard let valueEnd = afterEquals.firstIndex(of: quote) else {
                throw Malformed(offset: start, detail: "expected the closing quote of \(key) in <\(name)>")
            }
            attributes[key] = Self.unescaped(afterEquals[..<valueEnd])
            rest = afterEquals[afterEquals.index(after: valueEnd)...]
        }
        return .open(name: name, attributes: attributes, selfClosing: selfClosing)
    }

    private static func isName(_ name: Substring) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ":" || $0 == "." }
    }

    /// `text` with the five XML entities and numeric character references replaced
    static func unescaped(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var result = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": result += "&"
            case "lt": result += "<"
            case "gt": result += ">"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let scalar = number.flatMap(Unicode.Scalar.init) { result.unicodeScalars.append(scalar) } else {
                    result += rest[amp...semicolon]
                }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }

    /// `text` safe inside an attribute or element: the five XML entities escaped, control characters as spaces
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? " " : scalar)
            }
        }
        return result
    }
}
