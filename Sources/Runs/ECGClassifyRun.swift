import ECG
import Foundation

/// `ecg classify`: one verdict per recording (normal, af, other, noisy,
/// too_short) with its heart rate, beats per class and reasons; many files
/// (or directories of them) in one run, a file that cannot be read an error
/// line while the others go on. With a labels file (`record,label` as the CinC 2017 REFERENCE.csv):
/// F1 per class and the challenge score.
public struct ECGClassifyRun {
    public var source: ECGSourceRequest
    public var paths: [String]
    public var json = false
    /// `record,label` reference: score the verdicts
    public var labels: String?
    /// write every recording's features as CSV (`record,label,…`) for Tools/train-ecg-verdict
    public var featuresOutput: String?
    /// each record's beat annotations REC.ANN instead of its signal (`--beats`): the rhythm engine alone
    public var beatAnnotator: String?

    public init(source: ECGSourceRequest, paths: [String]) {
        self.source = source
        self.paths = paths
    }

    /// Classifies every path, printing a line (or JSON object) each as it is
    /// decided; returns the number of files that could not be read.
    public func run() throws -> Int {
        let reference = try labels.map { try Self.readLabels($0) }
        var failures = 0
        var scored: [(reference: RecordingVerdict, verdict: RecordingVerdict)] = []
        var featureRows = "record,label," + RecordingFeatures.names.joined(separator: ",") + "\n"
        var recordings: [String] = []
        for path in paths {
            do {
                recordings += try Self.recordings(path)
            } catch {
                printError(error.description)
                failures += 1
            }
        }
        if let beatAnnotator {
            for path in recordings {
                do {
                    let list = try BeatListFile.readAnnotations(record: path, annotator: beatAnnotator, rate: source.rate)
                    let analysis = BeatRhythmAnalysis.analyze(list)
                    let name = Self.recordName(path)
                    print(json ? Self.json(name, analysis) : Self.text(name, analysis))
                    fflush(nil)
                    if let label = reference?[name] { scored.append((label, analysis.verdict)) }
                } catch let error as ECGError {
                    printError(error.description)
                    failures += 1
                }
            }
            if let reference {
                let missing = recordings.map(Self.recordName).filter { reference[$0] == nil }.count
                if missing > 0 { printError("\(labels!): \(missing) of the recordings have no label, not scored") }
                let score = VerdictScore(scored)
                print(json ? score.json : score.text)
            }
            return failures
        }
        for path in recordings {
            let assessment: RecordingAssessment
            let name = Self.recordName(path)
            do {
                let file = try source.openFile(path, unused: "not classified")
                let lead = try source.detectionLead(file)
                assessment = RecordingClassifier.assess(file.record.samples[lead], sampleRate: file.record.sampleRate,
                                                        detector: source.chosenDetector ?? RecordingClassifier.standardDetector,
                                                        mains: source.mains)
            } catch let error as ECGError {
                printError(error.description)
                failures += 1
                continue
            } catch {
                printError("\(path): \(error)")
                failures += 1
                continue
            }
            print(json ? Self.json(name, assessment) : Self.text(name, assessment))
            fflush(nil)
            let label = reference?[name]
            if featuresOutput != nil {
                featureRows += "\(name),\(label?.challengeLabel ?? ""),"
                    + assessment.features.values.map { $0.isFinite ? Self.number("%.6g", $0) : "" }.joined(separator: ",") + "\n"
            }
            if let label { scored.append((label, assessment.verdict)) }
        }
        if let featuresOutput {
            guard OutputFile.write(Data(featureRows.utf8), to: featuresOutput) else {
                throw ECGError(file: featuresOutput, "cannot write (no such directory, or no permission)")
            }
        }
        if let reference {
            let missing = recordings.map(Self.recordName).filter { reference[$0] == nil }.count
            if missing > 0 { printError("\(labels!): \(missing) of the recordings have no label, not scored") }
            let score = VerdictScore(scored)
            print(json ? score.json : score.text)
        }
        return failures
    }

