import Foundation
import Testing

/// What Docs/ARCHITECTURE.md says of the module edges, checked against the
/// code: every import is declared in Package.swift, the sensor link does not
/// reach the drivers (in the package graph and in the linked binary),
/// Prometheus is only reached through Telemetry, and the count of
/// `@unchecked Sendable` is the one the document states.
@Suite struct ArchitectureTests {
    /// modules of the toolchain, imported without a package dependency
    static let toolchainModules: Set<String> = [
        "Foundation", "FoundationEssentials", "Dispatch", "Glibc", "Synchronization", "Testing", "XCTest",
        "_Concurrency", "os", "Musl", "FoundationNetworking",
    ]

    @Test func everyImportIsDeclaredInThePackage() throws {
        let package = try PackageGraph.load()
        #expect(package.targets.count >= 20, "read \(package.targets.count) targets from Package.swift")
        var undeclared: [String] = []
        for target in package.targets.values {
            let declared = Set(target.dependencies).union([target.name])
            for (file, module) in try PackageGraph.imports(under: target.path)
                where !declared.contains(module) && !Self.toolchainModules.contains(module) {
                undeclared.append("\(file) imports \(module), which \(target.name) does not declare")
            }
        }
        #expect(undeclared.isEmpty, "\(undeclared.joined(separator: "\n"))")
    }

    @Test func theSensorLinkReachesNoDriver() throws {
        let package = try PackageGraph.load()
        let drivers: Set<String> = ["Devices", "USBDriver", "CLibUSB", "CSoapySDR"]
        for name in ["Remote", "tscope-serve-load", "Analyzers"] {
            let reached = package.reachable(from: name)
            #expect(!reached.isEmpty, "\(name) is not a target of Package.swift")
            #expect(reached.isDisjoint(with: drivers), "\(name) reaches \(reached.intersection(drivers).sorted())")
        }
        // and the binary the package links: its shared libraries, as the loader sees them
        let load = Paths.productsDirectory.appendingPathComponent("tscope-serve-load")
        #expect(FileManager.default.fileExists(atPath: load.path), "build tscope-serve-load first (swift build)")
        let ldd = try run(URL(fileURLWithPath: "/usr/bin/ldd"), [load.path])
        #expect(ldd.status == 0, "\(ldd.stderr)")
        #expect(ldd.stdoutText.contains("libswiftCore") || ldd.stdoutText.contains("libc.so"), "\(ldd.stdoutText)")
        #expect(!ldd.stdoutText.contains("libusb"), "\(ldd.stdoutText)")
        #expect(!ldd.stdoutText.contains("libSoapySDR"), "\(ldd.stdoutText)")
        // while tscope itself does link them (the check above can fail)
        let tscope = try run(URL(fileURLWithPath: "/usr/bin/ldd"), [Paths.tscope.path])
        #expect(tscope.stdoutText.contains("libusb-1.0"), "\(tscope.stdoutText)")
    }

    @Test func prometheusIsReachedOnlyThroughTelemetry() throws {
        let package = try PackageGraph.load()
        let direct = package.targets.values.filter { $0.dependencies.contains("Prometheus") }.map(\.name).sorted()
        #expect(direct == ["Telemetry"], "\(direct)")
    }

