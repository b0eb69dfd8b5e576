// tscope-serve-load: Tools/bench-serve's load, many viewers of one sensor in this
// process, each reading frames through its own gRPC stream; prints one JSON line
// (frame rates, bins, the sensor's CPU). A benchmark tool, not a tscope command.
#if SensorLink
import ArgumentParser
import DSP
import Remote
import Signals

struct ServeLoad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tscope-serve-load",
        abstract: "Many viewers of one tscope sensor in one process (Tools/bench-serve).")

    @Option(help: "The sensor, host:port.", transform: { try RemoteEndpoint(parsing: $0) }) var remote: RemoteEndpoint
    @Option(help: "Viewers to open.") var viewers: Int = 1
    @Option(help: "Seconds to read for.") var seconds: Double = 10
    @Option(help: "Band each viewer asks for, start:stop in MHz.", transform: ServeLoad.band(parsing:))
    var band: FrequencyRange = FrequencyRange(lowerHz: 88e6, upperHz: 108e6)!
    @Option(name: .customLong("sensor-pid"), help: "The sensor's process, whose CPU time is reported.") var sensorPID: Int32?
    @Option(name: .customLong("tls-ca"), help: "Speak TLS, trusting this PEM certificate.") var tlsCA: String?
    @Option(help: "Detectors the viewers ask for in turn, comma-separated (peak,average,sample,rms); none: the sensor's own.")
    var detectors: String = ""

    /// "88:108" → 88–108 MHz (the sensor checks the band against its analyzer)
    static func band(parsing text: String) throws -> FrequencyRange {
        let parts = text.split(separator: ":").compactMap { Double($0) }
        guard parts.count == 2, let range = FrequencyRange(lowerHz: parts[0] * 1e6, upperHz: parts[1] * 1e6) else {
            throw ValidationError("--band \(text): expected start:stop in MHz, start below stop, e.g. 88:108")
        }
        return range
    }

    func run() throws {
        let trust = try tlsCA.map { try SensorTrust.certificate(at: $0) }
        let asked = try detectors.split(separator: ",").map { name -> SpectrumDetector? in
            guard let detector = SpectrumDetector(rawValue: String(name)) else {
                throw ValidationError("--detectors: \(name) is not peak, average, sample or rms")
            }
            return detector
        }
        let (counts, elapsed, cpu) = try RemoteLoad.run(
            sensor: RemoteSensor(endpoint: remote, trust: trust), viewers: viewers, band: band, seconds: seconds,
            detectors: asked, cpuSeconds: { sensorPID.map(RemoteLoad.cpuSeconds) ?? 0 })
        let rates = counts.map { Double($0.frames) / elapsed }
        print("{\"viewers\":\(viewers),\"seconds\":\(elapsed),\"fps_min\":\(rates.min() ?? 0),"
            + "\"fps_mean\":\(rates.reduce(0, +) / Double(max(1, rates.count))),\"bins\":\(counts.map(\.bins).min() ?? 0),"
            + "\"sensor_cpu\":\(cpu / elapsed)}")
    }
}

ServeLoad.main()
#else
import Foundation

FileHandle.standardError.write(Data("tscope-serve-load needs the sensor link: swift build --traits SensorLink\n".utf8))
exit(1)
#endif
