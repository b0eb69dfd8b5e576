import Foundation
import Testing

/// `tscope --version`, the exit codes, and Tools/install into a temporary prefix.
@Suite(.serialized) struct InstallTests {
    @Test func versionNamesTheLinkedLibraries() throws {
        for arguments in [["--version"], ["version"]] {
            let result = try run(Paths.tscope, arguments)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let lines = result.stdoutText.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("tscope ") == true, "\(lines)")
            #expect(lines.count == 6, "\(lines)")
            for (prefix, pattern) in [("commit ", #"^commit [0-9a-f]{7,}"#), ("FFTW ", #"^FFTW fftw-3\.\d+"#),
                                      ("libusb ", #"^libusb 1\.0\.\d+"#), ("SQLite ", #"^SQLite 3\.\d+\.\d+$"#),
                                      ("libpng ", #"^libpng 1\.\d+\.\d+$"#)] {
                let line = lines.first { $0.hasPrefix(prefix) } ?? "(no \(prefix)line)"
                #expect(line.range(of: pattern, options: .regularExpression) != nil, "\(line)")
            }
        }
    }

    @Test func exitCodes() throws {
        #expect(try run(Paths.tscope, ["--no-such-option"]).status == 64)
        #expect(try run(Paths.tscope, ["record", "--duration", "soon"]).status == 64)
        let missing = try run(Paths.tscope, ["export", "--csv", "/dev/null", "/nonexistent/capture.tscope"])
        #expect(missing.status == 1, "stderr: \(missing.stderr)")
        let help = try run(Paths.tscope, ["--help"])
        #expect(help.stdoutText.contains("EXIT STATUS: 0 success; 1 runtime failure"), "\(help.stdoutText)")
    }

    /// Installs the debug binary the tests run (a release build takes minutes here) into a temporary
    /// prefix, uses what was installed, and uninstalls it.
    @Test func installsAndUninstallsIntoAPrefix() throws {
        let prefix = try Paths.temporaryDirectory("install")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let script = Paths.packageRoot.appendingPathComponent("Tools/install")
        let install = try run(script, ["--prefix", prefix.path, "--binary", Paths.tscope.path], timeoutSeconds: 900)
        #expect(install.status == 0, "stdout: \(install.stdoutText)\nstderr: \(install.stderr)")
        #expect(install.stderr.contains("note: udev rule not installed"), "\(install.stderr)")

        let installed = prefix.appendingPathComponent("bin/tscope")
        // the debug info split off beside it, found by the binary's .gnu_debuglink (binutils' readelf reads both)
        let debugFile = prefix.appendingPathComponent("bin/.debug/tscope.debug")
        let size = { (url: URL) in ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0 }
        let installedSize = size(installed), builtSize = size(Paths.tscope)
        #expect(installedSize > 0 && installedSize < builtSize / 2, "\(installedSize) of \(builtSize) bytes")
        let sections = try run(URL(fileURLWithPath: "/usr/bin/env"), ["readelf", "-S", "-W", installed.path])
        #expect(sections.stdoutText.contains(".gnu_debuglink") && !sections.stdoutText.contains(".debug_info")
                    && !sections.stdoutText.contains(".symtab"), "\(sections.stdoutText)")
        let debugSections = try run(URL(fileURLWithPath: "/usr/bin/env"), ["readelf", "-S", "-W", debugFile.path])
        #expect(debugSections.stdoutText.contains(".debug_info") && debugSections.stdoutText.contains(".symtab"),
                "\(debugSections.stderr)")
        let version = try run(installed, ["--version"])
        #expect(version.status == 0)
        #expect(version.stdoutText.contains("(recorded by Tools/install)"), "\(version.stdoutText)")

        let pages = try FileManager.default.contentsOfDirectory(
            atPath: prefix.appendingPathComponent("share/man/man1").path)
        #expect(pages.contains("tscope.1") && pages.contains("tscope.record.1"), "\(pages)")
        let page = prefix.appendingPathComponent("share/man/man1/tscope.record.1").path
        let man = try run(URL(fileURLWithPath: "/usr/bin/env"), ["man", "-l", page],
                          environment: ["MANPAGER": "cat", "PAGER": "cat", "COLUMNS": "100"])
        #expect(man.status == 0, "stderr: \(man.stderr)")
        #expect(man.stdoutText.contains("--duration"), "\(man.stdoutText.prefix(400))")
        let top = try run(URL(fileURLWithPath: "/usr/bin/env"),
                          ["man", "-l", prefix.appendingPathComponent("share/man/man1/tscope.1").path],
                          environment: ["MANPAGER": "cat", "PAGER": "cat", "COLUMNS": "100"])
        #expect(top.stdoutText.contains("EXIT STATUS"), "\(top.stdoutText.prefix(400))")
        #expect(top.stdoutText.contains("64 usage error"), "\(top.stdoutText)")

        let completion = prefix.appendingPathComponent("share/bash-completion/completions/tscope").path
        let bash = try run(URL(fileURLWithPath: "/bin/bash"), ["-c", "source '\(completion)' && complete -p tscope"])
        #expect(bash.status == 0, "stderr: \(bash.stderr)")
        #expect(bash.stdoutText.contains("-F _tscope tscope"), "\(bash.stdoutText)")
        for shell in ["share/zsh/site-functions/_tscope", "share/fish/vendor_completions.d/tscope.fish"] {
            let text = try String(contentsOf: prefix.appendingPathComponent(shell), encoding: .utf8)
            #expect(text.contains("record"), "\(shell)")
        }

        let uninstall = try run(script, ["--uninstall", "--prefix", prefix.path])
        #expect(uninstall.status == 0, "stderr: \(uninstall.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: prefix.path)
        #expect(left.isEmpty, "left behind: \(left)")
    }
}
