import Foundation
import Testing

/// The guides stay true to the files and the program: every relative link in
/// README.md, CONTRIBUTING.md, Benchmarks/README.md and Docs/*.md points to a
/// file that exists, and every `tscope …` line in their fenced code blocks
/// names a real subcommand and only `--options` that its `--help` lists.
@Suite struct DocumentationTests {
    /// the documents checked, as paths relative to the package root
    static var documents: [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(
            atPath: Paths.packageRoot.appendingPathComponent("Docs").path)) ?? []
        return ["README.md", "CONTRIBUTING.md", "Benchmarks/README.md"]
            + docs.filter { $0.hasSuffix(".md") }.sorted().map { "Docs/" + $0 }
    }

    static func text(of document: String) throws -> String {
        try String(contentsOf: Paths.packageRoot.appendingPathComponent(document), encoding: .utf8)
    }

    @Test func theGuidesAreThere() throws {
        let names = Set(Self.documents)
        for guide in ["Docs/ARCHITECTURE.md", "Docs/watching-and-views.md", "Docs/ecg.md"] {
            #expect(names.contains(guide), "\(guide) is missing")
        }
    }

    // MARK: links

    @Test func everyRelativeLinkResolves() throws {
        var checked = 0
        for document in Self.documents {
            let directory = Paths.packageRoot.appendingPathComponent(document).deletingLastPathComponent()
            for link in MarkdownLinks.targets(in: try Self.text(of: document)) {
                let lowered = link.target.lowercased()
                if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("mailto:") {
                    continue
                }
                var path = link.target
                if let hash = path.firstIndex(of: "#") { path = String(path[..<hash]) }
                if path.isEmpty { continue } // an anchor in the same document
                path = path.removingPercentEncoding ?? path
                let url = path.hasPrefix("/") ? Paths.packageRoot.appendingPathComponent(path)
                    : directory.appendingPathComponent(path)
                checked += 1
                if !FileManager.default.fileExists(atPath: url.standardizedFileURL.path) {
                    Issue.record("\(document):\(link.line): the link \(link.target) points to no file")
                }
            }
        }
        #expect(checked > 20, "only \(checked) relative links found: is the link scanner broken?")
    }

    @Test func theLinkScannerSkipsCodeAndFindsImages() {
        let text = """
            See [the guide](Docs/a.md#part) and ![a picture](Docs/pictures/p.png "title").
            `peaks: [{"hz", "db"}](not a link)` and [web](https://example.org).
            ```
            [in a code block](nowhere.md)
            ```
            """
        #expect(MarkdownLinks.targets(in: text).map(\.target) == ["Docs/a.md#part", "Docs/pictures/p.png",
                                                                     "https://example.org"])
    }

    // MARK: commands

    @Test func everyDocumentedCommandParses() throws {
        let help = HelpCache()
        var checked = 0
        for document in Self.documents {
            for command in DocumentedCommands.lines(in: try Self.text(of: document)) {
                let place = "\(document):\(command.line): \(command.text)"
                guard let words = ShellWords.split(command.text), words.first == "tscope" else {
                    Issue.record("\(place): cannot be split into words")
                    continue
                }
                let arguments = Array(words.dropFirst())
                // the subcommand path: the leading words that name subcommands
                var path: [String] = []
                for word in arguments {
                    guard let subcommands = try help.subcommands(of: path), subcommands.contains(word) else { break }
                    path.append(word)
                }
                guard let text = try help.text(of: path) else {
                    Issue.record("\(place): `tscope \((path + ["--help"]).joined(separator: " "))` fails")
                    continue
                }
                checked += 1
                for word in arguments.dropFirst(path.count) where word.hasPrefix("--") && word.count > 2 {
                    let option = String(word.prefix { $0 != "=" })
                    if !HelpCache.lists(option, in: text) {
                        Issue.record("\(place): \(option) is not an option of `tscope \(path.joined(separator: " "))`")
                    }
                }
            }
        }
        #expect(checked > 40, "only \(checked) tscope lines found: is the code-block scanner broken?")
    }

    @Test func commandLinesAreReadLikeAShellReadsThem() {
        let text = """
            ```sh
            $ tscope meter --band 88:108 \\
                --json | head -3        # a comment
            tscope sweep -f 88:108 > fm.csv
            tscope replay 'postgresql://h/db?label=a b' --speed 4 && echo done
            tscope export --png "$(date +%F).png" x.csv; ls
            some-reader | tscope ecg watch --stdin
            tscope: an output line
            ```
            tscope watch --outside-a-code-block
            """
        let lines = DocumentedCommands.lines(in: text)
        #expect(lines.map(\.line) == [2, 4, 5, 6])
        #expect(lines.compactMap { ShellWords.split($0.text) } == [
            ["tscope", "meter", "--band", "88:108", "--json"],
            ["tscope", "sweep", "-f", "88:108"],
            ["tscope", "replay", "postgresql://h/db?label=a b", "--speed", "4"],
            ["tscope", "export", "--png", "$(date +%F).png", "x.csv"],
        ])
    }
}

/// Relative and absolute link targets of `[text](target)` and `![alt](target)`,
/// outside fenced code blocks and inline code.
enum MarkdownLinks {
    struct Link {
        var line: Int
        var target: String
    }

