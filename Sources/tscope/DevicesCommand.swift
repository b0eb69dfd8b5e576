import ArgumentParser
import CommandOptions
import Foundation
import Runs

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List attached analyzers (model, serial, bus/address); --probe reads frames from one.",
        discussion: """
            Supported: HackRF One (1d50:6089), RTL-SDR (RTL2832U dongles: 0bda:2838, 0bda:2832 and the rebadged ids librtlsdr \
            knows), tinySA and tinySA Ultra (0483:5740), RF Explorer (CP210x bridge, 10c4:ea60). The tinySA and CP210x ids are \
            shared with other serial devices; --probe tells whether an analyzer answers.
            With --probe, a lost device is reconnected for up to --reconnect-timeout seconds.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions

    @Flag(help: "Open the analyzer --device chooses and print one line per frame.")
    var probe = false

    @Option(help: "With --probe: frames to read.")
    var frames: Int = 1

    @Option(name: [.customShort("f"), .long], help: "With --probe: band start:stop in MHz (default 430:440).", transform: Band.init(parsing:))
    var band: Band = Band(defaultMHz: 430, 440)

    func validate() throws {
        guard frames >= 1 else { throw ValidationError("--frames must be at least 1") }
    }

    func run() throws {
        if probe {
            try ProbeRun.run(deviceOptions.selection, band: band.range, frames: frames)
        } else {
            for line in try DeviceListing.lines() { print(line) }
        }
    }
}
