import BluetoothLE
import ECG
import Foundation
import ViewModels

/// A recording read whole from a file, with what came with it.
public struct ECGRecordFile {
    public var record: ECGRecord
    /// reference beats (a WFDB record's annotation file, an EDF+ file's beat annotations), sample indices; empty when none
    public var referenceBeats: [Int]
    /// annotations that are not beats (notes, rhythm changes, EDF+ texts), drawn on the strip
    public var annotations: [ECGStripAnnotation] = []
    /// what reading tolerated (timestamps going back, gaps), one line each, for stderr
    public var notes: [String]
    /// signals at other rates than the chosen lead's, left out of `record` ("ABP (125 Hz)")
    public var otherRates: [String] = []
    /// the lead asked for with --lead (moved to index 0), nil when none was asked for
    public var chosenLead: Int?
    /// the lead to detect on when nothing else decides: the file's first ECG lead
    public var fallbackLead = 0
    /// each lead's index in the file (leads are reordered and leads at other rates left out)
    public var fileIndices: [Int]
}

/// The one place a SOURCE path becomes a recording, chosen by its extension
/// (`ECGRecordFormat`): `.csv`, `.txt`, `.tsv` are CSV (`CSVRecordReader`),
/// `.edf` is EDF/EDF+, anything else a WFDB record (with or without `.hea`).
/// A new format adds a case there and every ECG command (watch, score,
/// detect, monitor, convert, `watch --ecg`) takes it.
public enum ECGFileOpening {
    /// Reads the recording at `path`. `rate` is the rate it must have (a CSV
    /// without a time column takes it as its rate); `gain`/`baseline` convert
    /// a CSV's ADC units to mV; `lead` picks the lead to show first and detect
    /// on (in a multi-rate file, the leads at its rate are kept);
    /// `annotator` names a WFDB record's annotation file.
    public static func open(_ path: String, rate: Double?, gain: Double = 1, baseline: Double = 0,
                            lead: LeadSelector? = nil, annotator: String = "atr",
                            strict: Bool = false) throws -> ECGRecordFile {
        var file: ECGRecordFile
        switch ECGRecordFormat(path: path) {
        case .csv:
            let recording = try CSVRecordReader.read(path: path, options: CSVReadOptions(rate: rate, gain: gain, baseline: baseline))
            file = ECGRecordFile(record: recording.record, referenceBeats: [], notes: recording.notes,
                                 fileIndices: Array(recording.record.leadNames.indices))
            if let lead {
                file.chosenLead = try lead.resolve(in: recording.record.leadNames, file: path)
            }
        case .wfdb, .edf:
            let recording = try ECGRecordFormat.readRecording(path: path, annotator: annotator, strict: strict)
            let (record, chosen, otherRates) = try recording.record(lead: lead, file: path)
            if let rate, abs(rate - record.sampleRate) > 1e-6 * record.sampleRate {
                throw ECGError(file: path, "the header says \(record.sampleRate) Hz, --rate says \(rate) Hz")
            }
            let annotations = recording.otherAnnotationSamples(atRate: record.sampleRate)
                .map { ECGStripAnnotation(sample: $0.sample, text: $0.text) }
            file = ECGRecordFile(record: record, referenceBeats: recording.beatSamples(atRate: record.sampleRate),
                                 annotations: annotations, notes: recording.notes, otherRates: otherRates, fallbackLead: chosen,
                                 fileIndices: recording.signals.indices.filter { recording.signals[$0].sampleRate == record.sampleRate })
            if lead != nil { file.chosenLead = chosen }
        }
        if let chosen = file.chosenLead {
            // the lead asked for comes first, so the strip layout shows it
            file.record = file.record.movingLeadFirst(chosen)
            file.fileIndices.insert(file.fileIndices.remove(at: chosen), at: 0)
            file.chosenLead = 0
        }
        return file
    }
}

/// Where an ECG comes from and how it is read, as every ECG command and
/// `watch --ecg` ask for it: a line stream (serial device, stdin, one TCP
/// client), a file (a WFDB record, EDF, CSV; an EDF being written), or the
/// synthetic generator.
public struct ECGSourceRequest {
    public enum Stream {
        case serial(path: String, baud: Int)
        case standardInput
        /// HOST:PORT to accept one client on
        case listen(String)
        /// a Bluetooth LE sensor through BlueZ (`--ble`)
        case bluetooth(BluetoothSourceRequest)
    }

