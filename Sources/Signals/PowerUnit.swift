/// The unit a level is in: `dB` relative to an SDR's full scale (its own
/// numbers, uncalibrated), or `dBm`, power at the input (a calibrated
/// analyzer, or one that reports power itself: tinySA, RF Explorer).
/// Written as its raw value wherever text holds it (status line, JSON, CSV
/// headers, the sensor protocol, a recording's `unit=` token).
public enum PowerUnit: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case dB
    case dBm

    public var description: String { rawValue }

    /// the unit a recording's free-form `gains` text states with its `unit=` token ("lna=16 unit=dBm"); dB when
    /// it states none (every SDR recording before calibration existed)
    public init(recordedIn gains: String?) {
        let token = (gains ?? "").split(separator: " ").first { $0.hasPrefix("unit=") }
        self = token.flatMap { PowerUnit(rawValue: String($0.dropFirst("unit=".count))) } ?? .dB
    }

    /// the `unit=` token a recording's `gains` text carries for levels in this unit; nil for dB (the default)
    public var recordedToken: String? { self == .dB ? nil : "unit=\(rawValue)" }
}
