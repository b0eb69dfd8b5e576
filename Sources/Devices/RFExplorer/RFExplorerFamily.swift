import Analyzers
import DSP
import Signals
import USBDriver

extension AnalyzerKind {
    /// RF Explorer (6G / WSUB1G families): the unit sweeps and reports dBm
    /// itself, over a CP210x USB-serial bridge.
    public static let rfexplorer = AnalyzerKind(
        id: "rfexplorer", model: "RF Explorer",
        listingModel: "RF Explorer (CP210x bridge; or another CP210x serial device)",
        // the cp210x kernel driver binds the bridge
        usb: USBOpening(ids: [USBID(CP210xBridge.vendorID, CP210xBridge.productID)], detachKernelDriver: true),
        powerUnit: .dBm, tunableRange: FrequencyRange(lowerHz: 15e6, upperHz: 2_700e6)!,
        realtimeBandwidthHz: nil,
        settings: AnalyzerSettingsDescription(takes: [], ownerName: "an RF Explorer"),
        emulator: { seed, _ in RFExplorerEmulator(seed: seed) },
        makeSource: { request in
            try RFExplorerSpectrumSource(transport: request.transport, onFrame: request.onFrame, onEnd: request.onUSBEnd)
        },
        listing: Listing(name: "RF Explorer", path: "native (CP210x bridge)",
                         tested: "firmware emulator of its serial protocol"))
}