    /// The recordings a SOURCE stands for. A file or record: itself. A directory, as PhysioNet's
    /// tools read a database: the records its `RECORDS` file lists (one name per line, in its
    /// order, relative to the directory), or without one every `.hea` and `.edf` file in it, by
    /// name. CSV files in a directory are not taken: a directory of recordings often holds its
    /// labels file (the challenge's REFERENCE.csv). Pointing at the directory also spares
    /// swift-argument-parser thousands of file arguments, which it parses in time quadratic in
    /// their number (0.65 s for 3000).
    static func recordings(_ path: String) throws(ECGError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [path]
        }
        let directory = URL(fileURLWithPath: path)
        let list = directory.appendingPathComponent("RECORDS").path
        if FileManager.default.fileExists(atPath: list) {
            guard let data = FileManager.default.contents(atPath: list) else {
                throw ECGError(file: list, "cannot read it (no permission?)")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw ECGError(file: list, "not UTF-8 text (expected a record name per line)")
            }
            let names = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            guard !names.isEmpty else { throw ECGError(file: list, "names no record (expected a record name per line)") }
            return names.map { directory.appendingPathComponent($0).path }
        }
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw ECGError(file: path, "cannot list the directory (no permission?)")
        }
        let records = files.filter { ["hea", "edf"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
        guard !records.isEmpty else {
            throw ECGError(file: path, "a directory with no RECORDS file and no .hea or .edf recording in it"
                + (files.contains { ($0 as NSString).pathExtension.lowercased() == "csv" }
                    ? " (CSV files in a directory are left alone, as a labels file may be one: name them as files)" : ""))
        }
        return records.map { directory.appendingPathComponent($0).path }
    }

    /// the record name a path stands for: A00001 for A00001.hea, A00001.mat or A00001
    static func recordName(_ path: String) -> String {
        let file = (path as NSString).lastPathComponent
        let known = ["hea", "mat", "dat", "edf", "csv", "txt", "tsv"]
        return known.contains((file as NSString).pathExtension.lowercased()) ? (file as NSString).deletingPathExtension : file
    }

    /// `record,label` lines (a header line, CRLF and spaces allowed).
    static func readLabels(_ path: String) throws -> [String: RecordingVerdict] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ECGError(file: path, FileManager.default.fileExists(atPath: path) ? "cannot read (permission?)" : "no such file")
        }
        var labels: [String: RecordingVerdict] = [:]
        for (number, line) in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).enumerated() {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if fields.isEmpty || fields.allSatisfy(\.isEmpty) { continue }
            if number == 0, fields.count >= 2, RecordingVerdict(label: fields[1]) == nil { continue }   // a header
            guard fields.count >= 2, let verdict = RecordingVerdict(label: fields[1]) else {
                throw ECGError(file: path, location: .line(number + 1),
                               "expected `record,label` with a label N, A, O, ~ (or normal, af, other, noisy), found \"\(line)\"")
            }
            labels[recordName(fields[0])] = verdict
        }
        return labels
    }

    /// A record judged from its beats: verdict, heart rate, AF burden and episodes, unreadable time.
    static func text(_ name: String, _ analysis: BeatRhythmAnalysis) -> String {
        let rate = analysis.heartRate.map { number("%.0f bpm", $0) } ?? "--- bpm"
        let burden = analysis.afBurden.map { number("%.1f %%", $0 * 100) } ?? "—"
        let afEpisodes = analysis.episodes.filter { $0.code == .af }.count
        return "\(name)  \(analysis.verdict.rawValue)  \(rate)  AF burden \(burden) in \(afEpisodes) episode\(afEpisodes == 1 ? "" : "s")"
            + number(", %.1f h", analysis.duration / 3600) + ", \(analysis.unreadableSeconds) s unreadable"
    }

    static func json(_ name: String, _ analysis: BeatRhythmAnalysis) -> String {
        let counts = BeatClass.allCases.map { "\"\($0.rawValue)\":\(analysis.classCounts[$0] ?? 0)" }.joined(separator: ",")
        let rate = analysis.heartRate.map { number("%.1f", $0) } ?? "null"
        let episodes = analysis.episodes.filter { $0.code == .af }.map { episode in
            number("{\"start\":%.3f,", episode.time) + number("\"end\":%.3f}", episode.end ?? analysis.duration)
        }.joined(separator: ",")
        return "{\"record\":\"\(escaped(name))\",\"verdict\":\"\(analysis.verdict.rawValue)\",\"heart_rate\":\(rate),"
            + number("\"duration_s\":%.3f,", analysis.duration)
            + "\"beats\":{\(counts)},\"af_burden\":\(analysis.afBurden.map { number("%.4f", $0) } ?? "null"),"
            + "\"af_episodes\":[\(episodes)],\"unreadable_s\":\(analysis.unreadableSeconds)}"
    }

    static func text(_ name: String, _ assessment: RecordingAssessment) -> String {
        let rate = assessment.heartRate.map { Self.number("%.0f bpm", $0) } ?? "— bpm"
        let counts = BeatClass.allCases.map { "\($0.rawValue) \(assessment.beatCounts[$0] ?? 0)" }.joined(separator: " ")
        return "\(name)  \(assessment.verdict.rawValue)  \(rate)  beats \(counts)  "
            + Self.number("%.1f s", assessment.analysis.duration) + "  " + assessment.reasons.joined(separator: "; ")
    }

    static func json(_ name: String, _ assessment: RecordingAssessment) -> String {
        let rate = assessment.heartRate.map { Self.number("%.1f", $0) } ?? "null"
        let counts = BeatClass.allCases.map { "\"\($0.rawValue)\":\(assessment.beatCounts[$0] ?? 0)" }.joined(separator: ",")
        let reasons = assessment.reasons.map { "\"" + escaped($0) + "\"" }.joined(separator: ",")
        let probabilities = RecordingVerdict.allCases.compactMap { verdict in
            assessment.probabilities[verdict].map { "\"\(verdict.rawValue)\":" + Self.number("%.4f", $0) }
        }.joined(separator: ",")
        return "{\"record\":\"\(escaped(name))\",\"verdict\":\"\(assessment.verdict.rawValue)\",\"heart_rate\":\(rate),"
            + Self.number("\"duration_s\":%.3f,", assessment.analysis.duration)
            + "\"beats\":{\(counts)},\"af_burden\":\(assessment.analysis.afBurden.map { Self.number("%.4f", $0) } ?? "null"),"
            + "\"probabilities\":{\(probabilities)},\"parts_judged\":\(assessment.partsJudged),\"reasons\":[\(reasons)]}"
    }

    /// `String(format: format, value)` for a format with one floating-point conversion, printed by
    /// the C library's `vsnprintf` directly: the same bytes (checked on all 2999 development
    /// recordings' lines and features), without Foundation's formatting machinery, which was a
    /// sixtieth of `ecg classify --json`'s time at eight numbers a recording.
    static func number(_ format: String, _ value: Double) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            let length = withVaList([value]) { vsnprintf(buffer.baseAddress, buffer.count, format, $0) }
            guard length >= 0, Int(length) < buffer.count else { return String(format: format, value) }
            return String(cString: buffer.baseAddress!)
        }
    }

    static func escaped(_ text: String) -> String {
        // most text (record names, reasons) has nothing to escape: returned as it is, not rebuilt
        // scalar by scalar (which gives the same string)
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
            return text
        }
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where character.value < 0x20: out += String(format: "\\u%04x", character.value)
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}

