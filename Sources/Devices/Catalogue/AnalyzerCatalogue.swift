import Signals
import USBDriver

extension AnalyzerKind {
    /// The one list of analyzer families tscope drives natively, in the order
    /// `--device auto` and `tscope devices` try them. Each describes itself in
    /// its own folder; a new family is that folder plus its entry here.
    public static let allCases: [AnalyzerKind] = [.hackrf, .rtlsdr, .tinysa, .rfexplorer]

    /// the family `--device auto` falls back to as the demo device (its emulator)
    public static let demoFamily = AnalyzerKind.hackrf

    /// "HackRF One, RTL-SDR, tinySA, RF Explorer": the models, for help
    public static func modelsText(in catalogue: [AnalyzerKind] = allCases) -> String {
        catalogue.map(\.model).joined(separator: ", ")
    }

    /// "HackRF ≤ 20 MHz, RTL-SDR ≤ 2 MHz": the widest band each streaming family sees at once, for `--mode` help
    public static func realtimeLimitsText(in catalogue: [AnalyzerKind] = allCases) -> String {
        catalogue.compactMap { kind in
            kind.realtimeBandwidthHz.map { "\(kind.shortName) ≤ \(FrequencyFormat.label($0))" }
        }.joined(separator: ", ")
    }

    /// the family's row of the devices tables (README.md, Docs/devices-and-calibration.md), as Markdown;
    /// nil for a kind that is not listed
    public var devicesTableRow: String? {
        guard let listing else { return nil }
        let realtime = realtimeBandwidthHz.map { ", \(listing.realtimeWords) ≤ \(FrequencyFormat.label($0))" } ?? ""
        return "| \(listing.name) | \(listing.path)\(realtime) | `\(id)` | \(listing.tested) |"
    }

    /// The families SoapySDR also drives, by SoapySDR driver key.
    public static func soapyDriven(in catalogue: [AnalyzerKind] = allCases) -> [String: AnalyzerKind] {
        Dictionary(catalogue.compactMap { kind in kind.soapy.map { ($0.key, kind) } }, uniquingKeysWith: { first, _ in first })
    }
}

extension AnalyzerKind {
    /// An analyzer tscope does not know the family of: a remote sensor that
    /// names a family this build lacks, a recording being followed. Not in
    /// `allCases`: it is never opened, takes no settings, streams no I/Q
    /// here, and its levels are dB until its owner says otherwise.
    public static let unknown = AnalyzerKind(
        id: "unknown", model: "analyzer", usb: nil, powerUnit: .dB,
        tunableRange: AnalyzerKind.anyTunableRange, realtimeBandwidthHz: nil,
        settings: AnalyzerSettingsDescription(takes: [], ownerName: "an analyzer of unknown kind"),
        emulator: nil,
        makeSource: { _ in throw USBError.unsupported("an analyzer of unknown kind cannot be opened here") })
}
