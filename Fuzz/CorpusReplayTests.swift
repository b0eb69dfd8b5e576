import Foundation
import Testing

/// Every harness, by the name of its corpus folder. The harness files are
/// compiled into this test target as they are into the libFuzzer builds.
let harnesses: [String: @Sendable (UnsafeRawBufferPointer) -> Void] = [
    "BandPlan": fuzzBandPlan,
    "BLENotification": fuzzBLENotification,
    "CalibrationTable": fuzzCalibrationTable,
    "CaptureStore": fuzzCaptureStore,
    "ECGAnnotation": fuzzECGAnnotation,
    "ECGAnnotationText": fuzzECGAnnotationText,
    "ECGHeader": fuzzECGHeader,
    "ECGLine": fuzzECGLine,
    "ECGSignal": fuzzECGSignal,
    "EDF": fuzzEDF,
    "EDFAnnotations": fuzzEDFAnnotations,
    "EmulatorWire": fuzzEmulatorWire,
    "HackRFSweepBinary": fuzzHackRFSweepBinary,
    "HackRFSweepBlock": fuzzHackRFSweepBlock,
    "HackRFSweepCSV": fuzzHackRFSweepCSV,
    "IQSpectrum": fuzzIQSpectrum,
    "RFExplorerStream": fuzzRFExplorerStream,
    "RTLPowerCSV": fuzzRTLPowerCSV,
    "RRIntervals": fuzzRRIntervals,
    "RTLSDRRegister": fuzzRTLSDRRegister,
    "RFExplorerScanCSV": fuzzRFExplorerScanCSV,
    "RigolTrace": fuzzRigolTrace,
    "SDB2Scan": fuzzSDB2Scan,
    "SigMFMeta": fuzzSigMFMeta,
    "SoapyPowerBin": fuzzSoapyPowerBin,
    "TerminalInput": fuzzTerminalInput,
    "TinySAScan": fuzzTinySAScan,
    "WSMScan": fuzzWSMScan,
    "WWBScanCSV": fuzzWWBScanCSV,
]

/// Replays the committed fuzz corpora (Fuzz/corpus/<NAME>/*) once each,
/// without sanitizers: an input that once crashed, hung or broke a harness's
/// `precondition` crashes this test again if the fix regresses.
@Suite struct CorpusReplayTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    static func names(in folder: String, suffix: String = "") throws -> Set<String> {
        let entries = try FileManager.default.contentsOfDirectory(atPath: fuzzFolder.appendingPathComponent(folder).path)
        return Set(entries.filter { $0.hasSuffix(suffix) && $0 != "FuzzSupport.swift" }.map { String($0.dropLast(suffix.count)) })
    }

    @Test func everyHarnessHasACorpusAndIsReplayed() throws {
        #expect(try Self.names(in: "harnesses", suffix: "Fuzz.swift") == Set(harnesses.keys))
        #expect(try Self.names(in: "corpus") == Set(harnesses.keys))
    }

    @Test(arguments: harnesses.keys.sorted())
    func corpusReplays(_ name: String) throws {
        let folder = Self.fuzzFolder.appendingPathComponent("corpus/\(name)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(!files.isEmpty, "\(name): empty corpus")
        let fuzz = try #require(harnesses[name])
        for file in files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            data.withUnsafeBytes { fuzz($0) }
        }
    }
}
