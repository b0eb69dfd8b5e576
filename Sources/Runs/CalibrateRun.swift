import DSP
import Devices
import Foundation
import Signals
import ThreadKit

/// The reference signals at the analyzer's input, from `--reference REF.csv`
/// (header `frequency_hz,level_dbm`, one row per signal).
public struct CalibrationReference: Sendable, Equatable {
    /// [Hz]
    public var frequencyHz: Double
    /// level at the input [dBm]
    public var levelDBm: Double
    /// its line in the file, for messages
    public var line: Int

    static let header = "frequency_hz,level_dbm"

    /// The rows of a reference file, in frequency order; a problem is one
    /// `InputError` naming the line.
    public static func parse(_ text: String, file: String) throws(InputError) -> [CalibrationReference] {
        var rows: [CalibrationReference] = []
        var sawHeader = false
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            // a spreadsheet's byte-order mark and CRLF endings are not part of the text
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r\u{FEFF}")))
            let number = index + 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            if !sawHeader {
                guard line.replacingOccurrences(of: " ", with: "") == header else {
                    throw InputError(file: file, location: .line(number), "expected the header '\(header)', found '\(line)'")
                }
                sawHeader = true
                continue
            }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 2 else {
                throw InputError(file: file, location: .line(number),
                                 "expected 2 fields (frequency_hz,level_dbm), found \(fields.count)")
            }
            guard let hz = Double(fields[0]), hz.isFinite, hz > 0 else {
                throw InputError(file: file, location: .line(number),
                                 "frequency_hz '\(fields[0])' is not a frequency in Hz")
            }
            guard let dbm = Double(fields[1]), dbm.isFinite else {
                throw InputError(file: file, location: .line(number), "level_dbm '\(fields[1])' is not a number")
            }
            rows.append(CalibrationReference(frequencyHz: hz, levelDBm: dbm, line: number))
        }
        guard sawHeader else { throw InputError(file: file, "empty: expected the header '\(header)' and one row per reference") }
        guard !rows.isEmpty else { throw InputError(file: file, "no reference rows after the header") }
        return rows.sorted { $0.frequencyHz < $1.frequencyHz }
    }
}

/// What `tscope calibrate` asked for.
public struct CalibrationRequest: Sendable {
    public var selection: DeviceSelection
    public var referencePath: String
    /// where the table goes; nil: the calibration folder, named by model and serial
    public var outputPath: String?
    /// sweeps each reference is measured over
    public var sweeps: Int
    /// the analyzer's bin width [Hz]
    public var binWidthHz: Double
    /// the channel measured around each reference [Hz]
    public var channelHz: Double
    /// one reference at a time, prompting for each
    public var step: Bool
    /// the unit tests' clock: how long to wait for the sweeps of one measurement [s]
    public var timeoutSeconds: Double = 60

    public init(selection: DeviceSelection, referencePath: String, outputPath: String?, sweeps: Int,
                binWidthHz: Double, channelHz: Double, step: Bool) {
        self.selection = selection
        self.referencePath = referencePath
        self.outputPath = outputPath
        self.sweeps = sweeps
        self.binWidthHz = binWidthHz
        self.channelHz = channelHz
        self.step = step
    }
}

/// `tscope calibrate`: measures each reference signal's channel power over
/// several sweeps (average detector, noise-bandwidth corrected, the noise
/// beside it subtracted), and writes the offsets that turn the analyzer's
/// dB into dBm at those frequencies, with each one's repeatability.
public enum CalibrateRun {
    /// a reference must stand this far above the noise beside it [dB]
    public static let minimumSignalToNoiseDB = 10.0

    /// One reference's readings.
    struct Readings {
        /// per sweep: channel power, noise beside it scaled to the channel (linear, the analyzer's dB reference)
        var channel: [Double] = []
        var noise: [Double] = []
    }