    static func targets(in text: String) -> [Link] {
        var links: [Link] = []
        var inFence = false
        let pattern = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/
        for (index, rawLine) in text.components(separatedBy: "\n").enumerated() {
            if rawLine.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if inFence { continue }
            // inline code spans are not links
            let line = rawLine.replacing(/`[^`]*`/, with: "")
            for match in line.matches(of: pattern) {
                links.append(Link(line: index + 1, target: String(match.1)))
            }
        }
        return links
    }
}

/// `tscope …` lines in fenced code blocks (after an optional `$ ` prompt),
/// continuation lines joined.
enum DocumentedCommands {
    struct Command {
        /// where it starts (1-based)
        var line: Int
        var text: String
    }

    static func lines(in text: String) -> [Command] {
        var commands: [Command] = []
        var inFence = false
        var pending: Command?
        for (index, rawLine) in text.components(separatedBy: "\n").enumerated() {
            var line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                inFence.toggle()
                pending = nil
                continue
            }
            guard inFence else { continue }
            if var command = pending {
                // a continuation of the line before
                let continues = line.hasSuffix("\\")
                if continues { line.removeLast() }
                command.text += " " + line
                if continues { pending = command } else { commands.append(command); pending = nil }
                continue
            }
            if line.hasPrefix("$ ") { line = String(line.dropFirst(2)).trimmingCharacters(in: .whitespaces) }
            guard line == "tscope" || line.hasPrefix("tscope ") else { continue }
            let continues = line.hasSuffix("\\")
            if continues { line.removeLast() }
            let command = Command(line: index + 1, text: line)
            if continues { pending = command } else { commands.append(command) }
        }
        return commands
    }
}

/// A shell command line cut into words as a shell would, up to the first
/// comment, pipe, redirection or command separator (`|`, `>`, `<`, `&`,
/// `;`). Quotes are removed; `$(…)` is kept whole as (part of) a word.
/// nil for an unterminated quote or substitution.
enum ShellWords {
    static func split(_ line: String) -> [String]? {
        var words: [String] = []
        var word = ""
        var inWord = false
        var characters = Array(line)[...]
        func finish() {
            if inWord { words.append(word) }
            word = ""
            inWord = false
        }
        while let c = characters.popFirst() {
            switch c {
            case " ", "\t":
                finish()
            case "#" where !inWord:
                finish()
                return words
            case "|", ";", "&", ">", "<":
                // `2>` is a redirection too: drop a bare file-descriptor number
                if inWord, word.allSatisfy(\.isNumber) { inWord = false; word = "" }
                finish()
                return words
            case "'":
                inWord = true
                guard let end = characters.firstIndex(of: "'") else { return nil }
                word += String(characters[..<end])
                characters = characters[(end + 1)...]
            case "\"":
                inWord = true
                var closed = false
                while let d = characters.popFirst() {
                    if d == "\"" { closed = true; break }
                    if d == "\\", let e = characters.popFirst() { word.append(e); continue }
                    word.append(d)
                }
                guard closed else { return nil }
            case "\\":
                inWord = true
                if let d = characters.popFirst() { word.append(d) }
            case "$" where characters.first == "(":
                inWord = true
                word.append(c)
                var depth = 0
                var closed = false
                while let d = characters.popFirst() {
                    word.append(d)
                    if d == "(" { depth += 1 }
                    if d == ")" { depth -= 1; if depth == 0 { closed = true; break } }
                }
                guard closed else { return nil }
            default:
                inWord = true
                word.append(c)
            }
        }
        finish()
        return words
    }
}

/// `tscope … --help` per subcommand path, run once each.
final class HelpCache {
    private var texts: [[String]: String?] = [:]

    /// The help of `tscope PATH…`, or nil when `tscope PATH… --help` does not exit 0.
    func text(of path: [String]) throws -> String? {
        if let known = texts[path] { return known }
        let result = try run(Paths.tscope, path + ["--help"], environment: ["COLUMNS": "200"], timeoutSeconds: 30)
        let text: String? = result.status == 0 ? result.stdoutText : nil
        texts[path] = text
        return text
    }

    /// The subcommands `tscope PATH… --help` lists (empty for a leaf command).
    func subcommands(of path: [String]) throws -> Set<String>? {
        guard let text = try text(of: path) else { return nil }
        var names: Set<String> = []
        var inSection = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("SUBCOMMANDS:") { inSection = true; continue }
            guard inSection else { continue }
            if !line.isEmpty, !line.hasPrefix(" ") { break }
            // "  name (default)   abstract": exactly two spaces, then the name
            guard line.hasPrefix("  "), !line.hasPrefix("   "),
                  let name = line.dropFirst(2).split(separator: " ").first else { continue }
            if name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) { names.insert(String(name)) }
        }
        return names
    }

    /// Whether `option` ("--band") appears in `help` as a whole option name.
    static func lists(_ option: String, in help: String) -> Bool {
        var searchRange = help.startIndex..<help.endIndex
        while let found = help.range(of: option, range: searchRange) {
            let after = found.upperBound < help.endIndex ? help[found.upperBound] : " "
            let before = found.lowerBound > help.startIndex ? help[help.index(before: found.lowerBound)] : " "
            let boundaryAfter = !(after.isLetter || after.isNumber || after == "-" || after == "_")
            let boundaryBefore = !(before.isLetter || before.isNumber || before == "-")
            if boundaryAfter && boundaryBefore { return true }
            searchRange = found.upperBound..<help.endIndex
        }
        return false
    }
}
