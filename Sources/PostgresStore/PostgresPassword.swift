#if SensorLink
import Foundation

/// Where a store's password comes from, as libpq looks for it (PostgreSQL
/// manual, "The Password File" and "Environment Variables"): the URL's own,
/// else `PGPASSWORD`, else the first matching line of `PGPASSFILE` or
/// `~/.pgpass` — `hostname:port:database:username:password`, `*` matching
/// anything, `\:` and `\\` escaped, `#` lines comments, and the file ignored
/// when its group or others may read it. So the password need never be in a
/// command line, where `ps` shows it to every user of the machine; and it is
/// never printed: messages, the status line and recordings name the store by
/// `PostgresLocation.name`, which leaves it out.
public struct PostgresPassword: Sendable, Equatable {
    public var password: String?
    /// where it came from, for messages ("PGPASSWORD", "/home/me/.pgpass line 3"); nil for none
    public var source: String?
    /// why a password file was not read, when that is why there is none
    public var ignoredFile: String?

    public static func resolve(for location: PostgresLocation,
                               environment: [String: String] = ProcessInfo.processInfo.environment) -> PostgresPassword {
        if let password = location.password { return PostgresPassword(password: password, source: "the URL") }
        if let password = environment["PGPASSWORD"], !password.isEmpty {
            return PostgresPassword(password: password, source: "PGPASSWORD")
        }
        let path = environment["PGPASSFILE"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.pgpass")
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let text = FileManager.default.contents(atPath: path).flatMap({ String(data: $0, encoding: .utf8) }) else {
            return PostgresPassword()
        }
        let mode = attributes[.posixPermissions] as? Int ?? 0
        guard mode & 0o077 == 0 else {
            return PostgresPassword(ignoredFile: "\(path) was not read: group or others may read it (chmod 600 it, as libpq asks)")
        }
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.hasSuffix("\r") ? line.dropLast() : line[...]
            guard !trimmed.hasPrefix("#"), let fields = fields(of: trimmed), fields.count == 5 else { continue }
            func matches(_ field: String, _ value: String) -> Bool { field == "*" || field == value }
            if matches(fields[0], location.host) && matches(fields[1], String(location.port))
                && matches(fields[2], location.database) && matches(fields[3], location.user) {
                return PostgresPassword(password: fields[4], source: "\(path) line \(number + 1)")
            }
        }
        return PostgresPassword()
    }

    /// The colon-separated fields of a pgpass line, `\:` and `\\` unescaped; nil for a line ending in a lone backslash.
    static func fields(of line: Substring) -> [String]? {
        var fields: [String] = [], current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        guard !escaped else { return nil }
        fields.append(current)
        return fields
    }
}
#endif
