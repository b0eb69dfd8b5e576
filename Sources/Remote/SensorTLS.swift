#if SensorLink
import Foundation
import GRPCNIOTransportHTTP2Posix

/// A sensor's TLS identity (`serve --tls-cert FILE --tls-key FILE`): its
/// certificate chain and private key, PEM files. Checked when given, so a
/// wrong file is a one-line error before anything listens.
public struct SensorCertificate: Sendable, Equatable {
    public let chainPath: String
    public let keyPath: String

    public init(chainPath: String, keyPath: String) throws {
        try PEMFile.check(chainPath, holds: "CERTIFICATE", what: "a PEM certificate")
        try PEMFile.check(keyPath, holds: "PRIVATE KEY", what: "a PEM private key")
        self.chainPath = chainPath
        self.keyPath = keyPath
    }

    var transportSecurity: HTTP2ServerTransport.Posix.TransportSecurity {
        .tls(certificateChain: [.file(path: chainPath, format: .pem)], privateKey: .file(path: keyPath, format: .pem))
    }

    /// Words naming the file for SwiftNIO SSL's load failures, which the
    /// server reports only as "Couldn't create SSL context".
    func explain(_ reason: String) -> String? {
        if reason.contains("failedToLoadPrivateKey") {
            return "TLS: the key \(keyPath) does not load, or is not the key of \(chainPath)"
        }
        if reason.contains("failedToLoadCertificate") { return "TLS: the certificate \(chainPath) does not load" }
        return nil
    }
}

/// How a viewer trusts a sensor that speaks TLS: the system's trust store
/// (`--tls`, a certificate from a public or company CA) or one certificate
/// file (`--tls-ca FILE`: the sensor's self-signed certificate or the CA that
/// signed it). Either way the certificate must name the host dialled.
public enum SensorTrust: Sendable, Equatable {
    case systemRoots
    case certificate(path: String)

    /// Trust in `path`, checked to hold a PEM certificate.
    public static func certificate(at path: String) throws -> SensorTrust {
        try PEMFile.check(path, holds: "CERTIFICATE", what: "a PEM certificate")
        return .certificate(path: path)
    }

    var transportSecurity: HTTP2ClientTransport.Posix.TransportSecurity {
        switch self {
        case .systemRoots:
            return .tls
        case .certificate(let path):
            return .tls { $0.trustRoots = .certificates([.file(path: path, format: .pem)]) }
        }
    }
}

enum PEMFile {
    /// Throws unless `path` reads as text with a `-----BEGIN … <label>-----`
    /// block (among others: openssl's EC keys may start with EC PARAMETERS).
    static func check(_ path: String, holds label: String, what: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RemoteError.tlsFile(path, "cannot be read")
        }
        let text = String(decoding: data, as: UTF8.self)
        let labels = text.split(whereSeparator: \.isNewline).compactMap { line -> Substring? in
            guard line.hasPrefix("-----BEGIN "), line.hasSuffix("-----") else { return nil }
            return line.dropFirst("-----BEGIN ".count).dropLast("-----".count)
        }
        guard labels.contains(where: { $0.hasSuffix(label) }) else {
            throw RemoteError.tlsFile(path, "is not \(what) (no -----BEGIN …\(label)----- line)")
        }
    }
}
#endif
