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

/// A command line the library cannot make sense of (a value in the wrong
/// form): the executable prints it with the usage, like its own parse errors.
public struct UsageError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ message: String) { description = message }
}
