import ArgumentParser
import CommandOptions
import Runs

/// Power against time at one frequency, triggered, with pulse timing.
struct ZeroSpanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "zerospan", abstract: ZeroSpanOptions.abstract, discussion: ZeroSpanOptions.discussion)
    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup(title: "Zero span") var options: ZeroSpanOptions
    func run() throws { try usage { try ZeroSpanRun.run(try options.request(device: deviceOptions)) } }
}
