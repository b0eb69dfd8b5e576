import Foundation

/// One line on stderr, prefixed with the program name.
public func printError(_ message: String) {
    FileHandle.standardError.write(Data("tscope: \(message)\n".utf8))
}

/// A failure the user can act on: ArgumentParser prints "Error: <message>" on
/// stderr and exits with status 1.
public struct CommandError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ message: String) { description = message }
}
