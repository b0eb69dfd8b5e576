import ArgumentParser
import ECG
import Foundation
import Runs
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

    @Flag(help: "Read lines from standard input (needs --rate): numbers, or JSON Lines {\"time\":…,\"amplitude\":…}.")
    var stdin = false

    @Option(help: "Listen on HOST:PORT (TCP, e.g. 127.0.0.1:7000) for one client sending lines as --stdin does (needs --rate).")
    var listen: String?

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

    @Option(help: "Lead of a record, EDF or CSV file to detect on (shown first): its label (exact) or index from 0; leads at another rate than it are left out.")
    var lead: String?

    @Flag(help: "Follow an EDF file that is still being written: show data records as they land (header record count −1 allowed).")
    var follow = false

    @Option(help: "Replay speed of a record or CSV [× real time] (0.25–8; `ecg monitor` also takes max).")
    var speed = ReplaySpeed(factor: 1)

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

    func validate(sourcePath: String?, allowsMaximumSpeed: Bool = false) throws {
        if let leads, !(1...12).contains(leads) { throw ValidationError("--leads \(leads): expected 1 to 12") }
        if let rate, !(rate.isFinite && rate >= 50 && rate <= 10_000) {
            throw ValidationError("--rate \(rate): expected 50 to 10000 Hz")
        }
        let picked = [sourcePath != nil, serial != nil, stdin, listen != nil].filter { $0 }.count
        guard picked <= 1 else { throw ValidationError("choose one source: a SOURCE path, --serial, --stdin or --listen") }
        if serial != nil || stdin || listen != nil, rate == nil {
            throw ValidationError("--rate is required with \(stdin ? "--stdin" : listen != nil ? "--listen" : "--serial") (the sample clock of a stream)")
        }
        guard gain.isFinite, gain != 0 else { throw ValidationError("--gain \(gain): expected a non-zero number of units per mV") }
        guard baseline.isFinite else { throw ValidationError("--baseline \(baseline): expected a number") }
        if let qrsLead, qrsLead < 0 { throw ValidationError("--qrs-lead \(qrsLead): expected 0 or more") }
        if lead != nil, qrsLead != nil { throw ValidationError("--lead and --qrs-lead both choose the lead: give one") }
        if follow, sourcePath.map({ ECGRecordFormat(path: $0) }) != .edf {
            throw ValidationError("--follow reads an EDF file that is being written: give a SOURCE ending in .edf")
        }
        if let factor = speed.factor {
            guard factor.isFinite, factor >= 0.25, factor <= 8 else {
                throw ValidationError("--speed \(factor): expected 0.25 to 8\(allowsMaximumSpeed ? " or max" : "")")
            }
        } else if !allowsMaximumSpeed {
            throw ValidationError("--speed max: only `ecg monitor` replays as fast as it can; expected 0.25 to 8")
        }
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

    /// A source as opened, before pacing.
    struct Opened {
        var source: any ECGSource
        var name: String
        var referenceBeats: [Int] = []
        var annotations: [ECGStripAnnotation] = []
        /// the lead picked with --lead; nil when none was asked for
        var chosenLead: Int?
        /// the lead to detect on when nothing else decides (a file's first ECG lead)
        var fallbackLead = 0
        /// the file read whole, when the source is one
        var file: ECGRecordFile?
        /// a file read whole (replayed at its rate × --speed in the viewers)
        var isFile = false
        /// the generator (played in real time in the viewers)
        var isSynthetic = false
    }

    /// Opens the source unpaced: `sourcePath` a record or CSV ("synthetic" or
    /// nil: the generator unless --serial or --stdin is given).
    func openSource(sourcePath: String?, annotator: String = "atr", unused: String = "not shown") throws -> Opened {
        if let serial {
            let parser = LineSampleParser(leadCount: leads ?? 1, gain: gain, baseline: baseline)
            return Opened(source: try SerialPort.source(path: serial, baud: baud, sampleRate: rate ?? 0, parser: parser), name: serial)
        }
        if stdin {
            let parser = LineSampleParser(leadCount: leads ?? 1, gain: gain, baseline: baseline)
            return Opened(source: LineStreamSource.standardInput(sampleRate: rate ?? 0, parser: parser), name: "stdin")
        }
        if let listen {
            let listener = try TCPLineListener(address: listen)
            printError("listening on \(listener.host):\(listener.port)")
            let parser = LineSampleParser(leadCount: leads ?? 1, gain: gain, baseline: baseline)
            return Opened(source: try listener.accept(sampleRate: rate ?? 0, parser: parser), name: "\(listener.host):\(listener.port)")
        }
        guard let sourcePath, sourcePath != "synthetic" else {
            return Opened(source: SyntheticECG(settings: syntheticSettings), name: "synthetic", isSynthetic: true)
        }
        if follow {
            let source = try EDFFollowSource(path: sourcePath, lead: lead.map(LeadSelector.init))
            try source.poll()
            let name = ((sourcePath as NSString).lastPathComponent as NSString).deletingPathExtension
            return Opened(source: source, name: name,
                          referenceBeats: source.annotations.filter(\.isBeat).map { Int(($0.onset * source.sampleRate).rounded()) },
                          chosenLead: lead != nil ? source.lead : nil, fallbackLead: source.lead)
        }
        let file = try openFile(sourcePath, annotator: annotator, unused: unused)
        return Opened(source: RecordSource(record: file.record), name: file.record.name,
                      referenceBeats: file.referenceBeats, annotations: file.annotations,
                      chosenLead: file.chosenLead, fallbackLead: file.fallbackLead, file: file, isFile: true)
    }

    /// Opens the source for a viewer: files replayed at --speed, the generator in real time.
    func openFeed(sourcePath: String?) throws -> ECGFeed {
        let opened = try openSource(sourcePath: sourcePath)
        let source: any ECGSource = opened.isFile ? PacedSource(opened.source, speed: speed.factor ?? 1)
            : opened.isSynthetic ? PacedSource(opened.source) : opened.source
        return ECGFeed(source: source, sourceName: opened.name,
                       qrsLead: try detectionLead(opened),
                       mains: mains, referenceBeats: opened.referenceBeats, annotations: opened.annotations)
    }

    /// Reads a record, EDF or CSV (`ECGFileOpening`, by extension) with these
    /// options; what reading tolerated, and the signals at other rates than the
    /// chosen lead's (`unused` says what is not done with them), go to stderr.
    func openFile(_ path: String, annotator: String = "atr", unused: String = "not shown") throws -> ECGRecordFile {
        let file = try ECGFileOpening.open(path, rate: rate, gain: gain, baseline: baseline,
                                           lead: lead.map(LeadSelector.init), annotator: annotator)
        for note in file.notes { printError("\(path): \(note)") }
        if !file.otherRates.isEmpty {
            let chosen = file.record.leadNames[file.chosenLead ?? file.fallbackLead]
            printError("\(path): at other rates than \(chosen) (\(file.record.sampleRate) Hz), \(unused): \(file.otherRates.joined(separator: ", "))")
        }
        return file
    }

    /// The whole recording: a file as read; a device, stdin or the generator
    /// read as fast as it delivers until it ends or `until` seconds have come.
    func readWhole(sourcePath: String?, until: Double?, annotator: String = "atr", unused: String = "not used") throws -> ECGRecordFile {
        let opened = try openSource(sourcePath: sourcePath, annotator: annotator, unused: unused)
        if let file = opened.file { return file }
        guard until != nil || !opened.isSynthetic else {
            throw ValidationError("the synthetic ECG never ends: give --to SECONDS")
        }
        let source = opened.source
        let limit = until.map { Int(($0 * source.sampleRate).rounded(.up)) } ?? Int.max
        var chunk = ECGChunk(leadCount: max(1, source.leadNames.count), capacity: 4096)
        var samples = Array(repeating: [Float](), count: source.leadNames.count)
        reading: while (samples.first?.count ?? 0) < limit {
            switch try source.read(into: &chunk) {
            case .samples(let count):
                let wanted = min(count, limit - samples[0].count)
                for lead in samples.indices { samples[lead].append(contentsOf: chunk.leads[lead][0..<wanted]) }
            case .waiting:
                usleep(5_000) // a live source: wait for more
            case .end:
                break reading
            }
        }
        let record = ECGRecord(name: opened.name, sampleRate: source.sampleRate, leadNames: source.leadNames, samples: samples)
        return ECGRecordFile(record: record, referenceBeats: opened.referenceBeats, notes: [],
                             chosenLead: opened.chosenLead, fallbackLead: opened.fallbackLead,
                             fileIndices: Array(record.leadNames.indices))
    }

    /// The lead QRS detection watches in an opened source.
    func detectionLead(_ opened: Opened) throws -> Int {
        try detectionLead(opened.source.leadNames, sourceName: opened.name, chosen: opened.chosenLead, fallback: opened.fallbackLead)
    }

    /// The lead QRS detection watches in a recording read whole.
    func detectionLead(_ file: ECGRecordFile) throws -> Int {
        try detectionLead(file.record.leadNames, sourceName: file.record.name, chosen: file.chosenLead, fallback: file.fallbackLead)
    }

    /// The lead QRS detection watches: the one picked with --lead (`chosen`),
    /// else --qrs-lead, else lead II or MLII, else `fallback` (a file's first ECG lead).
    private func detectionLead(_ leadNames: [String], sourceName: String, chosen: Int?, fallback: Int) throws -> Int {
        guard !leadNames.isEmpty else { throw ECGError(file: sourceName, "no signals to show") }
        let names = leadNames.map { $0.uppercased() }
        let lead = chosen ?? qrsLead ?? names.firstIndex(of: "II") ?? names.firstIndex(of: "MLII") ?? fallback
        guard lead < leadNames.count else {
            throw ValidationError("--qrs-lead \(lead): \(sourceName) has \(leadNames.count) leads (0…\(leadNames.count - 1))")
        }
        return lead
    }
}

/// A replay speed: a factor of real time, or `max` (as fast as it can be read).
struct ReplaySpeed: ExpressibleByArgument, Equatable {
    /// × real time; nil for as fast as possible
    var factor: Double?

    init(factor: Double?) { self.factor = factor }

    init?(argument: String) {
        if argument == "max" {
            factor = nil
        } else if let value = Double(argument) {
            factor = value
        } else {
            return nil
        }
    }

    var defaultValueDescription: String { factor.map { "\($0)" } ?? "max" }
}
