import ArgumentParser
import Capture
import DSP
import Signals

/// `export --scan-format` and what shapes the scan: the grid step, the most
/// points, and whether an uncalibrated capture's dB may pass as dBm.
public struct ScanExportOptions: ParsableArguments {
    public init() {}

    @Option(name: .customLong("scan-format"),
            help: "CSV: the held trace (--trace, default max) as a coordination tool's scan in dBm: wwb (Shure Wireless Workbench's CSV import), wsm (Sennheiser WSM) or sdb2 (Wireless Workbench's own scan file).")
    public var format: ScanExporter.Layout?

    // .unconditional: "-5" is the value, checked below, not taken for an option
    @Option(name: .customLong("scan-step"), parsing: .unconditional,
            help: "--scan-format: closest two points [Hz, k/M suffix, whole kHz, 1k…10M]; finer bins merged by their maximum (default 25k).")
    public var step: FrequencyArgument?

    @Option(name: .customLong("max-points"), parsing: .unconditional,
            help: "--scan-format: most points (2…1000000): the step widened to a multiple of itself until they fit.")
    public var maxPoints: Int?

    @Flag(name: .customLong("assume-dbm"),
          help: "--scan-format: take an uncalibrated analyzer's dB as dBm (else such a capture is refused: tscope calibrate).")
    public var assumeDBm = false

    public func validate() throws {
        if format == nil && (step != nil || maxPoints != nil || assumeDBm) {
            throw ValidationError("--scan-step, --max-points and --assume-dbm shape a --scan-format export: give --scan-format")
        }
        let range = ScanGrid.maxPointsRange
        if let maxPoints, !range.contains(maxPoints) {
            throw ValidationError("--max-points: expected \(range.lowerBound)…\(range.upperBound), found \(maxPoints)")
        }
        if let step { _ = try Self.stepHz(step.hertz) }
    }

    /// The export's settings, the hold being `kind`.
    public func settings(kind: TraceHold.Kind) throws -> ScanExporter.Settings {
        ScanExporter.Settings(kind: kind, stepHz: try step.map { try Self.stepHz($0.hertz) } ?? ScanGrid.defaultStepHz,
                              maxPoints: maxPoints, assumeDBm: assumeDBm)
    }

    /// --scan-step in whole kHz within its range [Hz]: every scan layout prints whole kHz
    static func stepHz(_ hertz: Double) throws -> Int {
        let range = ScanGrid.stepRangeHz
        guard hertz >= Double(range.lowerBound), hertz <= Double(range.upperBound) else {
            throw ValidationError("--scan-step: expected 1k…10M (Hz), found \(FrequencyFormat.label(hertz, maxFractionDigits: 6))")
        }
        guard (hertz / 1000).rounded() == hertz / 1000 else {
            throw ValidationError("--scan-step: expected a whole number of kHz (the scan files print kHz), "
                + "found \(FrequencyFormat.label(hertz, maxFractionDigits: 6))")
        }
        return Int(hertz)
    }
}
