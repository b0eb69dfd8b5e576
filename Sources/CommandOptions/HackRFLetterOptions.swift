import ArgumentParser
import Devices

/// hackrf_sweep's letters for the HackRF's gains where a command takes them
/// beside the long forms (`record`): `-l`, `-g`, `-a`.
public struct HackRFLetterOptions: ParsableArguments {
    public init() {}

    @Option(name: .customShort("l", allowingJoined: true), help: "HackRF LNA (IF) gain, as --lna-gain (hackrf_sweep's -l).")
    public var lnaGain: Int?

    @Option(name: .customShort("g", allowingJoined: true), help: "HackRF VGA (baseband) gain, as --vga-gain (hackrf_sweep's -g).")
    public var vgaGain: Int?

    @Option(name: .customShort("a", allowingJoined: true), help: "HackRF RF amplifier: 1 on, 0 off (hackrf_sweep's -a).")
    public var amp: UInt32?

    public func validate() throws {
        if let amp, amp > 1 { throw ValidationError("-a (amp) shall be 0 or 1") }
        if let lnaGain, !(0...40).contains(lnaGain) { throw ValidationError("-l \(lnaGain): LNA gain 0–40 dB in 8 dB steps") }
        if let vgaGain, !(0...62).contains(vgaGain) { throw ValidationError("-g \(vgaGain): VGA gain 0–62 dB in 2 dB steps") }
    }

    /// The letters given, floored to the gain steps as hackrf_sweep does, where the long forms left a setting unset
    /// (the long forms win).
    public func apply(to settings: inout AnalyzerSettings) {
        if let lnaGain, settings.lnaGainDB == nil { settings.lnaGainDB = lnaGain & ~7 }
        if let vgaGain, settings.vgaGainDB == nil { settings.vgaGainDB = vgaGain & ~1 }
        if let amp, settings.amplifier == nil { settings.amplifier = amp == 1 }
    }
}