    /// Runs the calibration; returns the table and where it was written.
    @discardableResult
    public static func run(_ request: CalibrationRequest, prompt: (String) -> Bool = CalibrateRun.promptOnTerminal)
        throws -> (table: CalibrationTable, path: String) {
        let references = try CalibrationReference.parse(try InputError.readText(request.referencePath),
                                                        file: request.referencePath)
        for (a, b) in zip(references, references.dropFirst()) where b.frequencyHz - a.frequencyHz < 2 * request.channelHz {
            throw InputError(file: request.referencePath, location: .line(b.line),
                             "\(FrequencyFormat.label(b.frequencyHz)) is within \(FrequencyFormat.label(2 * request.channelHz)) "
                                + "of line \(a.line)'s \(FrequencyFormat.label(a.frequencyHz)): each is measured with the noise "
                                + "beside it, so references need that much room")
        }
        var selection = request.selection
        // never measure through an older calibration
        selection.calibration = .none
        let collector = Guarded<(targets: [CalibrationReference], readings: [Readings], channelHz: Double)>(
            ([], [], request.channelHz))
        let failure = DeviceFailure()
        let (source, analyzer) = try selection.spectrumSource(
            headless: true, detector: .average,
            onFrame: { frame in collector.withLock { state in Self.add(frame, to: &state) } },
            onGiveUp: { failure.record($0) })
        let limits = analyzer.tunableRange
        for reference in references where !(limits.lowerHz...limits.upperHz).contains(reference.frequencyHz) {
            throw InputError(file: request.referencePath, location: .line(reference.line),
                             "\(FrequencyFormat.label(reference.frequencyHz)) is outside what the \(analyzer.kind.model) "
                                + "tunes (\(BandLimits.outside(limits)))")
        }
        // the noise beside a reference is measured up to 2.5 channels away: that much must be tunable too
        let room = 2.5 * request.channelHz
        for reference in references
        where reference.frequencyHz - room < limits.lowerHz || reference.frequencyHz + room > limits.upperHz {
            throw InputError(file: request.referencePath, location: .line(reference.line),
                             "\(FrequencyFormat.label(reference.frequencyHz, maxFractionDigits: 6)) is too close to the "
                                + "edge of what the \(analyzer.kind.model) tunes: the noise beside it is measured "
                                + "\(FrequencyFormat.label(room)) either side")
        }
        // measure in groups: all at once, or one reference at a time (--step)
        let groups = request.step ? references.map { [$0] } : [references]
        var points: [CalibrationTable.Point] = []
        var started = false
        let nobodyRings = Doorbell()
        defer { source.stop() }
        for group in groups {
            if request.step {
                let reference = group[0]
                let text = "set the generator to \(FrequencyFormat.label(reference.frequencyHz, maxFractionDigits: 6)) at "
                    + "\(FrequencyFormat.trimmed(reference.levelDBm, maxFractionDigits: 2)) dBm, then Enter"
                guard prompt(text) else { throw CommandError("calibration stopped before \(request.referencePath) line \(reference.line); no table written") }
            }
            // clear of the analyzer's blind spots (an RTL-SDR hop's DC bin)
            let band = analyzer.kind.measurementBand(holding: group.map(\.frequencyHz), margin: 3 * request.channelHz,
                                                     binWidthHz: request.binWidthHz, limits: limits)
            collector.withLock { $0 = ([], [], request.channelHz) }
            if started {
                try source.retune(to: band, binWidthHz: request.binWidthHz)
            } else {
                try source.start(band: band, binWidthHz: request.binWidthHz)
                started = true
            }
            // frames already on their way may be of the band before: start counting from the next ones (after 0.1 s)
            let clock = request.selection.clock
            clock.wait(until: clock.now + 0.1, orUntilRung: nobodyRings)
            collector.withLock { $0 = (group, group.map { _ in Readings() }, request.channelHz) }
            let deadline = clock.now + request.timeoutSeconds
            // one more sweep than asked: the first may have begun before the band settled
            while collector.withLock({ $0.readings.map(\.channel.count).min() ?? 0 }) < request.sweeps + 1 {
                if let message = failure.message { throw CommandError(message) }
                guard clock.now < deadline else {
                    throw CommandError("calibration: \(request.sweeps) sweeps did not arrive within "
                        + "\(Int(request.timeoutSeconds)) s; no table written")
                }
                // look again in 20 ms [s]
                clock.wait(until: clock.now + 0.02, orUntilRung: nobodyRings)
            }
            let readings = collector.withLock { $0.readings }
            // each reference judged as soon as it is measured (with --step, before the next is asked for)
            for (reference, reading) in zip(group, readings) {
                var kept = reading
                kept.channel = Array(reading.channel.dropFirst().prefix(request.sweeps))
                kept.noise = Array(reading.noise.dropFirst().prefix(request.sweeps))
                points.append(try point(reference, kept, file: request.referencePath))
            }
        }
        let serial = CalibrationFiles.serial(of: analyzer)
        let table = CalibrationTable(model: analyzer.kind.model, serial: serial, firmware: "",
                                     settings: analyzer.settings.summary(for: analyzer.kind),
                                     gainDB: analyzer.settings.totalGainDB(for: analyzer.kind),
                                     madeAt: unixTimeNow(), points: points)
        let path = request.outputPath ?? CalibrationFiles.defaultPath(model: table.model, serial: serial)
        try write(table, to: path)
        return (table, path)
    }

