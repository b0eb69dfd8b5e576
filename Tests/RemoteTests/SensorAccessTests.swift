#if SensorLink
import Foundation
import Testing
@testable import Remote

/// `serve`'s default off loopback: which addresses are loopback, and the token file it makes.
@Suite struct SensorAccessTests {
    @Test func loopbackAddresses() {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"] { #expect(SensorAccess.isLoopback(host), "\(host)") }
        for host in ["0.0.0.0", "::", "10.77.1.1", "192.168.1.5", "mast1", "127.0.0", "128.0.0.1", "fe80::1"] {
            #expect(!SensorAccess.isLoopback(host), "\(host)")
        }
    }

    @Test func theTokenIsMadeOnceReadableByItsUserOnly() throws {
        let directory = NSTemporaryDirectory() + "sensor-access-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/tscope/serve.token"
        let token = try SensorAccess.generatedToken(at: path)
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(try SensorAccess.generatedToken(at: path) == token)
        // another start makes another only when the file is gone
        try FileManager.default.removeItem(atPath: path)
        #expect(try SensorAccess.generatedToken(at: path) != token)
        // a file others may read is refused, not used
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        #expect(throws: RemoteError.self) { try SensorAccess.generatedToken(at: path) }
    }
}
#endif
