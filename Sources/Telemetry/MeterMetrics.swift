#if SensorLink
import Foundation
import Prometheus
import Signals
import ThreadKit

/// The meter's readings as Prometheus metrics, served at /metrics:
/// `tscope_band_power_db` (a gauge per band, labelled with the band in MHz,
/// the device, its serial and the unit), `tscope_meter_sweeps_total` (sweeps
/// behind the readings of each band), `tscope_dropped_blocks_total` and
/// `tscope_bad_blocks_total` (the analyzer's, labelled with its serial).
public final class MeterMetrics: Sendable {
    private let exporter: PrometheusExporter
    private let power: [Gauge]
    private let sweeps: [Counter]
    private let dropped: Counter
    private let bad: Counter
    /// the device's cumulative counters at the last update (counters only go up)
    private let seen = Guarded((dropped: 0, bad: 0))

    /// Serves the metrics on `address` (HOST:PORT); the address the server listens on is `listening`.
    public init(address: String, bands: [FrequencyRange], device: String, serial: String?, unit: PowerUnit) throws {
        let registry = PrometheusCollectorRegistry()
        let serial = serial ?? "none"
        let powerName = MetricNameDescriptor(
            namespace: "tscope", metricName: "band_power", unitName: "db",
            helpText: "Channel power in the band over the last interval (dB, or dBm on calibrated analyzers)")
        let sweepsName = MetricNameDescriptor(namespace: "tscope", metricName: "meter_sweeps", unitName: "total",
                                              helpText: "Sweeps measured in the band")
        power = bands.map { band in
            registry.makeGauge(descriptor: powerName,
                               labels: [("band", Self.label(band)), ("device", device), ("serial", serial), ("unit", unit.rawValue)])
        }
        sweeps = bands.map { band in
            registry.makeCounter(descriptor: sweepsName, labels: [("band", Self.label(band)), ("serial", serial)])
        }
        dropped = registry.makeCounter(
            descriptor: MetricNameDescriptor(namespace: "tscope", metricName: "dropped_blocks", unitName: "total",
                                             helpText: "Blocks the analyzer's pipeline dropped because processing fell behind"),
            labels: [("serial", serial)])
        bad = registry.makeCounter(
            descriptor: MetricNameDescriptor(namespace: "tscope", metricName: "bad_blocks", unitName: "total",
                                             helpText: "Corrupt blocks the analyzer delivered (skipped)"),
            labels: [("serial", serial)])
        exporter = try PrometheusExporter(address: address, registry: registry)
    }

    /// "http://127.0.0.1:9100/metrics": where the metrics are served (the port the system chose when 0 was asked)
    public var url: String {
        "http://\(exporter.host.contains(":") ? "[\(exporter.host)]" : exporter.host):\(exporter.port)/metrics"
    }

    /// "88:108", "433.05:434.79": the band in MHz, as --band takes it
    public static func label(_ band: FrequencyRange) -> String {
        String(format: "%.9g:%.9g", band.lowerHz / 1e6, band.upperHz / 1e6)
    }

    public func reading(band index: Int, decibels: Double, sweeps count: Int) {
        power[index].set(decibels)
        sweeps[index].increment(by: Int64(count))
    }

    /// The device's cumulative dropped and bad block counts now.
    public func device(droppedBlocks: Int, badBlocks: Int) {
        let (newDropped, newBad) = seen.withLock { seen -> (Int, Int) in
            defer { seen = (max(seen.dropped, droppedBlocks), max(seen.bad, badBlocks)) }
            return (max(0, droppedBlocks - seen.dropped), max(0, badBlocks - seen.bad))
        }
        if newDropped > 0 { dropped.increment(by: Int64(newDropped)) }
        if newBad > 0 { bad.increment(by: Int64(newBad)) }
    }

    public func stop() { exporter.stop() }
}
#endif
