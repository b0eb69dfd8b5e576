/// What the user asked a replay to do (keys: space, < > , ., shift+←/→,
/// Home, End, g + a typed time).
public enum ReplayIntent: Sendable, Equatable {
    case togglePause
    /// double (true) or halve the speed
    case stepSpeed(faster: Bool)
    /// move the playhead by file seconds (negative = back)
    case skip(seconds: Double)
    /// go to a position [s from the first frame]
    case seek(toOffset: Double)
    case toStart
    case toEnd
}

/// A replay's state as the status line shows it:
/// "REPLAY ×4 00:12:30 / 01:00:00", with "END" once everything is played.
public struct ReplayState: Sendable, Equatable {
    /// [× recorded speed]
    public var speed: Double
    public var isPaused: Bool
    /// playhead [s from the first frame]
    public var position: Double
    /// first to last frame [s]
    public var duration: Double
    public var isFinished: Bool

    public init(speed: Double, isPaused: Bool, position: Double, duration: Double, isFinished: Bool) {
        self.speed = speed
        self.isPaused = isPaused
        self.position = position
        self.duration = duration
        self.isFinished = isFinished
    }

    /// The status line badge.
    public var badge: String {
        var text = "REPLAY ×\(Self.speedText(speed)) \(Self.clock(position)) / \(Self.clock(duration))"
        if isFinished { text += " END" }
        return text
    }

    /// 0.25, 0.5, 1, 2 … 64
    static func speedText(_ speed: Double) -> String {
        speed == speed.rounded() ? String(Int(speed)) : String(speed)
    }

    /// `hh:mm:ss`, whole seconds rounded down
    public static func clock(_ seconds: Double) -> String {
        let total = seconds.isFinite ? max(0, Int(seconds.rounded(.down))) : 0
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        return pad(h) + ":" + pad(m) + ":" + pad(s)
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// A typed position: seconds ("90", "12.5"), m:ss ("12:30") or h:mm:ss
    /// ("1:02:03"); nil when it is none of these.
    public static func parseTime(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || (isLast && $0 == ".")) }),
                  let value = Double(part), value.isFinite else { return nil }
            // minutes and seconds after a colon stay below 60
            if index > 0 && value >= 60 { return nil }
            total = total * 60 + value
        }
        return total
    }
}
