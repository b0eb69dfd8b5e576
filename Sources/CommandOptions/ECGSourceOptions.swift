import ArgumentParser
import BluetoothLE
import ECG
import Foundation
import Runs

extension BeatDetectorKind: ExpressibleByArgument {}
extension BLEProfile: ExpressibleByArgument {}

/// Where an ECG comes from and how it is processed, shared by `ecg watch`
/// and `watch --ecg`: a WFDB record or CSV file (replayed at real rate), a
/// serial device, stdin, or the synthetic generator and its settings.
public struct ECGSourceOptions: ParsableArguments {
    public init() {}

    public enum EpisodeChoice: String, ExpressibleByArgument, CaseIterable {
        case demo, none
    }

    @Option(help: "Read lines from a serial device (one sample, or comma-separated leads, per line).")
    public var serial: String?

    @Option(help: "Baud rate of --serial.")
    public var baud: Int = 115_200

    @Flag(help: "Read lines from standard input (needs --rate): numbers, or JSON Lines {\"time\":…,\"amplitude\":…}.")
    public var stdin = false

    @Option(help: "Listen on HOST:PORT (TCP, e.g. 127.0.0.1:7000) for one client sending lines as --stdin does (needs --rate).")
    public var listen: String?

    @Option(help: ArgumentHelp("Read a Bluetooth LE sensor through BlueZ: its address (either case) or exact name; it is "
        + "found by scanning, connected, and read by the best profile it offers (Docs/bluetooth.md).", valueName: "address|name"))
    public var ble: String?

    @Option(name: .customLong("ble-adapter"), help: ArgumentHelp("The Bluetooth adapter for --ble (hci0, hci1; default the first powered one).", valueName: "name"))
    public var bleAdapter: String?

    @Option(name: .customLong("ble-profile"), help: ArgumentHelp("What to read from --ble's device: kardia (the Kardia-style board's samples, needs --rate), "
        + "hrs (Heart Rate Service: heart rate and RR intervals, `ecg monitor` only) or polar (a Polar H10's ECG at 130 Hz); default the best it offers: polar, kardia, hrs.", valueName: "profile"))
    public var bleProfile: BLEProfile?

    @Option(help: ArgumentHelp("Record a live stream (--ble, --serial, --stdin, --listen) as it arrives, at its own rate: EDF+ when FILE "
        + "ends in .edf, WFDB (format 16 .dat, .hea; gaps in .atr) when it ends in .hea or .dat; readable while written "
        + "and after a kill, a dropped link marked \"link lost N s\" (Docs/bluetooth.md).", valueName: "file"))
    public var record: String?

    @Option(name: .customLong("scan-time"), help: "How long to scan for --ble's device when BlueZ does not know it yet [s].")
    public var scanTime: Double = 10

    @Option(help: "Sample rate [Hz]: of the synthetic ECG (50–10000, default 250); required for --serial, --stdin and a CSV without a time column; for a record or a CSV with times, the rate it must have.")
    public var rate: Double?

    @Option(help: "ADC units per mV of a CSV, --serial or --stdin (mV = (value − baseline) / gain).")
    public var gain: Double = 1

    @Option(help: "ADC value of 0 mV of a CSV, --serial or --stdin.")
    public var baseline: Double = 0

    @Option(help: "Leads: of the synthetic ECG (1–12, default 12), or values per line of --serial/--stdin (default 1).")
    public var leads: Int?

    @Option(name: .customLong("qrs-detector"), help: ArgumentHelp(
        "QRS detector: auto (default, but for `ecg classify`: each beat from the detector that does better in the noise "
            + "at its time — the wavelet one in muscle noise, else Pan–Tompkins; the best on the measured records), "
            + "pan-tompkins (Pan & Tompkins with matched filters; the better in electrode-motion noise; `ecg classify`'s "
            + "default, the one its model learnt from) or swt (Kalidas & Tamil's stationary "
            + "wavelet; the better in muscle noise). Docs/ecg.md has the table.", valueName: "name"))
    public var qrsDetector: BeatDetectorKind?

    @Option(name: .customLong("qrs-lead"), help: "Lead the QRS detector watches, counting from 0 (default: lead II or MLII if there is one, else 0).")
    public var qrsLead: Int?

    @Option(help: "Lead of a record, EDF or CSV file to detect on (shown first): its label (exact) or index from 0; leads at another rate than it are left out.")
    public var lead: String?

    @Flag(help: "Follow an EDF file that is still being written: show data records as they land (header record count −1 allowed).")
    public var follow = false

    @Flag(name: .long, help: "Refuse an EDF or WFDB file whose data ends before its header's record count, or a WFDB record whose checksum disagrees with its data (default: read it, with a warning).")
    public var strict = false

    @Option(help: "Replay speed of a record or CSV [× real time] (0.25–8; `ecg monitor` also takes max).")
    public var speed = ReplaySpeed(factor: 1)

