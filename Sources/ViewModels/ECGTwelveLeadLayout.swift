import ECG

/// Where each lead of a standard 12-lead printout goes: three rows of four
/// columns (I II III | aVR aVL aVF | V1 V2 V3 | V4 V5 V6), each column a
/// quarter of the strip's time, and a lead II rhythm strip across the full
/// width below. Lead names are matched by what they denote
/// (`ECGLeadName`: "avr", "AVR", "EKG aVR", "Lead aVR"; MIT-BIH's "MLII" is
/// lead II); a lead the source lacks leaves its panel empty.
public struct ECGTwelveLeadLayout: Sendable, Equatable {
    /// the printout's panels, row by row
    public static let panelNames: [[String]] = [
        ["I", "aVR", "V1", "V4"],
        ["II", "aVL", "V2", "V5"],
        ["III", "aVF", "V3", "V6"],
    ]
    public static let rows = 3
    public static let columns = 4
    /// source lead index per panel, row-major (nil: the source lacks it)
    public let panels: [Int?]
    /// source lead of the rhythm strip: lead II, else the first lead
    public let rhythmLead: Int?

    public init(leadNames: [String]) {
        panels = Self.panelNames.flatMap { $0 }.map { ECGLeadName.index(of: $0, in: leadNames) }
        rhythmLead = ECGLeadName.index(of: "II", in: leadNames) ?? (leadNames.isEmpty ? nil : 0)
    }

    /// The source lead of the panel at `row`, `column`.
    public func lead(row: Int, column: Int) -> Int? {
        guard row >= 0, row < Self.rows, column >= 0, column < Self.columns else { return nil }
        return panels[row * Self.columns + column]
    }

    /// Whether the source has enough of the twelve leads for the printout to be worth showing: the six
    /// limb leads of a 6-lead device (KardiaMobile 6L) and more.
    public var isUseful: Bool { panels.compactMap { $0 }.count >= 6 }
}
