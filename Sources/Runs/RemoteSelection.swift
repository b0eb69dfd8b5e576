#if SensorLink
import Analyzers
import Devices
import Remote

extension RemoteSensor {
    /// The sensor as `--device` would choose an analyzer: named "REMOTE
    /// host:port [TLS] …", opened afresh (describe, then stream) by its factory.
    /// Its family is the catalogue's by the id the sensor gives, `.unknown` for
    /// one this build lacks (the sensor checks its own settings).
    public func selectAnalyzer() throws -> SelectedAnalyzer {
        let description = try describe()
        let kind = AnalyzerKind(rawValue: description.kindID) ?? .unknown
        let sensor = self
        let factory: SpectrumSourceFactory = { onFrame, onEnd in
            // a sensor that does not answer now is an error the supervisor retries
            let now = try sensor.describe()
            let source = RemoteSpectrumSource(sensor: sensor, tunableRange: now.tunableRange,
                                              onFrame: onFrame, onEnd: onEnd)
            return ConnectedSpectrumSource(source: source, close: {})
        }
        var analyzer = SelectedAnalyzer(kind: kind, isDemo: description.isDemo,
                                        name: "REMOTE \(endpoint)\(trust == nil ? "" : " TLS") \(description.deviceName)",
                                        factory: factory, serial: description.serial)
        // a network hop and the sensor's own reconnects take longer than a USB stall
        analyzer.stallSecondsOverride = max(3, description.stallSeconds * 2 + 2)
        // the sensor's settings, calibration and unit, not this machine's
        analyzer.unitOverride = description.unit
        analyzer.settingsOverride = description.settings
        analyzer.jsonSettingsOverride = description.settingsJSON
        if let range = description.tunableRange { analyzer.tunableRangeOverride = range }
        return analyzer
    }
}
#endif