    @Option(name: .customLong("heart-rate"), help: "Synthetic ECG: mean heart rate [beats/min] (20–250).")
    public var heartRate: Double = 70

    @Option(help: "Synthetic ECG: beat-to-beat variability, fraction of RR (0–0.3).")
    public var hrv: Double = 0.03

    @Option(help: "Synthetic ECG: white noise [mV] (0–1).")
    public var noise: Double = 0.01

    @Option(help: "Synthetic ECG: baseline wander [mV] (0–2).")
    public var wander: Double = 0.1

    @Option(help: "Mains frequency [Hz], 50 or 60: the notch filter's, and the synthetic hum's.")
    public var mains: Double = 50

    @Option(name: .customLong("mains-amplitude"), help: "Synthetic ECG: mains hum [mV] (0–2).")
    public var mainsAmplitude: Double = 0

    @Option(help: "Synthetic ECG: scripted rhythm episodes, demo (brady 20 s, tachy 50 s, irregular 80 s, pause 110 s) or none.")
    public var episodes: EpisodeChoice = .demo

    @Option(help: "Synthetic ECG: random seed.")
    public var seed: UInt64 = 1

    /// whether the source is a live stream (a device, stdin, a TCP client or a Bluetooth sensor), not a file
    public var isStream: Bool { stdin || serial != nil || listen != nil || ble != nil }

    /// the synthetic ECG's default sample rate [Hz]
    public static let syntheticDefaultRate = 250.0

    public func validate(sourcePath: String?, allowsMaximumSpeed: Bool = false) throws {
        if let leads, !(1...12).contains(leads) { throw ValidationError("--leads \(leads): expected 1 to 12") }
        if let rate, !(rate.isFinite && rate >= 50 && rate <= 10_000) {
            throw ValidationError("--rate \(rate): expected 50 to 10000 Hz")
        }
        let picked = [sourcePath != nil, serial != nil, stdin, listen != nil, ble != nil].filter { $0 }.count
        guard picked <= 1 else { throw ValidationError("choose one source: a SOURCE path, --serial, --stdin, --listen or --ble") }
        if ble == nil, bleAdapter != nil || bleProfile != nil {
            throw ValidationError("--ble-adapter and --ble-profile choose how --ble reads: give --ble ADDRESS|NAME")
        }
        if let ble, ble.isEmpty { throw ValidationError("--ble: expected a device address or name") }
        if bleProfile == .kardia, rate == nil {
            throw ValidationError("--ble-profile kardia: the board does not say its sample rate: give --rate HZ")
        }
        if let record {
            guard isStream else {
                throw ValidationError("--record \(record): records a live stream (--ble, --serial, --stdin, --listen); `tscope ecg convert` writes a file's copy")
            }
            guard ECGStreamRecorder.format(of: record) != nil else {
                throw ValidationError("--record \(record): expected a file ending in .edf (EDF+) or .hea/.dat (WFDB)")
            }
        }
        guard scanTime.isFinite, scanTime > 0, scanTime <= 600 else { throw ValidationError("--scan-time \(scanTime): expected 0 to 600 s") }
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

    /// The source as the libraries open it.
    public var request: ECGSourceRequest {
        var request = ECGSourceRequest()
        if let serial {
            request.stream = .serial(path: serial, baud: baud)
        } else if stdin {
            request.stream = .standardInput
        } else if let listen {
            request.stream = .listen(listen)
        } else if let ble {
            request.stream = .bluetooth(BluetoothSourceRequest(target: ble, adapter: bleAdapter, profile: bleProfile, scanSeconds: scanTime))
        }
        request.rate = rate
        request.record = record
        request.gain = gain
        request.baseline = baseline
        request.streamLeads = leads ?? 1
        request.qrsLead = qrsLead
        request.lead = lead
        request.follow = follow
        request.strict = strict
        request.chosenDetector = qrsDetector
        request.speed = speed.factor
        request.mains = mains
        request.synthetic.heartRate = heartRate
        request.synthetic.heartRateVariability = hrv
        request.synthetic.noise = noise
        request.synthetic.baselineWander = wander
        request.synthetic.mainsFrequency = mains
        request.synthetic.mainsAmplitude = mainsAmplitude
        request.synthetic.leadCount = leads ?? 12
        request.synthetic.sampleRate = rate ?? Self.syntheticDefaultRate
        request.synthetic.episodes = episodes == .demo ? SyntheticECGSettings.demoEpisodes : []
        request.synthetic.seed = seed
        return request
    }
}

/// Runs an ECG command's work: a file or stream it cannot read ends in its
/// one-line message and exit status 1.
public func reportingECGErrors(_ work: () throws -> Void) throws {
    do {
        try work()
    } catch let error as ECGError {
        printError(error.description)
        throw ExitCode.failure
    }
}
