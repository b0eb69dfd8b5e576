import Foundation
import Signals
import Testing
@testable import Capture

@Suite struct IQAndSigMFTests {
    /// cs8 noise with a 1-block tone burst at +250 kHz in block `burstBlock`.
    private func burstRecording(blocks: Int, burstBlock: Int, n: Int = 256, rate: Double = 1e6) -> [UInt8] {
        var rng = SeededRandom(seed: 9)
        var bytes: [UInt8] = []
        for block in 0..<blocks {
            for i in 0..<n {
                var re = Double.random(in: -2...2, using: &rng)
                var im = Double.random(in: -2...2, using: &rng)
                if block == burstBlock {
                    let phase = 2 * Double.pi * 250e3 * Double(block * n + i) / rate
                    re += 100 * cos(phase)
                    im += 100 * sin(phase)
                }
                bytes.append(UInt8(bitPattern: Int8(re.rounded())))
                bytes.append(UInt8(bitPattern: Int8(im.rounded())))
            }
        }
        return bytes
    }

    @Test func aOneBlockBurstStandsOutOfItsFrame() throws {
        let bytes = burstRecording(blocks: 64, burstBlock: 37)
        let options = IQOptions(sampleRateHz: 1e6, centerHz: 100e6, fftSize: 256, averaging: 8)
        let frames = try bytes.withUnsafeBytes { raw in
            try readAll(try IQSpectrumReader(input: ByteInput(bytes: raw), format: .cs8, sampleRateHz: 1e6,
                                                   segments: [], options: options, metadataFormat: "cs8"))
        }
        #expect(frames.count == 8)
        let burstBin = Int(((100.25e6 - frames[0].startHz) / frames[0].binWidthHz).rounded(.down))
        // bin k centred on centre + (k − N/2)·rate/N: bin 0's lower edge half a bin below 99.5 MHz
        #expect(frames[0].startHz == 99.5e6 - 1e6 / 256 / 2)
        #expect(frames[0].binWidthHz == 1e6 / 256)
        // block 37 lies in frame 4 (blocks 32…39)
        for (k, frame) in frames.enumerated() {
            let peak = frame.powerDB[burstBin]
            let median = frame.powerDB.sorted()[128]
            if k == 4 {
                // amplitude 100/128 → -2.1 dBFS, averaged over 8 blocks → about -11 dB
                #expect(abs(peak - (-11.2)) < 1.5, "burst \(peak)")
                #expect(peak - median > 25)
            } else {
                #expect(peak - median < 10)
            }
        }
        #expect(frames[4].timestamp == Double(40 * 256) / 1e6)
    }

    private func writeRecording(_ directory: URL, meta: String, data: [UInt8]) throws -> String {
        let base = directory.appendingPathComponent("rec").path
        try Data(meta.utf8).write(to: URL(fileURLWithPath: base + ".sigmf-meta"))
        try Data(data).write(to: URL(fileURLWithPath: base + ".sigmf-data"))
        return base + ".sigmf-meta"
    }

    @Test func sigmfRecordingsCarryRateFrequencyAndTime() throws {
        let directory = try temporaryDirectory("sigmf")
        defer { try? FileManager.default.removeItem(at: directory) }
        let meta = """
            {"global": {"core:datatype": "ci8", "core:sample_rate": 1000000, "core:version": "1.0.0"},
             "captures": [{"core:sample_start": 0, "core:frequency": 433920000, "core:datetime": "2024-05-01T12:00:00Z"}],
             "annotations": []}
            """
        let path = try writeRecording(directory, meta: meta, data: burstRecording(blocks: 16, burstBlock: 3))
        #expect(try CaptureFormat.detect(path: path) == .sigmf)
        let reader = try CaptureFormat.sigmf.openReader(path: path, options: CaptureReadOptions(iq: IQOptions(fftSize: 256, averaging: 4)))
        let frames = try readAll(reader)
        #expect(frames.count == 4)
        #expect(frames[0].startHz == 433.92e6 - 0.5e6 - 1e6 / 256 / 2)
        #expect(frames[0].timestamp == 1_714_564_800 + 1024.0 / 1e6)
    }