/// Verdicts against reference labels, scored as the PhysioNet/CinC Challenge
/// 2017 did (Clifford et al. 2017): per class F1 = 2·TP / (reference count +
/// verdict count) over the 4×4 table of normal, af, other, noisy; the
/// challenge score is the mean F1 of normal, af and other. A too_short
/// verdict counts as noisy (the nearest the challenge had).
public struct VerdictScore {
    public static let classes: [RecordingVerdict] = [.normal, .af, .other, .noisy]
    /// table[reference][verdict]
    public var table: [[Int]]

    public init(_ pairs: [(reference: RecordingVerdict, verdict: RecordingVerdict)]) {
        table = Array(repeating: Array(repeating: 0, count: 4), count: 4)
        for pair in pairs {
            let row = Self.classes.firstIndex(of: pair.reference == .tooShort ? .noisy : pair.reference)!
            let column = Self.classes.firstIndex(of: pair.verdict == .tooShort ? .noisy : pair.verdict)!
            table[row][column] += 1
        }
    }

    public func f1(_ verdict: RecordingVerdict) -> Double {
        guard let index = Self.classes.firstIndex(of: verdict) else { return .nan }
        let referenceCount = table[index].reduce(0, +)
        let verdictCount = table.map { $0[index] }.reduce(0, +)
        return referenceCount + verdictCount == 0 ? .nan : 2 * Double(table[index][index]) / Double(referenceCount + verdictCount)
    }

    public var challengeScore: Double { (f1(.normal) + f1(.af) + f1(.other)) / 3 }
    public var count: Int { table.map { $0.reduce(0, +) }.reduce(0, +) }

    public var text: String {
        var lines = ["\(count) recordings scored; rows: reference, columns: verdict",
                     "            normal      af   other   noisy"]
        for (index, verdict) in Self.classes.enumerated() {
            lines.append(verdict.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                         + table[index].map { String(format: "%8d", $0) }.joined())
        }
        lines.append(String(format: "F1 normal %.3f  af %.3f  other %.3f  noisy %.3f", f1(.normal), f1(.af), f1(.other), f1(.noisy)))
        lines.append(String(format: "challenge score (mean F1 of normal, af, other) %.3f", challengeScore))
        return lines.joined(separator: "\n")
    }

    public var json: String {
        let f1s = Self.classes.map { "\"\($0.rawValue)\":" + String(format: "%.4f", f1($0)) }.joined(separator: ",")
        let rows = table.map { "[" + $0.map(String.init).joined(separator: ",") + "]" }.joined(separator: ",")
        return "{\"score\":true,\"recordings\":\(count),\"f1\":{\(f1s)}," + String(format: "\"challenge_score\":%.4f,", challengeScore)
            + "\"table\":[\(rows)]}"
    }
}
