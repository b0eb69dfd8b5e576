import Foundation
import Synchronization
import Testing
@testable import DSP

/// FFTW's planner is global state: every FFT user plans through FFTWPlanner's
/// one lock. Before it, SweepFFT and HopPowerSpectrum each had a lock of their
/// own, so plans made by the two at once could corrupt the planner.
@Suite struct FFTWPlannerTests {
    /// Many threads make and destroy plans of both users at once; every
    /// spectrum still puts a tone in its bin.
    @Test func plansMadeAndDestroyedFromManyThreadsAtOnceStayCorrect() {
        let threads = 8
        let rounds = 150
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<rounds {
                // sizes vary so FFTW makes new plans (not only reuses wisdom)
                let size = [64, 100, 128, 250, 256, 1020][(thread + round) % 6]
                let bin = 1 + (thread * 7 + round) % (size / 2 - 1)
                let iq = IQSynth.block(amplitude: 100, cyclesPerSample: Double(bin) / Double(size))
                if thread % 2 == 0 {
                    let fft = SweepFFT(fftSize: size)
                    let loudest = iq.withUnsafeBytes { bytes -> Int? in
                        let db = fft.process(bytes)
                        return db.indices.max { db[$0] < db[$1] }
                    }
                    if loudest != bin { failures.add(1, ordering: .relaxed) }
                } else {
                    let hop = HopPowerSpectrum(fftSize: size)
                    let unsigned = iq.prefix(2 * size).map { UInt8(bitPattern: $0) &+ 128 }
                    let power = UnsafeMutablePointer<Float>.allocate(capacity: size)
                    power.initialize(repeating: 0, count: size)
                    _ = unsigned.withUnsafeBytes { hop.accumulate($0, into: power) }
                    // FFT order: bin 0 = DC, so a tone of +bin cycles lands at index bin
                    let loudest = (0..<size).max { power[$0] < power[$1] }
                    if loudest != bin { failures.add(1, ordering: .relaxed) }
                    power.deallocate()
                }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
    }

    /// Nothing in Sources plans or destroys an FFTW plan but FFTWPlanner.
    @Test func noOtherFileCallsThePlanner() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var offenders: [String] = []
        var swiftFiles = 0
        for case let url as URL in files where url.pathExtension == "swift" {
            swiftFiles += 1
            let text = try String(contentsOf: url, encoding: .utf8)
            if url.lastPathComponent != "FFTWPlanner.swift",
               text.contains("fftwf_plan_") || text.contains("fftwf_destroy_plan") {
                offenders.append(url.lastPathComponent)
            }
        }
        #expect(swiftFiles > 50)
        #expect(offenders.isEmpty, "plan outside FFTWPlanner: \(offenders)")
    }
}