    @Test func uncheckedSendableIsCountedAndEachStatesItsInvariant() throws {
        let sources = Paths.packageRoot.appendingPathComponent("Sources")
        var found: [(file: String, line: Int)] = []
        var withoutInvariant: [String] = []
        for file in try PackageGraph.swiftFiles(under: sources) where !file.path.contains("/Generated/") {
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            for (index, line) in lines.enumerated() where line.contains("@unchecked Sendable")
                && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                let name = "\(file.lastPathComponent):\(index + 1)"
                found.append((file.lastPathComponent, index + 1))
                // the doc comment above the declaration names the invariant the compiler cannot see
                let above = lines[max(0, index - 12)..<index].joined(separator: "\n")
                if !above.contains("Invariant:") { withoutInvariant.append(name) }
            }
        }
        let architecture = try String(contentsOf: Paths.packageRoot.appendingPathComponent("Docs/ARCHITECTURE.md"),
                                      encoding: .utf8)
        let stated = Self.statedUncheckedCount(in: architecture)
        #expect(stated == found.count, "ARCHITECTURE.md says \(stated.map(String.init) ?? "nothing"), Sources have \(found.count): \(found)")
        #expect(found.count <= 8)
        #expect(withoutInvariant.isEmpty, "no `Invariant:` line in the comment above \(withoutInvariant)")
    }

    /// The executable only parses and wires: its files stay within what ARCHITECTURE.md says.
    @Test func theExecutableStaysSmall() throws {
        let files = try PackageGraph.swiftFiles(under: Paths.packageRoot.appendingPathComponent("Sources/tscope"))
        let lines = try files.reduce(0) { total, file in
            total + (try String(contentsOf: file, encoding: .utf8)).split(separator: "\n", omittingEmptySubsequences: false).count - 1
        }
        #expect(files.count > 10 && lines > 500, "read \(files.count) files, \(lines) lines")
        #expect(lines <= 1_400, "Sources/tscope is \(lines) lines; move work into Runs and option groups into CommandOptions")
        let architecture = try String(contentsOf: Paths.packageRoot.appendingPathComponent("Docs/ARCHITECTURE.md"),
                                      encoding: .utf8)
        #expect(architecture.contains("| `tscope` | the commands (at most 1,400 lines"), "the module map states the limit")
    }

    /// Every module in Sources/ has its row in ARCHITECTURE.md's module map, and the map names no other.
    @Test func theModuleMapListsEveryModule() throws {
        let package = try PackageGraph.load()
        let modules = Set(package.targets.values.filter { $0.path.path.contains("/Sources/") }.map(\.name))
        let architecture = try String(contentsOf: Paths.packageRoot.appendingPathComponent("Docs/ARCHITECTURE.md"),
                                      encoding: .utf8)
        var mapped: Set<String> = []
        for line in architecture.split(separator: "\n") where line.hasPrefix("| `") {
            let first = line.split(separator: "|", omittingEmptySubsequences: true).first ?? ""
            for name in PackageGraph.matches("`([A-Za-z-]+)`", in: String(first)) { mapped.insert(name.groups[0]) }
        }
        #expect(modules.count >= 18, "read \(modules.sorted())")
        let onlyInMap = mapped.subtracting(modules).sorted(), missing = modules.subtracting(mapped).sorted()
        #expect(mapped == modules, "in the map only: \(onlyInMap); missing from it: \(missing)")
    }

    /// One lock primitive: ThreadKit's `Guarded` (a `Mutex` ThreadSanitizer understands); no `NSLock`,
    /// `NSCondition`, `pthread_mutex` or bare `Mutex` anywhere else in Sources.
    @Test func guardedIsTheOneLock() throws {
        let sources = Paths.packageRoot.appendingPathComponent("Sources")
        var found: [String] = []
        for file in try PackageGraph.swiftFiles(under: sources) where file.lastPathComponent != "Guarded.swift" {
            let code = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            let hits = PackageGraph.matches(#"\b(NSLock|NSRecursiveLock|NSCondition|pthread_mutex_\w+|Mutex)\s*[(<]"#, in: code)
            if !hits.isEmpty { found.append("\(file.lastPathComponent): \(hits.map { String(code[$0.range]) })") }
        }
        #expect(found.isEmpty, "use Guarded (ThreadKit) instead: \(found)")
        #expect(PackageGraph.matches(#"\b(NSLock|NSRecursiveLock|NSCondition|pthread_mutex_\w+|Mutex)\s*[(<]"#,
                                     in: "let a = NSLock()\nlet b = Mutex<Int>(0)\nlet c = Guarded(0)").count == 2)
    }

    /// "… seven `@unchecked Sendable` remain in `Sources/` …" → 7
    static func statedUncheckedCount(in text: String) -> Int? {
        let words = ["one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                     "ten": 10, "eleven": 11]
        guard let range = text.range(of: "`@unchecked Sendable`\\s+remain", options: .regularExpression) else { return nil }
        let before = text[..<range.lowerBound].split(whereSeparator: \.isWhitespace).last.map(String.init) ?? ""
        return words[before.lowercased()] ?? Int(before)
    }

    @Test func theStatedCountIsReadAsWritten() {
        #expect(Self.statedUncheckedCount(in: "cannot see; seven `@unchecked Sendable` remain in") == 7)
        #expect(Self.statedUncheckedCount(in: "12 `@unchecked Sendable`\nremain") == 12)
        #expect(Self.statedUncheckedCount(in: "none at all") == nil)
    }

    @Test func importsAndDependenciesAreReadAsSwiftWritesThem() throws {
        let text = """
            import Foundation
            @testable import Capture
            @preconcurrency import struct NIOCore.ByteBuffer
            // import Hidden
                import Indented
            let important = 1
            """
        #expect(PackageGraph.importedModules(in: text) == ["Foundation", "Capture", "NIOCore", "Indented"])
        let quoted = "import A\nlet sample = \"\"\"\n    import B\n    \"\"\"\nimport C\n"
        #expect(PackageGraph.importedModules(in: quoted) == ["A", "C"])
        let manifest = """
            targets: [
                .target(name: "A", dependencies: ["B", .product(name: "NIOCore", package: "swift-nio")]),
                .executableTarget(
                    name: "tool",
                    dependencies: ["A"],
                    path: "Tools/tool"
                ),
                .testTarget(name: "ATests", dependencies: ["A"], resources: [.copy("Fixtures")]),
            ]
            """
        let graph = PackageGraph(manifest: manifest, root: URL(fileURLWithPath: "/p"))
        #expect(graph.targets["A"]?.dependencies == ["B", "NIOCore"])
        #expect(graph.targets["tool"]?.path.path == "/p/Tools/tool")
        #expect(graph.targets["ATests"]?.path.path == "/p/Tests/ATests")
        #expect(graph.reachable(from: "tool") == ["A", "B", "NIOCore"])
    }
}