    /// a line stream, or nil for a file or the generator
    public var stream: Stream?
    /// the rate a stream has, or a file must have [Hz]; a CSV without times takes it
    public var rate: Double?
    /// ADC units per mV and the ADC value of 0 mV of a CSV or a stream
    public var gain = 1.0
    public var baseline = 0.0
    /// values per line of a stream
    public var streamLeads = 1
    /// --qrs-lead: the lead QRS detection watches, from 0
    public var qrsLead: Int?
    /// --lead: a file's lead to show first and detect on (label or index)
    public var lead: String?
    /// read an EDF file that is still being written
    public var follow = false
    /// refuse an EDF cut short instead of playing its complete records
    public var strict = false
    /// a file's replay speed in the viewers [× real time]; nil for as fast as it reads
    public var speed: Double? = 1
    /// mains frequency of the notch filter [Hz]
    public var mains = 50.0
    /// `--record FILE`: a stream's samples written as they come (EDF+ for .edf, else WFDB)
    public var record: String?
    /// the QRS detector asked for (`--qrs-detector`), nil for the command's own default
    public var chosenDetector: BeatDetectorKind?
    /// the QRS detector: the one asked for, else the default (`BeatDetectorKind.standard`)
    public var detector: BeatDetectorKind { chosenDetector ?? .standard }
    public var synthetic = SyntheticECGSettings()

    public init() {}

    /// A source as opened, before pacing.
    public struct Opened {
        public var source: any ECGSource
        public var name: String
        public var referenceBeats: [Int] = []
        public var annotations: [ECGStripAnnotation] = []
        /// the lead picked with --lead; nil when none was asked for
        public var chosenLead: Int?
        /// the lead to detect on when nothing else decides (a file's first ECG lead)
        public var fallbackLead = 0
        /// the file read whole, when the source is one
        public var file: ECGRecordFile?
        /// a file read whole (replayed at its rate × speed in the viewers)
        public var isFile = false
        /// the generator (played in real time in the viewers)
        public var isSynthetic = false
    }

