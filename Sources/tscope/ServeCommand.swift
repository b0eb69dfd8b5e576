import ArgumentParser
import CommandOptions
import Remote
import Runs

/// A sensor node: the analyzer streamed to viewers elsewhere.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the analyzer to viewers on other machines over gRPC (they use --remote HOST:PORT).",
        discussion: """
            Each viewer asks for its band and frame rate; frames are cut and peak-decimated per viewer, so a \
            slow link gets fewer frames, each the newest. The first viewer to retune holds control until it \
            quits; the others follow its band. With --token-file every viewer must present the same token; \
            with --tls-cert and --tls-key the link is TLS (viewers give --tls-ca FILE or --tls). \
            Runs until Ctrl-C or SIGTERM; a lost analyzer is reconnected for as long as it takes.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup(title: "Analyzer settings") var analyzerOptions: AnalyzerSettingsOptions
    @OptionGroup var detectorOption: DetectorOption

    @Option(help: ArgumentHelp("Address to listen on; port 0 picks a free one (printed).", valueName: "host:port"),
            transform: { try RemoteEndpoint(parsing: $0, allowPortZero: true) })
    var listen: RemoteEndpoint

    @Option(name: [.customShort("f"), .long], help: "Band swept until a viewer retunes, start:stop in MHz (default 88:108).",
            transform: Band.init(parsing:))
    var band: Band = Band(defaultMHz: 88, 108)

    @Option(name: [.customShort("w"), .customLong("bin-width")], help: "Bin width in Hz until a viewer retunes.")
    var binWidth: Double = 20_000

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp(
        "Serve over TLS with this PEM certificate chain (the sensor's certificate first); needs --tls-key.",
        valueName: "file"))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    func validate() throws {
        try analyzerOptions.checkMode(bands: [band.range], device: deviceOptions.device)
        guard binWidth > 0, binWidth.isFinite else { throw ValidationError("--bin-width \(binWidth): expected Hz > 0") }
        guard deviceOptions.remote == nil else { throw ValidationError("serve uses a local analyzer, not --remote") }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together")
        }
    }

    func run() throws {
        let certificate = try tlsCertificate.map { try SensorCertificate(chainPath: $0, keyPath: tlsKey ?? "") }
        let selection = try analyzerOptions.apply(to: deviceOptions.selection)
        try usage { try ServeRun(selection: selection, listen: listen, token: deviceOptions.token,
                     certificate: certificate, band: band.range, binWidthHz: binWidth,
                     detector: detectorOption.chosen(default: .peak))
            .run { address, analyzer in
                printError("serving \(analyzer.name)\(analyzer.isDemo ? " (demo)" : "") on \(address)"
                    + (certificate == nil ? "" : " over TLS")
                    + (deviceOptions.tokenFile == nil ? "" : " (token required)") + "; Ctrl-C stops")
            } }
    }
}

/// Tools/bench-serve's load: many viewers of one sensor in this process (hidden).
struct ServeLoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve-load", shouldDisplay: false)

    @Option(transform: { try RemoteEndpoint(parsing: $0) }) var remote: RemoteEndpoint
    @Option var viewers: Int = 1
    @Option var seconds: Double = 10
    @Option(transform: Band.init(parsing:)) var band: Band = Band(defaultMHz: 88, 108)
    @Option(name: .customLong("sensor-pid")) var sensorPID: Int32?
    @Option(name: .customLong("tls-ca")) var tlsCA: String?

    func run() throws {
        let trust = try tlsCA.map { try SensorTrust.certificate(at: $0) }
        let (counts, elapsed, cpu) = try RemoteLoad.run(
            sensor: RemoteSensor(endpoint: remote, trust: trust), viewers: viewers, band: band.range, seconds: seconds,
            cpuSeconds: { sensorPID.map(RemoteLoad.cpuSeconds) ?? 0 })
        let rates = counts.map { Double($0.frames) / elapsed }
        print("{\"viewers\":\(viewers),\"seconds\":\(elapsed),\"fps_min\":\(rates.min() ?? 0),"
            + "\"fps_mean\":\(rates.reduce(0, +) / Double(max(1, rates.count))),\"bins\":\(counts.map(\.bins).min() ?? 0),"
            + "\"sensor_cpu\":\(cpu / elapsed)}")
    }
}
