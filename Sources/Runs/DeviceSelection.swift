import Analyzers
import DSP
import Devices
import Remote
import Signals
import ThreadKit
import USBDriver

/// The analyzer a command asked for (`--device`, `--serial`,
/// `--reconnect-timeout`), and the ways a run opens it: as a reconnecting
/// spectrum source (every view and most runs), or as a raw HackRF or RTL-SDR
/// for the protocols that need the device itself (hackrf_sweep's sweep,
/// rtl_power's hops, raw I/Q).
public struct DeviceSelection: Sendable {
    public var device: DeviceChoice
    public var serial: String?
    /// headless runs: seconds to keep reconnecting a lost analyzer [s]
    public var reconnectTimeout: Double
    /// the demo scene's noise seed
    public var demoSeed: UInt64
    #if SensorLink
    /// `--remote HOST:PORT`: a sensor's analyzer instead of a local one
    public var remote: RemoteSensor?
    #endif
    /// whether the analyzer is a remote sensor's (`--remote`)
    public var isRemote: Bool {
        #if SensorLink
        remote != nil
        #else
        false
        #endif
    }
    /// `replay --follow`: a capture being recorded, as a live analyzer
    public var follow: CaptureFollow?
    /// the analyzer's settings given (`--lna-gain`, `--gain` …)
    public var settings = AnalyzerSettings()
    /// which calibration turns its levels into dBm (`--calibration`)
    public var calibration = CalibrationChoice.automatic
    /// a demo device's input: a signal generator's tones instead of the demo scene, a crystal error
    /// (tests, demonstrations)
    public var demoInput = DemoInput()
    /// real time, sweep, or real time where the band allows (`--mode`)
    public var mode = AnalysisMode.auto
    /// a converter in front of the analyzer (`--frequency-offset`, `--spectrum-inverted`); nil for none
    public var conversion: FrequencyConversion?
    /// the unit levels are read in and the correction tables added (`--unit`, `--correction`, `--antenna-factor`)
    public var levelUnits = LevelUnits()
    /// frames also carry every other detector's levels (a sensor serving
    /// viewers that ask for different detectors), where the analyzer's family can
    public var keepsEveryDetector = false
    /// what the reconnect supervisor times stalls, backoff and outages on, and the runs on its source
    /// their intervals and durations (meter, events, recording, calibration); tests hand in a `ManualClock`
    package var clock: any MonotonicClock = SystemClock()

    public init(device: DeviceChoice = .auto, serial: String? = nil, reconnectTimeout: Double = 10, demoSeed: UInt64 = 1) {
        self.device = device
        self.serial = serial
        self.reconnectTimeout = reconnectTimeout
        self.demoSeed = demoSeed
    }

    /// Resolves the choice (and serial): `auto` takes the first attached
    /// analyzer of any kind, else the demo HackRF. Settings for another kind
    /// of analyzer are a usage error naming them; the calibration that
    /// applies is loaded.
    public func selectAnalyzer(detector: SpectrumDetector = .peak) throws -> SelectedAnalyzer {
        if follow != nil, !settings.isEmpty {
            throw UsageError("the analyzer's settings were the recorder's: replay --follow takes none")
        }
        #if SensorLink
        if var remote {
            if case .file = calibration {
                throw UsageError("--calibration: a sensor applies its own calibration (give it to `tscope serve` there)")
            }
            // asked of the sensor, which applies them while this viewer holds control
            remote.settings = settings.given
            // the sensor makes this command's levels with this command's detector, as a local analyzer would
            remote.detector = detector
            var analyzer = try remote.selectAnalyzer()
            if let problem = settings.problem(for: analyzer.kind) { throw UsageError(problem) }
            analyzer.conversion = conversion
            analyzer.levelCorrection = levelUnits.isIdentity ? nil : LiveLevelCorrection(levelUnits)
            return analyzer
        }
        #endif
        if let follow {
            // a recording keeps real frequencies already
            if conversion != nil { throw UsageError("--frequency-offset: replay --follow reads a recording, already in real frequencies") }
            return try follow.selectAnalyzer()
        }
        if let kind = device.kind, let problem = settings.problem(for: kind) { throw UsageError(problem) }
        var analyzer = try SelectedAnalyzer.select(device, serial: serial, demoSeed: demoSeed, settings: settings,
                                                   detector: detector, mode: mode, demoInput: demoInput,
                                                   keepingEveryDetector: keepsEveryDetector)
        if let problem = settings.problem(for: analyzer.kind) { throw UsageError(problem) }
        if let table = try calibration.table(for: analyzer) {
            analyzer.calibration = LiveCalibration(table: table, gainDB: settings.totalGainDB(for: analyzer.kind),
                                                   uncalibratedUnit: analyzer.kind.powerUnit)
        }
        analyzer.conversion = conversion
        analyzer.levelCorrection = levelUnits.isIdentity ? nil : LiveLevelCorrection(levelUnits)
        return analyzer
    }

