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
            Each viewer asks for its band, frame rate and detector; frames are cut and decimated per viewer, so a slow link \
            gets fewer frames, each the newest. A HackRF (and an RTL-SDR in real time) keeps every detector and sends each \
            viewer its own, so a remote meter reads what a local one reads; --detector is for viewers that ask for none. The \
            first viewer to retune holds control until it quits; the others follow its band. With --token-file every viewer \
            must present the same token; with --tls-cert and --tls-key the link is TLS (viewers give --tls-ca FILE or --tls). \
            On an address other than loopback with neither, a token is made and kept in ~/.config/tscope/serve.token (readable \
            by you only; its path is printed) unless --insecure lets anyone who reaches the port watch and retune. Runs until \
            Ctrl-C or SIGTERM; a lost analyzer is reconnected for as long as it takes.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup(title: "Analyzer settings") var analyzerOptions: AnalyzerSettingsOptions
    @OptionGroup var detectorOption: DetectorOption

    @Option(help: ArgumentHelp("Address to listen on; port 0 picks a free one (printed).", valueName: "host:port"))
    var listen: String

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

    @Option(name: .customLong("control-token-file"), help: ArgumentHelp(
        "File whose first line is the token a viewer needs to retune and change the analyzer's settings; the "
            + "--token-file token then only watches.", valueName: "file"))
    var controlTokenFile: String?

    @Flag(help: "On an address other than loopback, serve without a token or TLS: anyone who can reach the port watches and retunes.")
    var insecure = false

    func validate() throws {
        try analyzerOptions.checkMode(bands: [band.range], device: deviceOptions.device)
        guard binWidth > 0, binWidth.isFinite else { throw ValidationError("--bin-width \(binWidth): expected Hz > 0") }
        guard deviceOptions.remote == nil else { throw ValidationError("serve uses a local analyzer, not --remote") }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together")
        }
    }

    func run() throws {
        #if SensorLink
        let listen = try RemoteEndpoint(parsing: listen, allowPortZero: true)   // a ValidationError: usage, exit 64
        let certificate = try tlsCertificate.map { try SensorCertificate(chainPath: $0, keyPath: tlsKey ?? "") }
        let selection = try analyzerOptions.apply(to: deviceOptions.selection)
        let access = try usage {
            try ServeAccess.decide(givenToken: try deviceOptions.token, tokenFileGiven: deviceOptions.tokenFile != nil,
                                   tls: certificate != nil, host: listen.host, insecure: insecure)
        }
        var tokenNote = access.note
        var serving = ServeRun(selection: selection, listen: listen, token: access.token,
                               certificate: certificate, band: band.range, binWidthHz: binWidth,
                               detector: detectorOption.chosen(default: .peak))
        serving.controlToken = try usage { try controlTokenFile.map(BearerToken.read) }
        if serving.controlToken != nil { tokenNote += " (control token required to retune)" }
        try usage { try serving
            .run { address, analyzer in
                printError("serving \(analyzer.name)\(analyzer.isDemo ? " (demo)" : "") on \(address)"
                    + (certificate == nil ? "" : " over TLS")
                    + tokenNote + "; Ctrl-C stops")
            } }
        #else
        throw SensorLink.missing("tscope serve")
        #endif
    }
}
