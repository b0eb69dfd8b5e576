import Foundation
import Signals
import Testing
@testable import Capture

/// The one list of file formats, `CaptureCodecs.all`, is consistent: names
/// and claims are unambiguous, every reader reads a fixture made of real
/// data, and every writer's output comes back through its own reader and is
/// detected as its own format.
@Suite struct CaptureCodecListTests {
    private let formats = CaptureCodecs.all.map(CaptureFormat.init)

    @Test func everyFormatNameIsUniqueAndParsesBack() {
        let names = formats.map(\.rawValue)
        #expect(Set(names).count == names.count, "\(names)")
        for format in formats {
            #expect(CaptureFormat(rawValue: format.rawValue) == format)
            // convert --help's table is name (19), access and summary: 80 columns at most
            #expect(!format.codec.summary.isEmpty && format.codec.summary.count <= 50, "\(format)'s summary for help")
        }
        #expect(CaptureFormat(rawValue: "wav") == nil)
    }

    /// Stage 1 (`extensions`) and stage 3 (`checkedExtensions`) claims, and
    /// output extensions, are each one codec's. Only `firstLine.extensions`
    /// are shared, because the first line decides: .csv (rtl_power,
    /// hackrf_sweep, the CSV export) and .txt (rtl_power, hackrf_sweep).
    @Test func everyExtensionIsClaimedByOneCodecUnlessTheFirstLineDecides() {
        var claims: [String: [String]] = [:]
        var outputs: [String: [String]] = [:]
        var magics: [[UInt8]] = []
        for format in formats {
            let recognition = format.codec.recognition
            for ext in recognition.extensions + recognition.checkedExtensions { claims[ext, default: []].append(format.rawValue) }
            for ext in format.codec.outputExtensions { outputs[ext, default: []].append(format.rawValue) }
            if let magic = recognition.magic { magics.append(magic) }
            #expect(recognition.checkedExtensions.isEmpty == (recognition.mismatch == nil),
                    "\(format): checked extensions and the check come together")
            #expect(format.codec.outputExtensions.isEmpty || format.canWrite, "\(format) names outputs it cannot write")
        }
        for (ext, owners) in claims { #expect(owners.count == 1, ".\(ext) is claimed by \(owners)") }
        for (ext, owners) in outputs { #expect(owners.count == 1, "output .\(ext) names \(owners)") }
        for (i, a) in magics.enumerated() {
            for b in magics[(i + 1)...] { #expect(!a.starts(with: b) && !b.starts(with: a), "magics \(a) and \(b) overlap") }
        }
        let shared = Dictionary(grouping: formats.flatMap { format in
            (format.codec.recognition.firstLine?.extensions ?? []).map { (ext: $0, name: format.rawValue) }
        }, by: \.ext).mapValues { $0.map(\.name) }
        #expect(shared == ["csv": ["rtl_power", "hackrf_sweep", "wwb", "wsm", "rfexplorer", "rigol_dsa", "csv"],
                           "txt": ["rtl_power", "hackrf_sweep", "wwb"]])
        for ext in shared.keys { #expect(claims[ext] == nil, ".\(ext) is decided by content, yet claimed by \(claims[ext]!)") }
    }

    @Test func everyOutputExtensionNamesItsFormat() {
        for format in formats {
            for ext in format.codec.outputExtensions { #expect(CaptureFormat.forOutput(path: "out.\(ext)") == format) }
        }
        #expect(CaptureFormat.forOutput(path: "out.csv") == nil)
    }

    @Test func theReadableAndWritableListsComeFromTheCodecs() {
        #expect(CaptureFormat.readable == "tscope, rtl_power, hackrf_sweep, hackrf_sweep_binary, soapy_power_bin, sigmf, "
            + "cu8, cs8, cs16, cf32, sdb2, wwb, wsm, rfexplorer, rigol_dsa")
        #expect(CaptureFormat.writable == "tscope, rtl_power, hackrf_sweep, hackrf_sweep_binary, soapy_power_bin, csv, null")
        #expect(CaptureFormat.helpTable.split(separator: "\n").count == formats.count)
    }

    /// Every format tscope reads opens a fixture from Tests/ and reads at least one frame.
    @Test func everyReaderReadsAFixture() throws {
        let directory = try TemporaryDirectory("codec-fixtures")
        defer { directory.remove() }
        for format in formats where format.canRead {
            guard let fixture = try readableFixture(format, in: directory) else {
                Issue.record("\(format) reads, but CaptureCodecListTests has no fixture for it")
                continue
            }
            let frames = try readAll(try format.openReader(path: fixture.path, options: fixture.options))
            #expect(!frames.isEmpty, "\(format) read no frame of \(fixture.path)")
            #expect(frames.first.map { !$0.powerDB.isEmpty && $0.binWidthHz > 0 } == true, "\(format)")
        }
    }

    /// Every format tscope writes: real frames go in, and where it reads, the same frames come
    /// back (to the precision its text prints) from a file detected as this format.
    @Test func everyWriterRoundTripsThroughItsReader() throws {
        let directory = try TemporaryDirectory("codec-round-trip")
        defer { directory.remove() }
        let source = Array(try readAll(try CaptureFormat.rtlPower.openReader(
            path: Fixtures.path(Fixtures.osakaFiles[0]), options: CaptureReadOptions())).prefix(3))
        #expect(source.count == 3)
        for format in formats where format.canWrite {
            let path = directory.path("out-\(format.rawValue).\(format.codec.outputExtensions.first ?? "csv")")
            let writer = try format.openAtomicWriter(path: path, metadata: CaptureMetadata(format: "rtl_power"))
            for frame in source { try writer.write(frame) }
            try writer.finish()
            if format == .null {
                #expect(!FileManager.default.fileExists(atPath: path), "null wrote \(path)")
                continue
            }
            guard format.canRead else {
                // the CSV export: detected, and refused as a table tscope does not read back
                let error = captureError { _ = try CaptureFormat.detect(path: path) }
                #expect(error?.detail.contains("is \(format.codec.summary)") == true, "\(format): \(String(describing: error))")
                continue
            }
            #expect(try CaptureFormat.detect(path: path) == format)
            let back = try readAll(try format.openReader(path: path, options: CaptureReadOptions()))
            #expect(back.count == source.count, "\(format): \(back.count) frames back")
            for (written, read) in zip(source, back) {
                #expect(read.powerDB.count == written.powerDB.count, "\(format)")
                #expect(abs(read.startHz - written.startHz) <= 0.5, "\(format): \(read.startHz) ≠ \(written.startHz)")
                #expect(abs(read.binWidthHz - written.binWidthHz) <= 1e-6 * written.binWidthHz, "\(format)")
                // hackrf_sweep -B records carry no time: its reader numbers the sweeps
                if format != .hackrfSweepBinary { #expect(abs(read.timestamp - written.timestamp) <= 1e-6, "\(format)") }
                // text formats print hundredths of a dB
                let worst = zip(read.powerDB, written.powerDB).map { abs($0 - $1) }.max() ?? 0
                #expect(worst <= 0.005 + 1e-4, "\(format): a level differs by \(worst) dB")
            }
        }
    }

    /// A file of real data for each format tscope reads: the real file where Tests/ has one
    /// (Fixtures/README.md gives their provenance); otherwise real data in that format —
    /// real I/Q samples re-encoded (cs16, cf32) or described by a SigMF header, real
    /// rtl_power frames written by tscope's writer (tscope, soapy_power_bin; Tests/ has no
    /// real soapy_power file). Nil for a format this list does not know yet.
    private func readableFixture(_ format: CaptureFormat, in directory: TemporaryDirectory) throws
        -> (path: String, options: CaptureReadOptions)? {
        // light.complex16s: real HackRF cs8 at 2 MS/s around 2.475 GHz
        let carRemote = Fixtures.path("iq-rc-car-2g4/light.complex16s")
        let carOptions = CaptureReadOptions(iq: IQOptions(sampleRateHz: 2e6, centerHz: 2.475e9, fftSize: 256, averaging: 4))
        func carSamples(as name: String, _ encode: (Int8) -> [UInt8]) throws -> String {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: carRemote)).prefix(16_384)
            let path = directory.path(name)
            try Data(bytes.flatMap { encode(Int8(bitPattern: $0)) }).write(to: URL(fileURLWithPath: path))
            return path
        }
        func writtenFromRTLPower(_ name: String) throws -> String {
            let path = directory.path(name)
            let reader = try CaptureFormat.rtlPower.openReader(path: Fixtures.path(Fixtures.osakaFiles[0]), options: utc)
            let writer = try format.openWriter(path: path, metadata: reader.metadata)
            for frame in try readAll(reader).prefix(5) { try writer.write(frame) }
            try writer.finish()
            return path
        }
        switch format {
        case .rtlPower: return (Fixtures.path(Fixtures.osakaFiles[0]), utc)
        case .hackrfSweep: return (Fixtures.path("excerpts/hackrf_sweep-html-sdr-sweep-head64.csv"), utc)
        case .hackrfSweepBinary: return (Fixtures.path("excerpts/hackrf_sweep-html-sdr-tst-head10.bin"), utc)
        case .cu8:
            // real RTL-SDR cu8 (rtlamr's sample), about 2.556 MS/s at 912 MHz
            return (Fixtures.path("excerpts/rtlamr-sample-head.bin"),
                    CaptureReadOptions(iq: IQOptions(sampleRateHz: 2.556e6, centerHz: 912e6, fftSize: 256, averaging: 4)))
        case .cs8: return (carRemote, carOptions)
        case .cs16:
            return (try carSamples(as: "car.cs16") { value in
                withUnsafeBytes(of: (Int16(value) << 8).littleEndian) { Array($0) }
            }, carOptions)
        case .cf32:
            return (try carSamples(as: "car.cf32") { value in
                withUnsafeBytes(of: (Float(value) / 128).bitPattern.littleEndian) { Array($0) }
            }, carOptions)
        case .sigmf:
            let base = directory.path("car")
            try FileManager.default.copyItem(atPath: carRemote, toPath: base + ".sigmf-data")
            let meta = """
                {"global": {"core:datatype": "ci8", "core:sample_rate": 2000000, "core:version": "1.0.0"},
                 "captures": [{"core:sample_start": 0, "core:frequency": 2475000000, "core:datetime": "2025-07-16T12:00:00Z"}],
                 "annotations": []}
                """
            try Data(meta.utf8).write(to: URL(fileURLWithPath: base + ".sigmf-meta"))
            return (base + ".sigmf-meta", CaptureReadOptions(iq: IQOptions(fftSize: 256, averaging: 4)))
        case .tscope: return (try writtenFromRTLPower("osaka.tscope"), utc)
        case .soapyPowerBin: return (try writtenFromRTLPower("osaka.sdrff"), utc)
        case .sdb2: return (Fixtures.path("coordination/wwb6-ulxd4q-572-636.sdb2"), utc)
        case .wwbCSV: return (Fixtures.path("coordination/wwb-style-572-636-head.csv"), utc)
        case .wsm: return (Fixtures.path("coordination/wsm-import-from-sheets-converter.csv"), utc)
        case .rfExplorerCSV: return (Fixtures.path("coordination/rfexplorer-cumulative-v002-head.csv"), utc)
        case .rigolTrace:
            // a Rigol DSA815's saved-trace layout, written here: the real DSA815 files found carry no licence
            // to copy (Fixtures/coordination/PROVENANCE.md)
            let path = directory.path("TRACE1.CSV")
            try Data(("Trace1,\nFreq,,Amp,,\n           495012563,Hz,              -30.56, dBm,\n"
                + "           496687521,Hz,              -31.00, dBm,\n").utf8).write(to: URL(fileURLWithPath: path))
            return (path, utc)
        default: return nil
        }
    }
}
