import Foundation

/// One line on stderr, prefixed with the program name.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("tscope: \(message)\n".utf8))
}
