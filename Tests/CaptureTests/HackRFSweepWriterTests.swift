import Signals
import Foundation
import Testing
@testable import Capture

@Suite struct FixedPointFormatTests {
    private func fast(_ value: Float) -> String {
        var bytes = [UInt8](repeating: 0, count: 64)
        let n = bytes.withUnsafeMutableBufferPointer { FixedPointFormat.writeTwoDecimals(value, to: $0.baseAddress!) }
        return String(decoding: bytes[0..<n], as: UTF8.self)
    }

    @Test func matchesPrintfOnRandomDecibelValues() {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<200_000 {
            let value = Float.random(in: -160...40, using: &rng)
            #expect(fast(value) == String(format: "%.2f", Double(value)), "value \(value)")
        }
    }

    @Test func matchesPrintfOnTiesAndEdgeCases() {
        // Exact binary ties (x.125, x.375 …) round half to even in glibc.
        let values: [Float] = [0, -0.0, 0.125, 0.375, -0.125, -2.625, 1.005, -0.004, -0.005, 99.995,
                               -99.995, 12345.675, 1e-8, -1e-8, 65504, 1e9, -3.4e38, Float.greatestFiniteMagnitude]
        for value in values {
            #expect(fast(value) == String(format: "%.2f", Double(value)), "value \(value)")
        }
    }

    @Test func nonFiniteValuesPrintLikeGlibc() {
        #expect(fast(-.infinity) == "-inf")
        #expect(fast(.infinity) == "inf")
        #expect(fast(.nan) == "nan")
        #expect(fast(-Float.nan) == "-nan")
    }
}

@Suite struct HackRFSweepWriterTests {
    /// Writes through a temp file and returns its bytes.
    private func capture(_ layout: HackRFSweepWriter.Layout, fftSize: Int,
                         _ body: (HackRFSweepWriter) throws -> Void) throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("tscope-writer-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try OutputSink.file(path: path)
        let writer = HackRFSweepWriter(sink: sink, layout: layout, fftSize: fftSize)
        try body(writer)
        try writer.flush()
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func textLayoutIsHackRFSweeps() throws {
        setenv("TZ", "UTC", 1)
        tzset()
        let lower: [Float] = [-70.123, -65.5, -60, -0.001, 3.14159]
        let upper: [Float] = [-80, -81.25, -82.375, -83, -84]
        let bytes = try capture(.text, fftSize: 20) { writer in
            try lower.withUnsafeBufferPointer { l in
                try upper.withUnsafeBufferPointer { u in
                    // 2026-11-21 10:15:00 UTC
                    try writer.writeBlock(frequencyHz: 2_400_000_000, seconds: 1_795_256_100, microseconds: 4_321,
                                          lower: l, upper: u)
                }
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text == """
            2026-11-21, 10:15:00.004321, 2400000000, 2405000000, 1000000.00, 20, -70.12, -65.50, -60.00, -0.00, 3.14
            2026-11-21, 10:15:00.004321, 2410000000, 2415000000, 1000000.00, 20, -80.00, -81.25, -82.38, -83.00, -84.00

            """)
    }

    @Test func binaryLayoutIsHackRFSweeps() throws {
        let lower: [Float] = [-1, -2]
        let upper: [Float] = [-3, -4]
        let bytes = try capture(.binary, fftSize: 8) { writer in
            try lower.withUnsafeBufferPointer { l in
                try upper.withUnsafeBufferPointer { u in
                    try writer.writeBlock(frequencyHz: 100_000_000, seconds: 0, microseconds: 0, lower: l, upper: u)
                }
            }
        }
        #expect(bytes.count == 2 * (4 + 16 + 8))
        func u32(_ at: Int) -> UInt32 { bytes[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        func u64(_ at: Int) -> UInt64 { bytes[at..<at + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) } }
        func f32(_ at: Int) -> Float { Float(bitPattern: u32(at)) }
        #expect(u32(0) == 24)
        #expect(u64(4) == 100_000_000)
        #expect(u64(12) == 105_000_000)
        #expect(f32(20) == -1 && f32(24) == -2)
        #expect(u32(28) == 24)
        #expect(u64(32) == 110_000_000)
        #expect(u64(40) == 115_000_000)
        #expect(f32(48) == -3 && f32(52) == -4)
    }
}
