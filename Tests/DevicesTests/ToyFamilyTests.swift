import Analyzers
import DSP
import Devices
import Signals
import Testing
import USBDriver

extension AnalyzerKind {
    /// A family defined outside `Devices`, as a contributor's new folder would: a HackRF-protocol toy with
    /// its own id, model, range, real-time limit, listing and SoapySDR driver key. Everything the user sees
    /// of a family must follow from this descriptor and its place in the list.
    static let toy = AnalyzerKind(
        id: "toy", model: "Toy Analyzer 3000",
        usb: USBOpening(ids: [USBID(0x1234, 0x5678)], detachKernelDriver: false),
        powerUnit: .dB, tunableRange: FrequencyRange(lowerHz: 1e6, upperHz: 6_000e6)!,
        realtimeBandwidthHz: 5e6,
        settings: AnalyzerSettingsDescription(takes: [], ownerName: "a toy analyzer"),
        // it speaks the HackRF's protocol, so the HackRF's emulator and source serve it
        emulator: { seed, input in AnalyzerKind.hackrf.emulator(seed: seed, input: input)! },
        makeSource: { request in try AnalyzerKind.hackrf.makeSource(request) },
        shortName: "Toy",
        listing: Listing(name: "Toy Analyzer 3000", path: "native (libusb): a toy protocol", realtimeWords: "one window",
                         tested: "its emulator"),
        soapy: SoapyDriver(key: "toy", defaultGains: ["LNA": 8]))
}

/// One line in the catalogue is all a family needs: the `--device` names, parsing, help texts, the devices
/// table row, SoapySDR's driver map and the demo device all follow.
@Suite struct ToyFamilyTests {
    let catalogue = AnalyzerKind.allCases + [.toy]

    @Test func theDeviceNamesAndParsingFollow() {
        #expect(!DeviceChoice.names.contains("toy"), "not in the built-in list")
        let names = DeviceChoice.names(in: catalogue)
        #expect(names.contains("toy") && names.contains("demo-toy"))
        #expect(DeviceChoice(rawValue: "toy", in: catalogue) == .hardware(.toy))
        #expect(DeviceChoice(rawValue: "demo-toy", in: catalogue) == .emulated(.toy))
        #expect(DeviceChoice(rawValue: "toy") == nil)
        #expect(AnalyzerKind(rawValue: "toy", in: catalogue) == .toy)
    }

    @Test func theHelpTextsAndTheTableFollow() {
        #expect(AnalyzerKind.modelsText(in: catalogue).hasSuffix(", RF Explorer, Toy Analyzer 3000"))
        #expect(AnalyzerKind.realtimeLimitsText(in: catalogue) == "HackRF ≤ 20 MHz, RTL-SDR ≤ 2 MHz, Toy ≤ 5 MHz")
        #expect(AnalyzerKind.toy.devicesTableRow
            == "| Toy Analyzer 3000 | native (libusb): a toy protocol, one window ≤ 5 MHz | `toy` | its emulator |")
        #expect(AnalyzerKind.soapyDriven(in: catalogue)["toy"] == .toy)
        #expect(AnalyzerKind.toy.realtimeProblem(widthHz: 8e6)?.contains("streams at most 5 MHz at once") == true)
    }

    @Test func itsSettingsAreRefusedByName() throws {
        var settings = AnalyzerSettings()
        try settings.set("lna-gain", to: "16")
        #expect(settings.problem(for: .toy)?.contains("the Toy Analyzer 3000 does not take it") == true,
                "\(settings.problem(for: .toy) ?? "no problem")")
    }

    @Test func itsDemoDeviceDeliversFrames() throws {
        let collector = FrameCollector()
        let factory = AnalyzerKind.toy.demoFactory(seed: 1)
        let connected = try factory({ collector.add($0) }, { _ in })
        defer { connected.close() }
        try connected.source.start(band: FrequencyRange(lowerHz: 95e6, upperHz: 99e6)!, binWidthHz: 50e3)
        let frames = collector.wait(for: 2)
        connected.source.stop()
        #expect(frames.count >= 2)
        #expect(frames.first.map { abs($0.startHz - 95e6) < 1e6 } == true)
    }
}
