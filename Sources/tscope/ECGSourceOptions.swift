import ArgumentParser
import ECG
import Foundation
import ViewModels

/// Where an ECG comes from and how it is processed, shared by `ecg watch`
/// and `watch --ecg`: a WFDB record or CSV file (replayed at real rate), a
/// serial device, stdin, or the synthetic generator and its settings.
struct ECGSourceOptions: ParsableArguments {
    enum EpisodeChoice: String, ExpressibleByArgument, CaseIterable {
        case demo, none
    }

    @Option(help: "Read lines from a serial device (one sample, or comma-separated leads, per line).")
    var serial: String?

    @Option(help: "Baud rate of --serial.")
    var baud: Int = 115_200

    @Flag(help: "Read lines from standard input (needs --rate).")
    var stdin = false

    @Option(help: "Sample rate [Hz]: of the synthetic ECG (50–10000, default 250); required for --serial, --stdin and a CSV without a time column; for a record or a CSV with times, the rate it must have.")
    var rate: Double?

    @Option(help: "ADC units per mV of a CSV, --serial or --stdin (mV = (value − baseline) / gain).")
    var gain: Double = 1

    @Option(help: "ADC value of 0 mV of a CSV, --serial or --stdin.")
    var baseline: Double = 0

    @Option(help: "Leads: of the synthetic ECG (1–12, default 12), or values per line of --serial/--stdin (default 1).")
    var leads: Int?

    @Option(name: .customLong("qrs-lead"), help: "Lead the QRS detector watches, counting from 0 (default: lead II or MLII if there is one, else 0).")
    var qrsLead: Int?

    @Option(help: "Replay speed of a record or CSV [× real time] (0.25–8).")
    var speed: Double = 1

    @Option(name: .customLong("heart-rate"), help: "Synthetic ECG: mean heart rate [beats/min] (20–250).")
    var heartRate: Double = 70

    @Option(help: "Synthetic ECG: beat-to-beat variability, fraction of RR (0–0.3).")
    var hrv: Double = 0.03

    @Option(help: "Synthetic ECG: white noise [mV] (0–1).")
    var noise: Double = 0.01

    @Option(help: "Synthetic ECG: baseline wander [mV] (0–2).")
    var wander: Double = 0.1

    @Option(help: "Mains frequency [Hz], 50 or 60: the notch filter's, and the synthetic hum's.")
    var mains: Double = 50

    @Option(name: .customLong("mains-amplitude"), help: "Synthetic ECG: mains hum [mV] (0–2).")
    var mainsAmplitude: Double = 0

    @Option(help: "Synthetic ECG: scripted rhythm episodes, demo (brady 20 s, tachy 50 s, irregular 80 s, pause 110 s) or none.")
    var episodes: EpisodeChoice = .demo

    @Option(help: "Synthetic ECG: random seed.")
    var seed: UInt64 = 1

    /// the synthetic ECG's default sample rate [Hz]
    static let syntheticDefaultRate = 250.0

    func validate(sourcePath: String?) throws {
        if let leads, !(1...12).contains(leads) { throw ValidationError("--leads \(leads): expected 1 to 12") }
        if let rate, !(rate.isFinite && rate >= 50 && rate <= 10_000) {
            throw ValidationError("--rate \(rate): expected 50 to 10000 Hz")
        }
        let picked = [sourcePath != nil, serial != nil, stdin].filter { $0 }.count
        guard picked <= 1 else { throw ValidationError("choose one source: a SOURCE path, --serial or --stdin") }
        if serial != nil || stdin, rate == nil {
            throw ValidationError("--rate is required with \(stdin ? "--stdin" : "--serial") (lines carry no time)")
        }
        guard gain.isFinite, gain != 0 else { throw ValidationError("--gain \(gain): expected a non-zero number of units per mV") }
        guard baseline.isFinite else { throw ValidationError("--baseline \(baseline): expected a number") }
        if let qrsLead, qrsLead < 0 { throw ValidationError("--qrs-lead \(qrsLead): expected 0 or more") }
        guard speed.isFinite, speed >= 0.25, speed <= 8 else { throw ValidationError("--speed \(speed): expected 0.25 to 8") }
        guard heartRate.isFinite, heartRate >= 20, heartRate <= 250 else {
            throw ValidationError("--heart-rate \(heartRate): expected 20 to 250 beats/min")
        }
        try Self.check("--hrv", hrv, 0...0.3)
        try Self.check("--noise", noise, 0...1)
        try Self.check("--wander", wander, 0...2)
        try Self.check("--mains-amplitude", mainsAmplitude, 0...2)
        guard mains == 50 || mains == 60 else { throw ValidationError("--mains \(mains): expected 50 or 60") }
    }

