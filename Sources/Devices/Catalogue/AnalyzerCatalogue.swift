extension AnalyzerKind {
    /// The one list of analyzer families tscope drives natively, in the order
    /// `--device auto` and `tscope devices` try them. Each describes itself in
    /// its own folder; a new family is that folder plus its entry here.
    public static let allCases: [AnalyzerKind] = [.hackrf, .rtlsdr, .tinysa, .rfexplorer]

    /// the family `--device auto` falls back to as the demo device (its emulator)
    public static let demoFamily = AnalyzerKind.hackrf
}
