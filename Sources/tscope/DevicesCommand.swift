import ArgumentParser
import Devices
import Foundation
import Runs
import Signals
import USBDriver

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List attached analyzers (model, serial, bus/address); --probe reads frames from one.",
        discussion: """
            Supported: HackRF One (1d50:6089), RTL-SDR (0bda:2838, 0bda:2832), tinySA and tinySA Ultra \
            (0483:5740), RF Explorer (CP210x bridge, 10c4:ea60). The tinySA and CP210x ids are shared with \
            other serial devices; --probe tells whether an analyzer answers.
            With --probe, a lost device is reconnected for up to --reconnect-timeout seconds.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions

    @Flag(help: "Open the analyzer --device chooses and print one line per frame.")
    var probe = false

    @Option(help: "With --probe: frames to read.")
    var frames: Int = 1

    @Option(name: [.customShort("f"), .long], help: "With --probe: band start:stop in MHz.", transform: Band.init(parsing:))
    var band: Band = try! Band(parsing: "430:440")

    func validate() throws {
        guard frames >= 1 else { throw ValidationError("--frames must be at least 1") }
    }

    func run() throws {
        if probe { try runProbe() } else { try list() }
    }

    private func list() throws {
        let found: [USBDeviceInfo]
        found = try USBEnumerator.devices(matching: AnalyzerKind.allUSBIDs)
        guard !found.isEmpty else {
            printError("""
                no analyzer found. Check the cable; if `lsusb` lists the device, this user may lack access: \
                \(udevRulesHint). Without hardware, `tscope watch --device demo` runs the built-in demo.
                """)
            throw ExitCode(1)
        }
        for device in found {
            let kind = AnalyzerKind(device)
            let model = kind.map { kind in
                switch kind {
                case .tinysa: return "tinySA (or another STM32 serial device)"
                case .rfexplorer: return "RF Explorer (CP210x bridge; or another CP210x serial device)"
                default: return kind.model
                }
            } ?? device.product ?? "unknown"
            let serial = device.serialNumber ?? "(unreadable: access denied? \(udevRulesHint))"
            let option = kind.map { "  --device \($0.rawValue)" } ?? ""
            print("\(model)  serial \(serial)  bus \(device.bus) address \(device.address)  id \(device.idString)\(option)")
        }
    }

    private func runProbe() throws {
        let band = self.band.range
        let probe = ProbeRun(wanted: frames)
        let (source, analyzer): (ReconnectingSpectrumSource, SelectedAnalyzer)
        (source, analyzer) = try deviceOptions.selection.spectrumSource(
            headless: true, onFrame: { probe.frame($0) },
            onGap: { gap in
                printError(String(format: "gap: %.1f s without data (%@); resumed", gap.seconds, gap.reason))
            },
            onGiveUp: { probe.fail($0) })
        try source.start(band: band, binWidthHz: band.spanHz / 200)
        let failure = probe.waitUntilDone()
        source.stop()
        if let failure { throw CommandError(failure) }
        let counters = source.counters
        printError("\(analyzer.name)\(analyzer.isDemo ? " (demo)" : ""): \(probe.count) frames, "
            + "\(counters.badBlocks) bad, \(counters.droppedBlocks) dropped")
    }
}

/// Prints frames as they come (from the source's thread) until enough came
/// or the supervisor gave up.
final class ProbeRun: @unchecked Sendable {
    private let wanted: Int
    private let lock = NSLock()
    private var printed = 0
    private var failure: String?
    private let done = DispatchSemaphore(value: 0)

    init(wanted: Int) { self.wanted = wanted }

    var count: Int { lock.withLock { printed } }

    func frame(_ frame: SpectrumFrame) {
        let line: String? = lock.withLock {
            guard printed < wanted else { return nil }
            printed += 1
            return Self.describe(frame)
        }
        guard let line else { return }
        print(line)
        fflush(nil)
        if lock.withLock({ printed == wanted }) { done.signal() }
    }

    func fail(_ message: String) {
        lock.withLock { failure = message }
        done.signal()
    }

    func waitUntilDone() -> String? {
        done.wait()
        return lock.withLock { failure }
    }

    /// "430.000–440.000 MHz  200 points  peak -30.5 dBm at 433.920 MHz"
    static func describe(_ frame: SpectrumFrame) -> String {
        let values = frame.powerDB
        guard let peak = values.indices.max(by: { values[$0] < values[$1] }) else { return "empty frame" }
        return String(format: "%.3f–%.3f MHz  %d points  peak %.1f dBm at %.3f MHz",
                      frame.binCenterHz(0) / 1e6, frame.binCenterHz(values.count - 1) / 1e6, values.count,
                      values[peak], frame.binCenterHz(peak) / 1e6)
    }
}