    private static func check(_ option: String, _ value: Double, _ range: ClosedRange<Double>) throws {
        guard value.isFinite, range.contains(value) else {
            throw ValidationError("\(option) \(value): expected \(range.lowerBound) to \(range.upperBound)")
        }
    }

    /// The synthetic generator's settings from the options.
    var syntheticSettings: SyntheticECGSettings {
        var settings = SyntheticECGSettings()
        settings.heartRate = heartRate
        settings.heartRateVariability = hrv
        settings.noise = noise
        settings.baselineWander = wander
        settings.mainsFrequency = mains
        settings.mainsAmplitude = mainsAmplitude
        settings.leadCount = leads ?? 12
        settings.sampleRate = rate ?? Self.syntheticDefaultRate
        settings.episodes = episodes == .demo ? SyntheticECGSettings.demoEpisodes : []
        settings.seed = seed
        return settings
    }

    /// Opens the source: `sourcePath` a record or CSV ("synthetic" or nil:
    /// the generator unless --serial or --stdin is given).
    func openFeed(sourcePath: String?) throws -> ECGFeed {
        if let serial {
            let parser = LineSampleParser(leadCount: leads ?? 1, gain: gain, baseline: baseline)
            let source = try SerialPort.source(path: serial, baud: baud, sampleRate: rate ?? 0, parser: parser)
            return try feed(source, name: serial)
        }
        if stdin {
            let source = LineStreamSource.standardInput(sampleRate: rate ?? 0, parser: LineSampleParser(leadCount: leads ?? 1, gain: gain, baseline: baseline))
            return try feed(source, name: "stdin")
        }
        guard let sourcePath, sourcePath != "synthetic" else {
            return try feed(PacedSource(SyntheticECG(settings: syntheticSettings)), name: "synthetic")
        }
        let file = try openFile(sourcePath)
        return try feed(PacedSource(RecordSource(record: file.record), speed: speed), name: file.record.name,
                        referenceBeats: file.referenceBeats)
    }

    /// Reads a record or CSV (`ECGFileOpening`, by extension) with these
    /// options; what reading tolerated goes to stderr.
    func openFile(_ path: String) throws -> ECGRecordFile {
        let file = try ECGFileOpening.open(path, rate: rate, gain: gain, baseline: baseline)
        for note in file.notes { printError("\(path): \(note)") }
        return file
    }

    private func feed(_ source: any ECGSource, name: String, referenceBeats: [Int] = []) throws -> ECGFeed {
        guard !source.leadNames.isEmpty else { throw ECGError(file: name, "no signals to show") }
        let names = source.leadNames.map { $0.uppercased() }
        let lead = qrsLead ?? names.firstIndex(of: "II") ?? names.firstIndex(of: "MLII") ?? 0
        guard lead < source.leadNames.count else {
            throw ValidationError("--qrs-lead \(lead): \(name) has \(source.leadNames.count) leads (0…\(source.leadNames.count - 1))")
        }
        return ECGFeed(source: source, sourceName: name, qrsLead: lead, mains: mains, referenceBeats: referenceBeats)
    }
}
