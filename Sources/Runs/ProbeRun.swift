import Devices
import Foundation
import Signals
import Synchronization
import ThreadKit
import USBDriver

/// `tscope devices --probe`: opens the analyzer chosen and prints one line
/// per frame (from the source's thread) until enough came or the
/// supervisor gave up.
public final class ProbeRun: Sendable {
    private let wanted: Int
    private let printed = Guarded(0)
    /// nil: the frames came; a message: the analyzer was given up
    private let latch = CompletionLatch<String?>()

    init(wanted: Int) { self.wanted = wanted }

    /// Probes `band` with `frames` frames, then says how it went on stderr.
    public static func run(_ selection: DeviceSelection, band: FrequencyRange, frames: Int) throws {
        let probe = ProbeRun(wanted: frames)
        let unit = Guarded(PowerUnit.dB)
        let (source, analyzer) = try selection.spectrumSource(
            headless: true, onFrame: { probe.frame($0, unit: unit.withLock { $0 }) },
            onGap: { gap in
                printError(String(format: "gap: %.1f s without data (%@); resumed", gap.seconds, gap.reason))
            },
            onGiveUp: { probe.latch.complete($0) })
        for line in analyzer.details { printError(line) }
        unit.withLock { $0 = analyzer.tune(to: band) }
        try source.start(band: band, binWidthHz: band.spanHz / 200)
        let failure = probe.latch.wait()
        source.stop()
        if let failure { throw CommandError(failure) }
        let counters = source.counters
        printError("\(analyzer.name)\(analyzer.isDemo ? " (demo)" : ""): \(probe.count) frames, "
            + "\(counters.badBlocks) bad, \(counters.droppedBlocks) dropped")
    }

    var count: Int { printed.withLock { $0 } }

    func frame(_ frame: SpectrumFrame, unit: PowerUnit) {
        let enough = printed.withLock { printed in
            guard printed < wanted else { return false }
            printed += 1
            // printed in order under the lock: frames come from one thread, but a reconnect starts another
            print(Self.describe(frame, unit: unit))
            fflush(nil)
            return printed == wanted
        }
        if enough { latch.complete(nil) }
    }

    /// "430.000–440.000 MHz  200 points  peak -30.5 dBm at 433.920 MHz" (the levels' unit: dBm, or dB full scale)
    static func describe(_ frame: SpectrumFrame, unit: PowerUnit) -> String {
        let values = frame.powerDB
        guard let peak = values.indices.max(by: { values[$0] < values[$1] }) else { return "empty frame" }
        return String(format: "%.3f–%.3f MHz  %d points  peak %.1f %@ at %.3f MHz",
                      frame.binCenterHz(0) / 1e6, frame.binCenterHz(values.count - 1) / 1e6, values.count,
                      values[peak], unit.rawValue, frame.binCenterHz(peak) / 1e6)
    }
}

/// `tscope devices`: one line per attached analyzer of any kind the
/// catalogue knows, with its serial, bus/address, ids and the --device to use.
public enum DeviceListing {
    public static func lines() throws -> [String] {
        let found = try USBEnumerator.devices(matching: AnalyzerKind.allUSBIDs)
        let native = found.map { device in
            let kind = AnalyzerKind(device)
            let model = kind?.listingModel ?? device.product ?? "unknown"
            let serial = device.serialNumber ?? "(unreadable: access denied? \(udevRulesHint))"
            let option = kind.map { "  --device \($0.id)" } ?? ""
            return "\(model)  serial \(serial)  bus \(device.bus) address \(device.address)  id \(device.idString)\(option)"
        }
        // what SoapySDR reaches besides: a radio tscope drives natively is listed once, natively
        let soapy = SoapyFamily.listingLines(skippingDriversOf: Set(found.compactMap { AnalyzerKind($0) }))
        guard !native.isEmpty || !soapy.isEmpty else {
            throw CommandError("no analyzer found. Check the cable; if `lsusb` lists the device, this user may lack "
                + "access: \(udevRulesHint). Other SDRs are found through SoapySDR once its module is installed "
                + "(\(SoapyFamily.modulePackage(driver: "")) has them all). Without hardware, `tscope watch --device demo` "
                + "runs the built-in demo.")
        }
        return native + soapy
    }
}
