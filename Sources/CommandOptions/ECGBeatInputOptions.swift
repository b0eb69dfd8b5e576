import ArgumentParser
import ECG
import Runs

/// Beat times in place of a signal (`ecg monitor`): a record's WFDB annotation
/// file, or an RR-interval list from a strap or an HRV app.
public struct ECGBeatInputOptions: ParsableArguments {
    public init() {}

    @Option(help: ArgumentHelp(
        "Read the beats (and their labels) from the record's WFDB annotation file REC.ANN (qrs, atr, …; or the file's path) "
            + "instead of detecting them in the signal; the signal file need not exist. The rate comes from REC.hea, else --rate.",
        valueName: "ANN"))
    public var beats: String?

    @Option(help: ArgumentHelp(
        "Read RR intervals instead of a signal: one per line in ms or s (Elite HRV, Kubios), or a table with a header naming "
            + "the interval column (Polar Sensor Logger's `Phone timestamp;RR-interval [ms]`, `rr_ms`, …), or PhysioNet's "
            + "`ann2rr -i s -v -V` (`start interval end`: the beats keep the record's sample numbers).",
        valueName: "FILE"))
    public var rr: String?

    public func validate(sourcePath: String?, streams: Bool) throws {
        if beats != nil, rr != nil { throw ValidationError("--beats and --rr both give beats: choose one") }
        if beats != nil, sourcePath == nil || streams {
            throw ValidationError("--beats ANN reads the record's annotation file REC.ANN: give the record, e.g. `ecg monitor ltafdb/00 --beats qrs`")
        }
        if rr != nil, sourcePath != nil || streams {
            throw ValidationError("--rr FILE is the input: give no SOURCE, --stdin, --serial or --listen beside it")
        }
    }

    /// the beats to read, nil for a signal
    public var request: BeatListRequest? {
        if let beats { return .annotations(beats) }
        if let rr { return .intervals(rr) }
        return nil
    }
}