    @Test(arguments: [
        (#"{"global": {"core:sample_rate": 1e6, "core:version": "1.0.0"}, "captures": []}"#, "core:datatype"),
        (#"{"global": {"core:datatype": "ci8", "core:version": "1.0.0"}, "captures": []}"#, "core:sample_rate"),
        (#"{"global": {"core:datatype": "ci8", "core:sample_rate": 1e6}, "captures": []}"#, "core:version"),
        (#"{"global": {"core:datatype": "ri8", "core:sample_rate": 1e6, "core:version": "1"}, "captures": []}"#, "not supported"),
        (#"{"global": {"core:datatype": "cf32_le", "core:sample_rate": 1e6, "core:version": "1"}, "captures": []}"#, "not a whole number"),
        (#"{"global": {"core:datatype": "ci8", "core:sample_rate": 1e6, "core:version": "1"}, "captures": [{"core:sample_start": 99999}]}"#, "beyond"),
        (#"{"global": {"core:datatype": "ci8", "core:sample_rate": -5, "core:version": "1"}, "captures": []}"#, "positive"),
        (#"{"global": {"core:datatype": "ci8", "core:sample_rate": 1e6, "core:version": "1"}}"#, "captures"),
        (#"{"global": "#, "JSON"),
    ])
    func badMetadataIsOneClearError(_ meta: String, _ expected: String) throws {
        let directory = try temporaryDirectory("sigmf-bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        // 1026 bytes: 513 ci8 samples, not a whole number of cf32 samples
        let path = try writeRecording(directory, meta: meta, data: [UInt8](repeating: 1, count: 1026))
        let error = captureError { _ = try SigMFRecording(path: path) }
        #expect(error?.file.hasSuffix("rec.sigmf-meta") == true)
        #expect(error?.detail.contains(expected) == true, "\(String(describing: error))")
    }

    @Test func rawIQWithoutARateIsRefused() throws {
        let directory = try temporaryDirectory("raw")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("x.cu8").path
        try Data([UInt8](repeating: 128, count: 4096)).write(to: URL(fileURLWithPath: path))
        let error = captureError { _ = try CaptureFormat.cu8.openReader(path: path, options: CaptureReadOptions()) }
        #expect(error?.detail.contains("--rate") == true)
        let reader = try CaptureFormat.cu8.openReader(
            path: path, options: CaptureReadOptions(iq: IQOptions(sampleRateHz: 2.4e6, fftSize: 512, averaging: 2)))
        #expect(try readAll(reader).count == 2)
    }

    @Test(arguments: [(0, 64, "empty: no I/Q samples"), (3, 64, "3 bytes: 1 whole cs8 sample, fewer than one FFT of 64"),
                      (200, 128, "200 bytes: 100 whole cs8 samples, fewer than one FFT of 128 samples (256 bytes of cs8)")])
    func aRecordingShorterThanOneFFTIsAnErrorNotNoFrames(bytes: Int, fftSize: Int, expected: String) throws {
        // the head of a real HackRF capture (Fixtures/iq-rc-car-2g4)
        let real = try [UInt8](Data(contentsOf: URL(fileURLWithPath: IQBinConventionTests.light)))
        let error = captureError {
            _ = try Array(real.prefix(bytes)).withUnsafeBytes { raw in
                try readAll(try IQSpectrumReader(input: ByteInput(bytes: raw, name: "light.cs8"), format: .cs8,
                                                 sampleRateHz: 2e6, segments: [],
                                                 options: IQOptions(fftSize: fftSize, averaging: 1), metadataFormat: "cs8"))
            }
        }
        #expect(error?.file == "light.cs8")
        #expect(error?.detail.contains(expected) == true, "\(String(describing: error))")
    }
}
