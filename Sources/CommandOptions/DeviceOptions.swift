import ArgumentParser
import Devices
import Remote
import Runs
import Signals

extension DeviceChoice: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument) }
    public var defaultValueDescription: String { rawValue }
    /// the choices served by the rtl_power-compatible sweep (RTLPowerSweep.swift)
    public var isRTLSDR: Bool { kind == .rtlsdr }
}

public struct DeviceOptions: ParsableArguments {
    public init() {}

    @Option(name: .long, help: ArgumentHelp(
        "Analyzer: auto (first attached, else a SoapySDR device, else demo), "
            + AnalyzerKind.allCases.map(\.id).joined(separator: ", ")
            + ", soapy:ARGS (any SDR SoapySDR reaches: soapy:driver=airspy, soapy:driver=rtlsdr,serial=…), "
            + "or a built-in emulation: demo (= demo-\(AnalyzerKind.demoFamily.id)), "
            + AnalyzerKind.allCases.filter { $0.emulator != nil && $0 != AnalyzerKind.demoFamily }
                .map { "demo-\($0.id)" }.joined(separator: ", ") + ".",
        valueName: "device"))
    public var device: DeviceChoice = .auto

    @Option(name: [.customLong("serial"), .customShort("d")], help: "Serial number of the analyzer to open.")
    public var serial: String?

    @Option(name: .customLong("reconnect-timeout"),
            help: "Headless commands: seconds to keep trying to reconnect a lost analyzer before giving up.")
    public var reconnectTimeout: Double = 10

    #if SensorLink
    @Option(help: ArgumentHelp("A sensor's analyzer (`tscope serve` there) instead of a local one.",
                               valueName: "host:port"), transform: { try RemoteEndpoint(parsing: $0) })
    public var remote: RemoteEndpoint?
    #else
    @Option(help: ArgumentHelp("A sensor's analyzer (`tscope serve` there) instead of a local one: needs the sensor link "
                                   + "(`\(SensorLink.buildCommand)`).", valueName: "host:port"))
    public var remote: String?
    #endif

    @Option(name: .customLong("token-file"),
            help: "File whose first line is the bearer token: the one `serve` requires, or `--remote` presents.")
    public var tokenFile: String?

    @Option(name: .customLong("tls-ca"), help: ArgumentHelp(
        "With --remote: speak TLS to the sensor and trust this PEM certificate (its own, or the CA that signed it).",
        valueName: "file"))
    public var tlsCA: String?

    @Flag(name: .customLong("tls"), help: "With --remote: speak TLS to the sensor, trusting the system's CA store.")
    public var tls = false

    @Option(name: .customLong("frequency-offset"), parsing: .unconditional, help: ArgumentHelp(
        "A converter in front of the analyzer: real = tuned + offset, so every frequency shown, given and stored is the "
            + "real one. An LNB with a 9.75 GHz LO: 9750M; a 125 MHz up-converter: -125M.", valueName: "hz"))
    public var frequencyOffset: FrequencyArgument?

    @Flag(name: .customLong("spectrum-inverted"),
          help: "High-side conversion (LO above the signal): real = offset - tuned, the spectrum mirrored.")
    public var spectrumInverted = false

    @Option(name: .customLong("demo-seed"), help: .hidden)
    public var demoSeed: UInt64 = 1

    public func validate() throws {
        guard reconnectTimeout >= 0, reconnectTimeout.isFinite else {
            throw ValidationError("--reconnect-timeout \(reconnectTimeout): expected seconds ≥ 0")
        }
        if remote == nil, tls || tlsCA != nil {
            throw ValidationError("--tls and --tls-ca are for a --remote sensor")
        }
        if tls, tlsCA != nil { throw ValidationError("--tls trusts the system's CA store, --tls-ca one file: give one") }
        if spectrumInverted, frequencyOffset == nil {
            throw ValidationError("--spectrum-inverted needs --frequency-offset (the LO above the signal)")
        }
    }

    /// the converter given, if any
    public var conversion: FrequencyConversion? {
        frequencyOffset.map { FrequencyConversion(offsetHz: $0.hertz, inverted: spectrumInverted) }
    }
}

extension DeviceOptions {
    /// the choice as the runs library takes it
    public var selection: DeviceSelection {
        get throws {
            var selection = DeviceSelection(device: device, serial: serial, reconnectTimeout: reconnectTimeout,
                                            demoSeed: demoSeed)
            selection.conversion = conversion
            #if SensorLink
            selection.remote = try remote.map { RemoteSensor(endpoint: $0, token: try token, trust: try trust) }
            #else
            if remote != nil { throw SensorLink.missing("--remote") }
            #endif
            return selection
        }
    }
    #if SensorLink

    /// the token read from --token-file
    public var token: String? { get throws { try tokenFile.map(BearerToken.read) } }

    /// TLS to the sensor: --tls-ca's certificate, --tls's system store, or none
    public var trust: SensorTrust? {
        get throws {
            if let tlsCA { return try SensorTrust.certificate(at: tlsCA) }
            return tls ? .systemRoots : nil
        }
    }
    #endif
}
