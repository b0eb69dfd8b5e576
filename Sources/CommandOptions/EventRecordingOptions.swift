import ArgumentParser
import Foundation
import Runs

/// `events --record DIR`: each event's sweeps saved as a capture, with some before and after.
public struct EventRecordingOptions: ParsableArguments {
    public init() {}

    @Option(help: "Save each event's sweeps as a tscope capture in this directory (named by UTC start and peak).")
    public var record: String?

    @Option(help: "With --record: also the sweeps this long before the event (kept in memory), e.g. 5s.",
            transform: TimeSpan.init(parsingZeroOrMore:))
    public var pre: TimeSpan = .zero

    @Option(help: "With --record: and this long after it ends, e.g. 5s.", transform: TimeSpan.init(parsingZeroOrMore:))
    public var post: TimeSpan = .zero

    public func validate() throws {
        if record == nil, pre.seconds > 0 || post.seconds > 0 { throw ValidationError("--pre and --post go with --record DIR") }
        if let record {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: record, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--record \(record): not a directory")
            }
        }
    }

    /// the recorder's settings; nil when no --record was given
    public var settings: EventRecorder.Settings? {
        record.map { EventRecorder.Settings(directory: $0, preSeconds: pre.seconds, postSeconds: post.seconds) }
    }
}
