import USBDriver

extension AnalyzerKind {
    /// The one list of analyzer families tscope drives natively, in the order
    /// `--device auto` and `tscope devices` try them. Each describes itself in
    /// its own folder; a new family is that folder plus its entry here.
    public static let allCases: [AnalyzerKind] = [.hackrf, .rtlsdr, .tinysa, .rfexplorer]

    /// the family `--device auto` falls back to as the demo device (its emulator)
    public static let demoFamily = AnalyzerKind.hackrf
}

extension AnalyzerKind {
    /// An analyzer tscope does not know the family of: a remote sensor that
    /// names a family this build lacks, a recording being followed. Not in
    /// `allCases`: it is never opened, takes no settings, streams no I/Q
    /// here, and its levels are dB until its owner says otherwise.
    public static let unknown = AnalyzerKind(
        id: "unknown", model: "analyzer", usb: nil, powerUnit: "dB",
        tunableRange: AnalyzerKind.anyTunableRange, realtimeBandwidthHz: nil,
        settings: AnalyzerSettingsDescription(options: [], ownerName: "an analyzer of unknown kind"),
        emulator: nil,
        makeSource: { _ in throw USBError.unsupported("an analyzer of unknown kind cannot be opened here") })
}