    /// The offset a reference's readings give, or why they give none.
    static func point(_ reference: CalibrationReference, _ reading: Readings, file: String)
        throws(InputError) -> CalibrationTable.Point {
        let channel = reading.channel.reduce(0, +) / Double(max(1, reading.channel.count))
        let noise = reading.noise.reduce(0, +) / Double(max(1, reading.noise.count))
        let aboveNoise = Units.decibels(power: channel / max(noise, .leastNormalMagnitude))
        guard channel.isFinite, aboveNoise >= minimumSignalToNoiseDB else {
            throw InputError(file: file, location: .line(reference.line),
                             "no reference found at \(FrequencyFormat.label(reference.frequencyHz, maxFractionDigits: 6)): "
                                + "\(String(format: "%.1f", aboveNoise)) dB above the noise beside it, "
                                + "\(Int(minimumSignalToNoiseDB)) dB needed; no table written")
        }
        // the signal alone: the noise beside it taken out of the channel, per sweep
        let perSweep = zip(reading.channel, reading.noise).map { Units.decibels(power: max($0 - $1, $0 * 1e-3)) }
        let meanDB = Units.decibels(power: channel - noise)
        let spread = (perSweep.map { ($0 - meanDB) * ($0 - meanDB) }.reduce(0, +)
            / Double(max(1, perSweep.count - 1))).squareRoot()
        return CalibrationTable.Point(frequencyHz: reference.frequencyHz, offsetDB: reference.levelDBm - meanDB,
                                      uncertaintyDB: spread)
    }

    /// Adds a frame's readings to the references being measured.
    static func add(_ frame: SpectrumFrame,
                    to state: inout (targets: [CalibrationReference], readings: [Readings], channelHz: Double)) {
        let half = state.channelHz / 2
        for (index, reference) in state.targets.enumerated() {
            let f = reference.frequencyHz
            guard let channelBand = FrequencyRange(lowerHz: f - half, upperHz: f + half),
                  let below = FrequencyRange(lowerHz: f - 5 * half, upperHz: f - 3 * half),
                  let above = FrequencyRange(lowerHz: f + 3 * half, upperHz: f + 5 * half),
                  frame.startHz <= below.lowerHz, frame.stopHz >= above.upperHz,
                  let channel = BandPower.decibels(in: channelBand, of: frame) else { continue }
            // the noise beside it, one channel's width on each side, as the mean of the two
            let sides = [below, above].compactMap { BandPower.decibels(in: $0, of: frame) }.map(Units.power(decibels:))
            guard !sides.isEmpty else { continue }
            state.readings[index].channel.append(Units.power(decibels: channel))
            state.readings[index].noise.append(sides.reduce(0, +) / Double(sides.count))
        }
    }

    /// Writes the table through a temporary file, so a failed write leaves no half table.
    static func write(_ table: CalibrationTable, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw CommandError("cannot create \(directory): \(error.localizedDescription)")
            }
        }
        let temporary = path + ".partial"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(table.fileText.utf8)),
              rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CommandError("cannot write the calibration \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Asks on stderr and waits for a line on stdin; false at end of input.
    public static func promptOnTerminal(_ text: String) -> Bool {
        FileHandle.standardError.write(Data((text + ": ").utf8))
        return readLine() != nil
    }

    /// The table as `calibrate` prints it.
    public static func report(_ table: CalibrationTable, path: String) -> String {
        var text = "frequency        offset      ±1σ\n"
        for point in table.points {
            let label = FrequencyFormat.label(point.frequencyHz, maxFractionDigits: 6)
            text += label.padding(toLength: 15, withPad: " ", startingAt: 0)
                + String(format: "%+8.2f dB  %5.2f dB\n", point.offsetDB, point.uncertaintyDB)
        }
        text += "at \(table.settings.isEmpty ? "the analyzer's own settings" : table.settings)"
            + (table.gainDB.map { " (gain \(FrequencyFormat.trimmed($0, maxFractionDigits: 1)) dB)" } ?? "")
            + "\nwrote \(path)\n"
        return text
    }
}
