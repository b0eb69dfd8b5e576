/// The unit a level is in: `dB` relative to an SDR's full scale (its own
/// numbers, uncalibrated), `dBm`, power at the input (a calibrated analyzer,
/// or one that reports power itself: tinySA, RF Explorer), or a calibrated
/// level shown as a voltage across 50 Ω (`dBuV`, `dBmV`) or, through an
/// antenna factor, as field strength (`dBuV/m`) — the EMC units, chosen with
/// `--unit` and `--antenna-factor` (`LevelCorrection`).
/// Written as its raw value wherever text holds it (status line, JSON, CSV
/// headers, the sensor protocol, a recording's `unit=` token): ASCII "u" for
/// µ, as Siglent's and Rohde & Schwarz's remote commands spell it.
public enum PowerUnit: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case dB
    case dBm
    case dBuV
    case dBmV
    case dBuVPerMetre = "dBuV/m"

    public var description: String { rawValue }

    /// an absolute level (power or voltage at the input, or field strength), not relative to an SDR's full scale
    public var isAbsolute: Bool { self != .dB }

    /// the unit a recording's free-form `gains` text states with its `unit=` token ("lna=16 unit=dBm"); dB when
    /// it states none (every SDR recording before calibration existed)
    public init(recordedIn gains: String?) {
        let token = (gains ?? "").split(separator: " ").first { $0.hasPrefix("unit=") }
        self = token.flatMap { PowerUnit(rawValue: String($0.dropFirst("unit=".count))) } ?? .dB
    }

    /// the `unit=` token a recording's `gains` text carries for levels in this unit; nil for dB (the default)
    public var recordedToken: String? { self == .dB ? nil : "unit=\(rawValue)" }
}
