#if SensorLink
import Capture
import Foundation
import NIOSSL
import PostgresNIO

/// Whether and how the link to the server is encrypted, as libpq decides it
/// (PostgreSQL manual, "SSL Support" and "Environment Variables"): the
/// URL's `sslmode` and `sslrootcert`, else `PGSSLMODE` and `PGSSLROOTCERT`,
/// else `prefer` and `~/.postgresql/root.crt`.
///
/// | sslmode | encrypted | the server's certificate |
/// |---|---|---|
/// | disable | never | – |
/// | allow, prefer | when the server offers it | not checked |
/// | require | always | not checked, unless a root certificate file exists: then as verify-ca |
/// | verify-ca | always | signed by the root certificate(s) |
/// | verify-full | always | signed by them and naming the host dialled (a name: an address is refused) |
///
/// (`allow` tries plaintext first in libpq; here it is `prefer`: encryption
/// when offered, the stronger of the two.)
public struct PostgresTLS: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var mode: Mode
    /// the root certificate(s) a server's certificate is checked against (PEM); nil: not checked
    public var rootCertificate: String?
    /// where the mode came from, for messages ("sslmode=verify-full", "PGSSLMODE", "the default")
    public var source: String

    public static let modes = Mode.allCases.map(\.rawValue).joined(separator: ", ")

    /// The mode and root certificate for `location`, libpq's way.
    public static func resolve(for location: PostgresLocation,
                               environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(CaptureError) -> PostgresTLS {
        let mode: Mode
        let source: String
        if let given = location.sslMode {
            mode = given
            source = "sslmode=\(given.rawValue)"
        } else if let text = environment["PGSSLMODE"], !text.isEmpty {
            guard let given = Mode(rawValue: text) else {
                throw CaptureError(file: location.name, "PGSSLMODE=\(text): expected one of \(modes)")
            }
            mode = given
            source = "PGSSLMODE"
        } else {
            mode = .prefer
            source = "the default (prefer)"
        }
        let explicitRoot = location.sslRootCertificate
            ?? environment["PGSSLROOTCERT"].flatMap { $0.isEmpty ? nil : $0 }
        let defaultRoot = (environment["HOME"] ?? NSHomeDirectory()) + "/.postgresql/root.crt"
        let root = explicitRoot ?? defaultRoot
        let rootExists = FileManager.default.fileExists(atPath: root)
        if mode == .verifyFull, isAddress(location.host) {
            throw CaptureError(file: location.name, "\(source) checks that the server's certificate names the host "
                + "dialled, and \(location.host) is an address: connect by the name its certificate gives, "
                + "or use sslmode=verify-ca (the signature only)")
        }
        switch mode {
        case .verifyCA, .verifyFull:
            guard rootExists else {
                throw CaptureError(file: location.name, "\(source) checks the server's certificate, but "
                    + "\(explicitRoot == nil ? "there is no root certificate at \(defaultRoot)" : "\(root) does not exist")"
                    + ": give sslrootcert=FILE (or PGSSLROOTCERT) naming the CA that signed it")
            }
            return PostgresTLS(mode: mode, rootCertificate: root, source: source)
        case .require where rootExists:
            // libpq: with a root certificate file present, require checks the chain as verify-ca does
            return PostgresTLS(mode: .verifyCA, rootCertificate: root, source: source)
        case .require:
            if let explicitRoot {
                throw CaptureError(file: location.name, "sslrootcert \(explicitRoot) does not exist")
            }
            return PostgresTLS(mode: mode, rootCertificate: nil, source: source)
        default:
            return PostgresTLS(mode: mode, rootCertificate: nil, source: source)
        }
    }

    /// an IPv4 or IPv6 literal (a certificate's name cannot be checked against it here:
    /// SwiftNIO SSL checks names given for SNI, which takes no address)
    static func isAddress(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// PostgresNIO's setting for this mode.
    func configuration() throws(CaptureError) -> PostgresConnection.Configuration.TLS {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable:
            return .disable
        case .allow, .prefer, .require:
            tls.certificateVerification = .none
        case .verifyCA, .verifyFull:
            tls.certificateVerification = mode == .verifyFull ? .fullVerification : .noHostnameVerification
            guard let rootCertificate else { return .disable }
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(rootCertificate))
            } catch {
                throw CaptureError(file: rootCertificate, "not a PEM certificate: \(error)")
            }
        }
        do {
            let context = try NIOSSLContext(configuration: tls)
            return mode == .allow || mode == .prefer ? .prefer(context) : .require(context)
        } catch {
            throw CaptureError(file: rootCertificate ?? "TLS", "cannot set up TLS: \(error)")
        }
    }
}
#endif