    /// Opens the source unpaced: `sourcePath` a record or CSV ("synthetic" or
    /// nil: the generator unless a stream is asked for).
    public func openSource(sourcePath: String?, annotator: String = "atr", unused: String = "not shown") throws -> Opened {
        let parser = LineSampleParser(leadCount: streamLeads, gain: gain, baseline: baseline)
        if stream != nil { try checkRecordPath() }
        switch stream {
        case .serial(let path, let baud):
            return try recorded(Opened(source: try SerialPort.source(path: path, baud: baud, sampleRate: rate ?? 0, parser: parser), name: path))
        case .standardInput:
            return try recorded(Opened(source: LineStreamSource.standardInput(sampleRate: rate ?? 0, parser: parser), name: "stdin"))
        case .listen(let address):
            let listener = try TCPLineListener(address: address)
            printError("listening on \(listener.host):\(listener.port)")
            return try recorded(Opened(source: try listener.accept(sampleRate: rate ?? 0, parser: parser), name: "\(listener.host):\(listener.port)"))
        case .bluetooth(let request):
            return try openBluetooth(request, stream: try request.open(rate: rate))
        case nil:
            break
        }
        guard let sourcePath, sourcePath != "synthetic" else {
            return Opened(source: SyntheticECG(settings: synthetic), name: "synthetic", isSynthetic: true)
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

    /// A connected sensor's samples as a source; a heart-rate strap has none (its RR intervals go to `ecg monitor`).
    func openBluetooth(_ request: BluetoothSourceRequest, stream: BLESensorReader) throws -> Opened {
        guard stream.profile.streamsSamples else {
            stream.close()
            discardRecordFiles()
            throw CommandError("--ble \(request.target): \(stream.device.label) gives heart rate and RR intervals (hrs), not an ECG: "
                               + "`tscope ecg monitor --ble \(request.target)` reads its rhythm")
        }
        return try recorded(Opened(source: BluetoothECGSource(reader: stream, rate: rate), name: stream.device.name))
    }

    /// Opens the source for a viewer: files replayed at `speed`, the generator in real time.
    public func openFeed(sourcePath: String?) throws -> ECGFeed {
        if case .bluetooth(let request) = stream {
            try checkRecordPath()
            let sensor = try request.open(rate: rate)
            if sensor.profile == .hrs {
                // a strap's beats: the trend, the rhythm and its events, without a strip
                if let record {
                    sensor.close()
                    discardRecordFiles()
                    throw CommandError("--record \(record): \(sensor.device.label) gives heart rate and RR intervals (hrs), not an ECG to record")
                }
                return ECGFeed(beats: BluetoothStrapSource(reader: sensor), sourceName: sensor.device.name)
            }
            let opened = try openBluetooth(request, stream: sensor)
            return ECGFeed(source: opened.source, sourceName: opened.name, qrsLead: try detectionLead(opened), mains: mains,
                           detector: detector)
        }
        let opened = try openSource(sourcePath: sourcePath)
        let source: any ECGSource = opened.isFile ? PacedSource(opened.source, speed: speed ?? 1)
            : opened.isSynthetic ? PacedSource(opened.source) : opened.source
        return ECGFeed(source: source, sourceName: opened.name,
                       qrsLead: try detectionLead(opened),
                       mains: mains, referenceBeats: opened.referenceBeats, annotations: opened.annotations,
                       detector: detector)
    }

    /// Reads a record, EDF or CSV (`ECGFileOpening`, by extension) with these
    /// settings; what reading tolerated, and the signals at other rates than the
    /// chosen lead's (`unused` says what is not done with them), go to stderr.
    public func openFile(_ path: String, annotator: String = "atr", unused: String = "not shown") throws -> ECGRecordFile {
        let file = try ECGFileOpening.open(path, rate: rate, gain: gain, baseline: baseline,
                                           lead: lead.map(LeadSelector.init), annotator: annotator, strict: strict)
        for note in file.notes { printError("\(path): \(note)") }
        if !file.otherRates.isEmpty {
            let chosen = file.record.leadNames[file.chosenLead ?? file.fallbackLead]
            printError("\(path): at other rates than \(chosen) (\(file.record.sampleRate) Hz), \(unused): \(file.otherRates.joined(separator: ", "))")
        }
        return file
    }

    /// The whole recording: a file as read; a device, stdin or the generator
    /// read as fast as it delivers until it ends or `until` seconds have come.
    public func readWhole(sourcePath: String?, until: Double?, annotator: String = "atr", unused: String = "not used") throws -> ECGRecordFile {
        let opened = try openSource(sourcePath: sourcePath, annotator: annotator, unused: unused)
        if let file = opened.file { return file }
        guard until != nil || !opened.isSynthetic else {
            throw CommandError("the synthetic ECG never ends: give --to SECONDS")
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
        try (source as? RecordingECGSource)?.finish()
        if let sensor = Self.sensor(source) {
            sensor.close()
            printError(sensor.summary)
        }
        let record = ECGRecord(name: opened.name, sampleRate: source.sampleRate, leadNames: source.leadNames, samples: samples)
        return ECGRecordFile(record: record, referenceBeats: opened.referenceBeats, notes: [],
                             chosenLead: opened.chosenLead, fallbackLead: opened.fallbackLead,
                             fileIndices: Array(record.leadNames.indices))
    }

    /// The lead QRS detection watches in an opened source.
    public func detectionLead(_ opened: Opened) throws -> Int {
        try detectionLead(opened.source.leadNames, sourceName: opened.name, chosen: opened.chosenLead, fallback: opened.fallbackLead)
    }

    /// The lead QRS detection watches in a recording read whole.
    public func detectionLead(_ file: ECGRecordFile) throws -> Int {
        try detectionLead(file.record.leadNames, sourceName: file.record.name, chosen: file.chosenLead, fallback: file.fallbackLead)
    }

    /// The lead QRS detection watches: the one picked with --lead (`chosen`),
    /// else --qrs-lead, else lead II by any of its names (`ECGLeadName`: "II", "MLII", "EKG II"), else `fallback`
    /// (a file's first ECG lead).
    private func detectionLead(_ leadNames: [String], sourceName: String, chosen: Int?, fallback: Int) throws -> Int {
        guard !leadNames.isEmpty else { throw ECGError(file: sourceName, "no signals to show") }
        let lead = chosen ?? qrsLead ?? ECGLeadName.index(of: "II", in: leadNames) ?? fallback
        guard lead < leadNames.count else {
            throw CommandError("--qrs-lead \(lead): \(sourceName) has \(leadNames.count) leads (0…\(leadNames.count - 1))")
        }
        return lead
    }
}
