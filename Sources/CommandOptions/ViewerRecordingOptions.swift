import ArgumentParser
import Capture
import Runs

/// Where and how `watch` stores the recordings started with `r`.
public struct ViewerRecordingOptions: ParsableArguments {
    public init() {}

    @Option(name: .customLong("record-dir"),
            help: "Directory for recordings started with r, or a postgresql://USER@HOST:PORT/DB store (default: .).")
    public var recordDirectory: String = "."

    @Option(help: "Label for recordings' file names and metadata, e.g. fm-survey.")
    public var label: String?

    @Option(name: .customLong("operator"), help: "Operator or bench name for recordings' file names and metadata.")
    public var operatorName: String?

    @Option(help: "Stop each recording after this long: seconds, or with a unit: 90s, 5m, 1h.",
            transform: TimeSpan.init(parsing:))
    public var duration: TimeSpan?

    /// the recordings' settings: a tscope capture in the directory or store given
    public var settings: ViewerRecording.Settings {
        .init(directory: recordDirectory, label: label, operatorName: operatorName, duration: duration?.seconds,
              metadata: CaptureMetadata(format: "tscope"))
    }
}