    /// The chosen analyzer behind a reconnect supervisor, its frames
    /// calibrated where a calibration covers the band tuned (call
    /// `analyzer.tune(to:)` before starting or retuning the source).
    /// `headless` runs give up after `reconnectTimeout`; the viewer never does.
    public func spectrumSource(headless: Bool, detector: SpectrumDetector = .peak,
                               onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
                               onGap: @escaping @Sendable (ReconnectGap) -> Void = { _ in },
                               onGiveUp: @escaping @Sendable (String) -> Void = { _ in })
        throws -> (source: ReconnectingSpectrumSource, analyzer: SelectedAnalyzer) {
        let analyzer = try selectAnalyzer(detector: detector)
        let policy = ReconnectPolicy(stallSeconds: analyzer.stallSeconds,
                                     giveUpAfterSeconds: headless ? reconnectTimeout : nil)
        // calibrated at the analyzer's own frequencies, then moved to the real ones
        let calibration = analyzer.calibration
        // last, the unit and the tables: at the real frequencies, on levels in the unit the calibration left
        var output = onFrame
        if let levels = analyzer.levelCorrection {
            output = { [analyzer] frame in
                var frame = frame
                levels.apply(to: &frame, incoming: analyzer.measuredUnit)
                onFrame(frame)
            }
        }
        let deliver: @Sendable (SpectrumFrame) -> Void
        var factory = analyzer.factory
        if let conversion = analyzer.conversion, !conversion.isIdentity {
            deliver = { [output] frame in
                var real = calibration?.correct(frame) ?? frame
                conversion.toReal(&real)
                output(real)
            }
            factory = ConvertedSpectrumSource.factory(factory, conversion: conversion)
        } else if let calibration {
            deliver = { [output] frame in output(calibration.correct(frame)) }
        } else {
            deliver = output
        }
        // `--rbw cispr`: bins for the CISPR band of the real frequencies, so outside the converter
        if let cispr = analyzer.settings.cisprResolution, analyzer.kind.detectsFromSamples {
            factory = CISPRResolutionSource.factory(factory, resolution: cispr)
        }
        let source = ReconnectingSpectrumSource(deviceName: analyzer.name, tunableRange: analyzer.tunableRange,
                                                policy: policy, factory: factory, onFrame: deliver,
                                                onGap: onGap, onGiveUp: onGiveUp, clock: clock)
        return (source, analyzer)
    }

    /// Opens a HackRF (the sweep protocol's device) as the catalogue does
    /// (`DeviceChoice.openHackRF`); a sensor's or another family's analyzer is refused.
    public func openHackRF(demoPacing: HackRFEmulator.Pacing = .realTime) throws -> OpenedHackRF {
        try refuseRemote("drives a HackRF One itself (hackrf_sweep's protocol)")
        guard let opened = try device.openHackRF(serial: serial, demoSeed: demoSeed, pacing: demoPacing) else {
            throw CommandError("this command drives a HackRF One (hackrf_sweep's protocol); "
                + "--device \(device.rawValue) works with `tscope watch`, `meter`, `record` and `devices --probe`")
        }
        return opened
    }

    /// Opens the RTL-SDR chosen as the catalogue does (`DeviceChoice.openRTLSDR`); a sensor's is refused.
    public func openRTLSDR(realTime: Bool = true) throws -> OpenedRTLSDR {
        try refuseRemote("drives an RTL-SDR itself")
        return try device.openRTLSDR(serial: serial, demoSeed: demoSeed, realTime: realTime)
    }

    private func refuseRemote(_ what: String) throws {
        #if SensorLink
        guard let remote else { return }
        throw CommandError("this command \(what); --remote \(remote.endpoint) works with `tscope watch`, `meter` "
            + "and `record`")
        #endif
    }
}

extension DeviceSelection {
    /// The chosen analyzer's USB transport: its firmware emulator with the demo's seed and
    /// input when it is the demo, else the hardware (by its serial, or the one asked for).
    func transport(for analyzer: SelectedAnalyzer) throws -> USBTransport {
        if analyzer.isDemo, let emulator = analyzer.kind.emulator {
            return EmulatedTransport(emulator: emulator(demoSeed, demoInput))
        }
        return try analyzer.kind.openTransport(serial: analyzer.serial ?? serial)
    }
}
