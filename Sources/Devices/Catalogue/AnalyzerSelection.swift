import Signals
import USBDriver

/// Which analyzer a command uses (`--device`).
public enum DeviceChoice: String, CaseIterable, Sendable {
    /// the first attached analyzer of any kind, else the demo device
    case auto
    /// the built-in demo: emulated HackRF firmware with a synthetic scene
    case demo
    case demoHackRF = "demo-hackrf"
    case demoRTLSDR = "demo-rtlsdr"
    case demoTinySA = "demo-tinysa"
    case demoRFExplorer = "demo-rfexplorer"
    case hackrf
    case rtlsdr
    case tinysa
    case rfexplorer

    /// the analyzer kind a fixed choice names; nil for auto
    public var kind: AnalyzerKind? {
        switch self {
        case .auto: return nil
        case .demo, .demoHackRF, .hackrf: return .hackrf
        case .demoRTLSDR, .rtlsdr: return .rtlsdr
        case .demoTinySA, .tinysa: return .tinysa
        case .demoRFExplorer, .rfexplorer: return .rfexplorer
        }
    }

    public var isDemo: Bool { rawValue.hasPrefix("demo") }
}

/// The analyzer `--device` chose, ready to be opened (and reopened after a
/// loss) as a `SpectrumSource`.
public struct SelectedAnalyzer: Sendable {
    public var kind: AnalyzerKind
    public var isDemo: Bool
    /// "tinySA", "RF Explorer 1234" — for the status line and messages
    public var name: String
    public var factory: SpectrumSourceFactory
    /// the USB serial number of the analyzer chosen (nil for the demo devices), for capture metadata
    public var serial: String?

    /// set where the analyzer is not the kind's own device (a remote sensor)
    public var stallSecondsOverride: Double?
    public var tunableRangeOverride: FrequencyRange?

    /// how long without a frame means the device stalled [s]
    public var stallSeconds: Double { stallSecondsOverride ?? kind.stallSeconds }
    /// what the analyzer tunes [Hz]
    public var tunableRange: FrequencyRange { tunableRangeOverride ?? kind.tunableRange }

    public init(kind: AnalyzerKind, isDemo: Bool, name: String, factory: @escaping SpectrumSourceFactory,
                serial: String? = nil) {
        self.kind = kind
        self.isDemo = isDemo
        self.name = name
        self.factory = factory
        self.serial = serial
    }

    /// Resolves a choice (and a serial): a fixed kind is that kind (opened
    /// when the source starts); `auto` takes the first attached analyzer of
    /// any kind, else the demo HackRF.
    /// - Parameter hackRF: gains, amplifier and detector when the analyzer is a HackRF
    public static func select(_ choice: DeviceChoice, serial: String?, demoSeed: UInt64,
                              hackRF: HackRFSpectrumSource.Settings = .init()) throws -> SelectedAnalyzer {
        if choice.isDemo, let kind = choice.kind {
            return SelectedAnalyzer(kind: kind, isDemo: true, name: kind.model,
                                    factory: kind.demoFactory(seed: demoSeed, hackRF: hackRF))
        }
        let kind: AnalyzerKind
        var found: USBDeviceInfo?
        if let fixed = choice.kind {
            kind = fixed
            found = try? USBEnumerator.devices(matching: fixed.usbIDs).first { serial == nil || $0.serialNumber == serial }
        } else {
            let attached = try USBEnumerator.devices(matching: AnalyzerKind.allUSBIDs)
                .filter { serial == nil || $0.serialNumber == serial }
            guard let first = attached.first, let firstKind = AnalyzerKind(first) else {
                if let serial { throw USBError.notFound(device: "analyzer with serial \(serial)") }
                return SelectedAnalyzer(kind: .hackrf, isDemo: true, name: AnalyzerKind.hackrf.model,
                                        factory: AnalyzerKind.hackrf.demoFactory(seed: demoSeed, hackRF: hackRF))
            }
            kind = firstKind
            found = first
        }
        let serialSuffix = serial.map { " \($0.suffix(8))" } ?? ""
        return SelectedAnalyzer(kind: kind, isDemo: false, name: kind.model + serialSuffix,
                                factory: kind.hardwareFactory(serial: serial, hackRF: hackRF),
                                serial: serial ?? found?.serialNumber)
    }
}
