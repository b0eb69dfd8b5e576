import Foundation
import Testing

/// The README's first command builds tscope without the sensor link (the package trait SensorLink,
/// which every other test builds with): that build compiles none of SwiftNIO, gRPC, BoringSSL,
/// postgres-nio or swift-prometheus, runs the demo analyzer, and answers each of the sensor link's
/// commands with the command that builds it. Tools/test makes the build first (`.build-plain`);
/// here it is brought up to date, a no-op when nothing changed.
@Suite struct PlainBuildTests {
    static let scratch = Paths.packageRoot.appendingPathComponent(".build-plain")

    @Test func thePlainBuildLeavesOutTheSensorLinkAndSaysHowToGetIt() throws {
        let build = try run(URL(fileURLWithPath: "/usr/bin/env"),
                            ["swift", "build", "--package-path", Paths.packageRoot.path, "--scratch-path", Self.scratch.path,
                             "--product", "tscope"], timeoutSeconds: 1800)
        #expect(build.status == 0, "\(build.stdoutText.suffix(2000))\n\(build.stderr.suffix(2000))")
        let products = Self.scratch.appendingPathComponent("debug")
        let tscope = products.appendingPathComponent("tscope")
        try #require(FileManager.default.isExecutableFile(atPath: tscope.path))
        // none of the sensor link's engines was compiled (each module builds into NAME.build)
        let built = try FileManager.default.contentsOfDirectory(atPath: products.path)
        for module in ["NIOCore", "NIOHTTP2", "GRPCCore", "CNIOBoringSSL", "CCryptoBoringSSL", "PostgresNIO", "Prometheus"] {
            #expect(!built.contains("\(module).build"), "\(module) was compiled: \(built.filter { $0.hasSuffix(".build") })")
        }
        #expect(built.contains("ArgumentParser.build") && built.contains("GRDB.build"), "\(built)")

        // the demo analyzer: one sweep in hackrf_sweep's CSV
        let sweep = try run(tscope, ["sweep", "--device", "demo", "-f", "88:108", "-1"], timeoutSeconds: 120)
        #expect(sweep.status == 0, "\(sweep.stderr)")
        #expect(sweep.stdoutText.split(separator: "\n").count >= 2, "\(sweep.stdoutText.prefix(300))")

        // each of the sensor link's ways in: one line naming it and the build that has it, exit 1
        let command = "`swift build -c release --traits SensorLink`"
        for (arguments, what) in [
            (["serve", "--listen", "127.0.0.1:0"], "tscope serve"),
            (["meter", "--device", "demo", "--band", "88:108", "--count", "1", "--prometheus", "127.0.0.1:0"], "--prometheus"),
            (["meter", "--remote", "127.0.0.1:7373", "--band", "88:108", "--count", "1"], "--remote"),
            (["replay", "postgresql://tscope@127.0.0.1/tscope"], "a PostgreSQL capture store"),
        ] {
            let result = try run(tscope, arguments, timeoutSeconds: 60)
            #expect(result.status == 1, "\(arguments): exit \(result.status) \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("\(what) needs the sensor link") && lines[0].contains(command),
                    "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result.stdoutText)")
        }
        // the binary the other tests run has it
        let full = try run(Paths.tscope, ["serve", "--help"])
        #expect(full.stdoutText.contains("--tls-cert"), "\(full.stdoutText.prefix(300))")
    }
}
