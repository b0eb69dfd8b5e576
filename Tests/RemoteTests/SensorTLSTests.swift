#if SensorLink
import Analyzers
import Foundation
import Remote
import Signals
import Testing

/// Self-signed certificates made by Debian's openssl for one test: the
/// sensor's (naming 127.0.0.1 and localhost) and a stranger's.
struct TestCertificates {
    let directory: URL
    var sensorCertificate: String { directory.appendingPathComponent("sensor.pem").path }
    var sensorKey: String { directory.appendingPathComponent("sensor.key").path }
    var strangerCertificate: String { directory.appendingPathComponent("stranger.pem").path }
    var elsewhereCertificate: String { directory.appendingPathComponent("elsewhere.pem").path }
    var elsewhereKey: String { directory.appendingPathComponent("elsewhere.key").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tscope-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.makeSelfSigned(name: "sensor", subjectAltName: "IP:127.0.0.1,DNS:localhost", in: directory)
        try Self.makeSelfSigned(name: "stranger", subjectAltName: "IP:127.0.0.1,DNS:localhost", in: directory)
        try Self.makeSelfSigned(name: "elsewhere", subjectAltName: "DNS:sensor.example", in: directory)
    }

    static func makeSelfSigned(name: String, subjectAltName: String, in directory: URL) throws {
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.currentDirectoryURL = directory
        openssl.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-keyout", "\(name).key", "-out", "\(name).pem", "-days", "2", "-subj", "/CN=tscope \(name)",
                             "-addext", "subjectAltName=\(subjectAltName)"]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else {
            struct OpenSSLFailed: Error {}
            throw OpenSSLFailed()
        }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

@Suite struct SensorTLSTests {
    /// What a viewer trusting `certificate` (nil: plaintext) is told when it
    /// asks `sensor` what it is; nil when it is answered.
    static func refusal(by sensor: LoopbackSensor, trusting certificate: String?) throws -> String? {
        let trust = try certificate.map { try SensorTrust.certificate(at: $0) }
        do {
            _ = try RemoteSensor(endpoint: sensor.endpoint, trust: trust).describe(timeoutSeconds: 3)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// A viewer trusting the sensor's certificate gets frames; one without
    /// TLS, or trusting another certificate, is refused with a reason.
    @Test func aViewerTrustingTheSensorsCertificateWatchesOthersAreRefused() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let sensor = try LoopbackSensor(
            certificate: SensorCertificate(chainPath: certificates.sensorCertificate, keyPath: certificates.sensorKey))
        defer { sensor.stop() }

        let trusted = RemoteSensor(endpoint: sensor.endpoint, trust: try .certificate(at: certificates.sensorCertificate))
        #expect(try trusted.describe().deviceName == LoopbackSensor.name)
        // the status line and a recording's metadata say the link is TLS
        #expect(try trusted.selectAnalyzer().name == "REMOTE \(sensor.endpoint) TLS \(LoopbackSensor.name)")
        let received = Received()
        let source = RemoteSpectrumSource(sensor: trusted, onFrame: received.onFrame, onEnd: received.onEnd)
        try source.start(band: FrequencyRange(lowerHz: 94e6, upperHz: 96e6)!, binWidthHz: 0)
        #expect(received.wait(for: 5))
        source.stop()
        #expect(received.frames.value.first?.powerDB.max() == -20, "the 95 MHz carrier came through")

        let plaintext = try #require(try Self.refusal(by: sensor, trusting: nil), "a plaintext viewer was answered")
        #expect(plaintext.hasPrefix("cannot reach the sensor at \(sensor.endpoint)"), "\(plaintext)")
        #expect(plaintext.contains("a sensor serving TLS? (give --tls-ca FILE or --tls)"), "\(plaintext)")
        let stranger = try #require(try Self.refusal(by: sensor, trusting: certificates.strangerCertificate),
                                    "a viewer trusting another certificate was answered")
        #expect(stranger == "cannot reach the sensor at \(sensor.endpoint): "
                + "TLS: its certificate is not signed by --tls-ca \(certificates.strangerCertificate)")
    }

    /// A trusted certificate for another host is refused too (hostname check).
    @Test func aCertificateForAnotherHostIsRefused() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let sensor = try LoopbackSensor(
            certificate: SensorCertificate(chainPath: certificates.elsewhereCertificate, keyPath: certificates.elsewhereKey))
        defer { sensor.stop() }
        let why = try #require(try Self.refusal(by: sensor, trusting: certificates.elsewhereCertificate),
                               "a certificate for sensor.example was accepted for 127.0.0.1")
        #expect(why == "cannot reach the sensor at \(sensor.endpoint): TLS: its certificate does not name 127.0.0.1")
    }

    /// A TLS viewer of a plaintext sensor is refused, not silently downgraded.
    @Test func aTLSViewerOfAPlaintextSensorIsRefused() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let sensor = try LoopbackSensor()
        defer { sensor.stop() }
        let why = try #require(try Self.refusal(by: sensor, trusting: certificates.sensorCertificate),
                               "a TLS viewer was answered in plaintext")
        #expect(why.hasPrefix("cannot reach the sensor at \(sensor.endpoint): TLS: the sensor does not speak TLS"), "\(why)")
    }

    @Test func filesThatAreNotPEMAreOneLineErrors() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        #expect(throws: RemoteError.tlsFile("/nonexistent/cert.pem", "cannot be read")) {
            try SensorCertificate(chainPath: "/nonexistent/cert.pem", keyPath: certificates.sensorKey)
        }
        // the key where the certificate should be, and the other way round
        #expect(throws: RemoteError.tlsFile(certificates.sensorKey,
                                            "is not a PEM certificate (no -----BEGIN …CERTIFICATE----- line)")) {
            try SensorCertificate(chainPath: certificates.sensorKey, keyPath: certificates.sensorKey)
        }
        #expect(throws: RemoteError.tlsFile(certificates.sensorCertificate,
                                            "is not a PEM private key (no -----BEGIN …PRIVATE KEY----- line)")) {
            try SensorCertificate(chainPath: certificates.sensorCertificate, keyPath: certificates.sensorCertificate)
        }
        #expect(throws: RemoteError.self) { try SensorTrust.certificate(at: certificates.sensorKey) }
        // `openssl ecparam -genkey` writes EC PARAMETERS before the key
        let ecKey = certificates.directory.appendingPathComponent("ec.key").path
        let key = try String(contentsOfFile: certificates.sensorKey, encoding: .utf8)
        try ("-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n" + key)
            .write(toFile: ecKey, atomically: true, encoding: .utf8)
        #expect(try SensorCertificate(chainPath: certificates.sensorCertificate, keyPath: ecKey).keyPath == ecKey)
        // a key that is not the certificate's: refused when the server starts, naming both files
        do {
            let mismatched = try SensorCertificate(chainPath: certificates.sensorCertificate,
                                                   keyPath: certificates.elsewhereKey)
            let sensor = try LoopbackSensor(certificate: mismatched)
            sensor.stop()
            Issue.record("a sensor served with another certificate's key")
        } catch {
            #expect("\(error)" == "cannot listen on 127.0.0.1:0: TLS: the key \(certificates.elsewhereKey) does not load, "
                    + "or is not the key of \(certificates.sensorCertificate)")
        }
        let error = RemoteError.tlsFile("a.pem", "cannot be read")
        #expect("\(error)" == "TLS file a.pem cannot be read")
    }
}
#endif
