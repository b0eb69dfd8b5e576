/// Where each lead of a standard 12-lead printout goes: three rows of four
/// columns (I II III | aVR aVL aVF | V1 V2 V3 | V4 V5 V6), each column a
/// quarter of the strip's time, and a lead II rhythm strip across the full
/// width below. Lead names are matched without regard to case ("avr", "AVR",
/// "aVR"); a lead the source lacks leaves its panel empty.
public struct ECGTwelveLeadLayout: Sendable, Equatable {
    /// the printout's panels, row by row
    public static let panelNames: [[String]] = [
        ["I", "aVR", "V1", "V4"],
        ["II", "aVL", "V2", "V5"],
        ["III", "aVF", "V3", "V6"],
    ]
    public static let rows = 3
    public static let columns = 4
    /// names a source may give lead II (MIT-BIH calls its modified lead II "MLII")
    static let leadIIAliases = ["ii", "mlii"]

    /// source lead index per panel, row-major (nil: the source lacks it)
    public let panels: [Int?]
    /// source lead of the rhythm strip: lead II, else the first lead
    public let rhythmLead: Int?

    public init(leadNames: [String]) {
        let lowered = leadNames.map { $0.lowercased() }
        panels = Self.panelNames.flatMap { $0 }.map { lowered.firstIndex(of: $0.lowercased()) }
        rhythmLead = lowered.firstIndex { Self.leadIIAliases.contains($0) } ?? (leadNames.isEmpty ? nil : 0)
    }

    /// The source lead of the panel at `row`, `column`.
    public func lead(row: Int, column: Int) -> Int? {
        guard row >= 0, row < Self.rows, column >= 0, column < Self.columns else { return nil }
        return panels[row * Self.columns + column]
    }

    /// Whether the source has enough of the twelve leads for the printout to be worth showing.
    public var isUseful: Bool { panels.compactMap { $0 }.count >= 6 }
}
