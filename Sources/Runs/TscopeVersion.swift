import Capture
import DSP
import Foundation
import USBDriver

/// tscope's version: the one place the number is written.
public enum TscopeVersion {
    public static let number = "0.4.0"

    /// Where the commit came from, for `tscope version`.
    enum CommitSource: Equatable {
        /// `<prefix>/share/tscope/build-info`, written by Tools/install from the checkout it installed
        case installed(String)
        /// `git describe` of the checkout the running binary sits in (e.g. .build/debug/tscope)
        case checkout(String, directory: String)
        case unknown
    }

    /// The running executable's resolved path.
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
    }

    /// The commit: SwiftPM has no build-time hook to stamp it into the binary, so
    /// an installed binary reads the file Tools/install wrote beside it, and a
    /// binary run from inside a git checkout asks git about that checkout (which
    /// may have moved on since the build: `-dirty` says uncommitted changes).
    static func commit() -> CommitSource {
        let binary = URL(fileURLWithPath: executablePath)
        let prefix = binary.deletingLastPathComponent().deletingLastPathComponent()
        let info = prefix.appendingPathComponent("share/tscope/build-info")
        if let text = try? String(contentsOf: info, encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("commit ") {
                return .installed(String(line.dropFirst("commit ".count)))
            }
        }
        var directory = binary.deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent(".git").path) {
                if let described = gitDescribe(in: directory.path) {
                    return .checkout(described, directory: directory.path)
                }
                return .unknown
            }
            directory = directory.deletingLastPathComponent()
        }
        return .unknown
    }

    /// `git describe --always --dirty --abbrev=12` in `directory`; nil when git is missing or fails.
    private static func gitDescribe(in directory: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", directory, "describe", "--always", "--dirty", "--abbrev=12"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// The lines `tscope --version` prints.
    public static func report() -> String {
        let commitLine: String
        switch commit() {
        case .installed(let commit): commitLine = "commit \(commit) (recorded by Tools/install)"
        case .checkout(let commit, let directory): commitLine = "commit \(commit) (git checkout \(directory))"
        case .unknown: commitLine = "commit unknown"
        }
        return """
            tscope \(number)
            \(commitLine)
            FFTW \(FFTWLibrary.version)
            libusb \(LibUSBLibrary.version)
            SQLite \(CaptureLibraries.sqliteVersion)
            libpng \(CaptureLibraries.pngVersion)
            """
    }
}
