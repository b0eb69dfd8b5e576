/// How ECG paper maps onto terminal cells for a trace area of a given width.
///
/// Paper runs at 25 mm/s with 10 mm per mV, so at the standard gain 1 mV is
/// as tall as 0.4 s is wide. A terminal cell is about twice as tall as it is
/// wide, so a grid box stays square when its height in rows is half its width
/// in columns. The time scale fills the width with the strip; the grid follows
/// from it; the gain scales the trace (not the paper), as on a real machine.
struct ECGPaperScale: Equatable {
    /// at 10 mm/mV and 25 mm/s, 1 mV spans as far as 0.4 s
    static let secondsPerMillivolt = 0.4
    /// the standard gain the grid's mV labels refer to [mm/mV]
    static let standardGain = 10.0
    /// cell height / cell width of a typical terminal font
    static let cellAspect = 2.0
    /// grid line spacings, finest first: minor 0.04 s, major 0.2 s, then 1 s [s]
    static let timeSpacings = [0.04, 0.2, 1.0]
    /// grid line spacings at standard gain: minor 0.1 mV, major 0.5 mV, then 2.5 mV [mV]
    static let voltageSpacings = [0.1, 0.5, 2.5]
    /// closest two grid lines may be and still be drawn [cells]
    static let minimumLineSpacing = 2.0
    /// width of the calibration pulse [s] (0.2 s × 1 mV, the standard box)
    static let calibrationSeconds = 0.2

    /// trace width per second [cells]
    let columnsPerSecond: Double
    /// paper height per millivolt at the standard gain [cells]
    let paperRowsPerMillivolt: Double
    /// trace height per millivolt at the chosen gain [cells]
    let traceRowsPerMillivolt: Double

    init(traceColumns: Int, stripSeconds: Double, gainMillimetresPerMillivolt: Double) {
        columnsPerSecond = Double(max(traceColumns, 0)) / max(stripSeconds, 1e-3)
        paperRowsPerMillivolt = columnsPerSecond * Self.secondsPerMillivolt / Self.cellAspect
        traceRowsPerMillivolt = paperRowsPerMillivolt * gainMillimetresPerMillivolt / Self.standardGain
    }

    /// braille dots per millivolt of trace (4 dot rows per cell)
    var traceDotsPerMillivolt: Double { traceRowsPerMillivolt * 4 }

    /// the spacings of the fine and bold grid lines across time [cells]: the
    /// finest spacing at least `minimumLineSpacing` apart, and the next coarser;
    /// nil where none is wide enough
    var timeLines: (fine: Double?, bold: Double?) {
        Self.levels(Self.timeSpacings.map { $0 * columnsPerSecond })
    }

    /// the same for voltage [cells]
    var voltageLines: (fine: Double?, bold: Double?) {
        Self.levels(Self.voltageSpacings.map { $0 * paperRowsPerMillivolt })
    }

    /// columns the calibration area takes: the 0.2 s pulse and a cell either side
    var calibrationColumns: Int { Int((Self.calibrationSeconds * columnsPerSecond).rounded(.up)) + 2 }

    private static func levels(_ spacings: [Double]) -> (fine: Double?, bold: Double?) {
        guard let fine = spacings.firstIndex(where: { $0 >= minimumLineSpacing }) else { return (nil, nil) }
        return (spacings[fine], fine + 1 < spacings.count ? spacings[fine + 1] : nil)
    }
}
