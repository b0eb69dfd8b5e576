#if SensorLink
import Foundation

/// Who may watch a sensor when `serve` was given neither `--token-file` nor
/// TLS: on loopback, anyone on this machine (as before); on any other
/// address nobody without a token, unless `--insecure` says so. The token is
/// made once (32 random bytes, hex) and kept in a file only this user can
/// read, reused on later starts so viewers keep working, and its path printed
/// — as Jupyter does with its server token.
public enum SensorAccess {
    /// whether `host` is a loopback address (127.0.0.0/8, ::1, localhost): reachable from this machine only
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare == "localhost" || bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let parts = bare.split(separator: ".")
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// `${XDG_CONFIG_HOME:-$HOME/.config}/tscope/serve.token`
    public static var defaultTokenPath: String {
        let environment = ProcessInfo.processInfo.environment
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return config + "/tscope/serve.token"
    }

    /// The token in `path`, made there (mode 0600) if the file is missing; an existing file that others may
    /// read is refused rather than used.
    public static func generatedToken(at path: String = defaultTokenPath) throws -> String {
        let manager = FileManager.default
        if manager.fileExists(atPath: path) {
            let mode = (try? manager.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
            guard mode & 0o077 == 0 else {
                throw RemoteError.tokenFile(path, "may be read by others (mode \(String(mode, radix: 8))): "
                    + "`chmod 600` it, or remove it to have a new token made")
            }
            return try BearerToken.read(path: path)
        }
        try manager.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                                    attributes: [.posixPermissions: 0o700])
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        // created readable by this user only, before the token is written into it
        guard manager.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw RemoteError.tokenFile(path, "cannot be created")
        }
        defer { try? handle.close() }
        try handle.write(contentsOf: Data((token + "\n").utf8))
        return token
    }
}
#endif
