import Foundation

/// One line on stderr, prefixed with the program name.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("tscope: \(message)\n".utf8))
}

/// A failure the user can act on: ArgumentParser prints "Error: <message>" on
/// stderr and exits with status 1.
struct CommandError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}
