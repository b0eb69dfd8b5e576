import ArgumentParser
import Capture
import Runs
import Signals

/// How `convert` and `export` read their input: format, strictness, zone, and
/// what raw I/Q files do not say.
public struct CaptureInputOptions: ParsableArguments {
    public init() {}

    @Option(name: .customLong("in-format"),
            help: "Input format (default: from the extension and first bytes): \(CaptureFormat.readable).")
    public var inputFormat: CaptureFormatArgument?

    @Flag(help: "Stop at the first damaged line or record instead of skipping and counting it.")
    public var strict = false

    @Option(name: .customLong("utc-offset"),
            help: "Hours east of UTC of the machine that wrote rtl_power/hackrf_sweep times (default: this machine's zone).")
    public var utcOffsetHours: Double?

    @Option(help: "Raw I/Q sample rate [samples/s], e.g. 2.4M (needed for .cu8/.cs8/.cs16/.cf32).")
    public var rate: FrequencyArgument?

    @Option(help: "Raw I/Q centre frequency [Hz], e.g. 100.1M.")
    public var center: FrequencyArgument?

    @Option(help: "Raw I/Q FFT size [bins].")
    public var fftSize: Int = 1024

    @Option(help: "Raw I/Q: FFTs averaged per frame.")
    public var averaging: Int = 16

    public func validate() throws {
        if let utcOffsetHours, !(utcOffsetHours.isFinite && abs(utcOffsetHours) <= 26) {
            throw ValidationError("--utc-offset must be hours between -26 and 26")
        }
        guard fftSize >= 8, fftSize <= 1 << 20 else { throw ValidationError("--fft-size must be 8…1048576") }
        guard averaging >= 1, averaging <= 4096 else { throw ValidationError("--averaging must be 1…4096") }
    }

    public var readOptions: CaptureReadOptions {
        let zone: CaptureReadOptions.TimeZoneRule = utcOffsetHours.map { .utcOffset(seconds: Int(($0 * 3600).rounded())) } ?? .local
        let iq = IQOptions(sampleRateHz: rate?.hertz, centerHz: center?.hertz, fftSize: fftSize, averaging: averaging)
        return CaptureReadOptions(strict: strict, timeZone: zone, iq: iq)
    }

    /// The format of `path`: given, or detected (a PostgreSQL URL is a capture store).
    public func format(of path: String) throws -> CaptureFormat {
        try CaptureInput.format(of: path, given: inputFormat?.format)
    }

    /// Opens a reader of a file or a PostgreSQL store's session.
    public func openReader(path: String, format: CaptureFormat) throws -> SpectrumFrameReader {
        try CaptureInput.open(path, format: format, options: readOptions)
    }
}

/// `--format` values.
public struct CaptureFormatArgument: ExpressibleByArgument {
    public var format: CaptureFormat
    public init?(argument: String) {
        guard let format = CaptureFormat(rawValue: argument.lowercased()) else { return nil }
        self.format = format
    }
    public static var allValueStrings: [String] { CaptureFormat.allCases.map(\.rawValue) }
}

/// A frequency or rate with an optional k/M/G suffix: "2.4M", "88100000", "100k".
public struct FrequencyArgument: ExpressibleByArgument {
    public var hertz: Double
    /// the one parser of typed frequencies (Signals' `FrequencyFormat.hertz`)
    public init?(argument: String) {
        guard let hertz = FrequencyFormat.hertz(argument) else { return nil }
        self.hertz = hertz
    }
}
