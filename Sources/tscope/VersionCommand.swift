import ArgumentParser
import CommandOptions
import Runs

/// `tscope version` (also `tscope --version`).
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print tscope's version, the git commit when known, and the linked FFTW, libusb, SQLite and libpng.")

    func run() {
        print(TscopeVersion.report())
    }
}