/// Package.swift's targets and their dependencies, read from its text (the
/// manifest's own shape: `.target(name: "X", dependencies: [...], path: ...)`),
/// and the imports of Swift files.
struct PackageGraph {
    struct Target {
        var name: String
        /// targets and products (by product name, which is the module name for every product used here)
        var dependencies: [String]
        var path: URL
    }

    var targets: [String: Target] = [:]

    static func load() throws -> PackageGraph {
        let manifest = try String(contentsOf: Paths.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        return PackageGraph(manifest: manifest, root: Paths.packageRoot)
    }

    init(manifest: String, root: URL) {
        let starts = Self.matches(#"\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)""#, in: manifest)
        for (index, start) in starts.enumerated() {
            let end = index + 1 < starts.count ? starts[index + 1].range.lowerBound : manifest.endIndex
            let body = String(manifest[start.range.lowerBound..<end])
            let kind = start.groups[0], name = start.groups[1]
            var dependencies: [String] = []
            if let open = body.range(of: "dependencies: [") {
                var depth = 1, cursor = open.upperBound
                while cursor < body.endIndex, depth > 0 {
                    if body[cursor] == "[" { depth += 1 } else if body[cursor] == "]" { depth -= 1 }
                    cursor = body.index(after: cursor)
                }
                var list = String(body[open.upperBound..<cursor])
                for product in Self.matches(#"\.product\(\s*name:\s*"([^"]+)"[^)]*\)"#, in: list).reversed() {
                    dependencies.insert(product.groups[0], at: 0)
                    list.removeSubrange(product.range)
                }
                dependencies = Self.matches(#""([^"]+)""#, in: list).map { $0.groups[0] } + dependencies
            }
            let path = Self.matches(#"path:\s*"([^"]+)""#, in: body).first?.groups[0]
                ?? (kind == "testTarget" ? "Tests/\(name)" : "Sources/\(name)")
            targets[name] = Target(name: name, dependencies: dependencies, path: root.appendingPathComponent(path))
        }
    }

    /// every target and product `name` depends on, directly or not
    func reachable(from name: String) -> Set<String> {
        var seen: Set<String> = [], queue = targets[name]?.dependencies ?? []
        while let next = queue.popLast() {
            guard seen.insert(next).inserted else { continue }
            queue += targets[next]?.dependencies ?? []
        }
        return seen
    }

    static func swiftFiles(under directory: URL) throws -> [URL] {
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
            .sorted { $0.path < $1.path }
    }

    /// (file name, module) for every import in the Swift files under `directory`
    static func imports(under directory: URL) throws -> [(String, String)] {
        try swiftFiles(under: directory).flatMap { file in
            importedModules(in: try String(contentsOf: file, encoding: .utf8)).map { (file.lastPathComponent, $0) }
        }
    }

    /// the modules a Swift file imports, in order (attributes and `import struct M.T` forms included)
    static func importedModules(in text: String) -> [String] {
        // not the text of multi-line string literals (a test's sample source)
        var text = text
        for literal in matches(#"\"\"\"[\s\S]*?\"\"\""#, in: text).reversed() { text.removeSubrange(literal.range) }
        return matches(#"(?m)^[ \t]*(?:@[A-Za-z_]+(?:\([^)]*\))?[ \t]+)*import[ \t]+(?:(?:struct|class|enum|protocol|func|typealias|var|let)[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)"#,
                       in: text).map { $0.groups[0] }
    }

    static func matches(_ pattern: String, in text: String) -> [(range: Range<String.Index>, groups: [String])] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            guard let range = Range(match.range, in: text) else { return nil }
            let groups = (1..<match.numberOfRanges).map { index in
                Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
            }
            return (range, groups)
        }
    }
}
