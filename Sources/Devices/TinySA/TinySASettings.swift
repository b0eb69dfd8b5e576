/// What the tinySA measures with, set by shell commands before the first
/// sweep (sa_cmd.c `cmd_rbw`, `cmd_attenuate`). nil leaves the unit's own
/// choice (automatic unless set on the unit).
public struct TinySASettings: Sendable, Equatable {
    /// resolution bandwidth [kHz]: `rbw N`; `.automatic` sends `rbw auto`
    public var rbw: Automatic<Double>?
    /// input attenuation [dB], 0–31: `attenuate N`; `.automatic` sends `attenuate auto`
    public var attenuation: Automatic<Int>?

    public init(rbw: Automatic<Double>? = nil, attenuation: Automatic<Int>? = nil) {
        self.rbw = rbw
        self.attenuation = attenuation
    }

    /// the attenuator's range [dB] (PE4302 on both models: 0–31 in 1 dB steps)
    public static let attenuationRange = 0...31
    /// the RBW the shell takes [kHz] (the Ultra's narrowest filter is 0.2 kHz, the basic's widest 620.7)
    public static let rbwRangeKHz = 0.2...850.0

    /// the shell lines that set them, in order
    public var commands: [String] {
        var lines: [String] = []
        switch rbw {
        case .automatic?: lines.append("rbw auto")
        case .fixed(let kHz)?: lines.append("rbw \(Self.text(kHz))")
        case nil: break
        }
        switch attenuation {
        case .automatic?: lines.append("attenuate auto")
        case .fixed(let dB)?: lines.append("attenuate \(dB)")
        case nil: break
        }
        return lines
    }

    /// "100", "0.2"
    static func text(_ kHz: Double) -> String {
        kHz == kHz.rounded() ? String(Int(kHz)) : String(kHz)
    }
}

/// A setting the analyzer chooses itself, or a fixed value.
public enum Automatic<Value: Sendable & Equatable>: Sendable, Equatable {
    case automatic
    case fixed(Value)
}
