import Analyzers
import Signals
import ThreadKit
import Devices
import Remote

extension ReconnectingSpectrumSource {
    /// A remote sensor's settings line as it last described it (another
    /// viewer holding control may have changed them); nil for a local analyzer.
    var remoteSettingsLine: String? {
        #if SensorLink
        (connectedSource as? RemoteSpectrumSource)?.settingsLine
        #else
        nil
        #endif
    }

    /// What a remote sensor said of this viewer's settings request, once; nil for a local analyzer.
    func takeRemoteNotice() -> String? {
        #if SensorLink
        (connectedSource as? RemoteSpectrumSource)?.takeNotice()
        #else
        nil
        #endif
    }

    /// A remote sensor's settings as JSON, as it last described them; nil for a local analyzer.
    var remoteSettingsJSON: String? {
        #if SensorLink
        (connectedSource as? RemoteSpectrumSource)?.settingsJSON
        #else
        nil
        #endif
    }
}

extension SelectedAnalyzer {
    /// The analyzer with a remote sensor's settings as `source` last heard them.
    func withLiveSettings(of source: ReconnectingSpectrumSource) -> SelectedAnalyzer {
        guard settingsOverride != nil, let line = source.remoteSettingsLine else { return self }
        var analyzer = self
        analyzer.settingsOverride = line
        analyzer.jsonSettingsOverride = source.remoteSettingsJSON
        return analyzer
    }
}

/// Keeps a remote sensor's notice on the status line for a while after it came.
final class NoticeHold: Sendable {
    /// how long a notice stays [s]
    static let seconds = 10.0
    private let held = Locked<(text: String, until: Double)?>(nil)
    private let clock: any MonotonicClock

    init(clock: any MonotonicClock = SystemClock()) { self.clock = clock }

    /// Takes a new notice (or nil) and returns the one to show now.
    func update(_ new: String?) -> String? {
        let now = clock.now
        return held.withLock { held in
            if let new { held = (new, now + Self.seconds) }
            if let current = held, current.until < now { held = nil }
            return held?.text
        }
    }
}
