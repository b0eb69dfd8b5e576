// The RTL-SDR hop path at 2.4 MS/s: one second of u8 I/Q (4.8 MB) through
// the hop accumulator (u8 → window → FFTW → |X|² summed per hop), and the
// per-hop cost with its malloc count (hop assembly must allocate nothing).
// CPU share of one core at 2.4 MS/s = wall time of "one second of samples".
import Benchmark
import DSP
import Devices

/// bytes of u8 I/Q per second at 2.4 MS/s
let bytesPerSecond = 4_800_000

/// Deterministic u8 I/Q (an LCG; the values only need to be non-trivial).
func syntheticIQ(_ count: Int) -> [UInt8] {
    var state: UInt32 = 12345
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        maxDuration: .seconds(3),
        maxIterations: 100_000
    )

    // rtl_power -f 88M:108M:125k (32 bins) and a fine 1k-bin plan on one 2.4 MHz hop
    let plans: [(String, RTLSDRHopPlan)] = [
        ("FM band 125k bins", try! RTLSDRHopPlan(lowerHz: 88_000_000, upperHz: 108_000_000, maxBinHz: 125_000, crop: 0)),
        ("2.4 MHz 1k bins", try! RTLSDRHopPlan(lowerHz: 99_000_000, upperHz: 101_400_000, maxBinHz: 1_000, crop: 0)),
    ]
    for (name, plan) in plans {
        let accumulator = RTLSDRHopAccumulator(plan: plan, window: .hamming)
        let hopBuffer = syntheticIQ(plan.bufferBytes)
        let second = syntheticIQ(bytesPerSecond - bytesPerSecond % plan.bufferBytes)

        Benchmark("one hop, \(name) (N=\(plan.fftSize))") { benchmark in
            hopBuffer.withUnsafeBytes { bytes in
                for _ in benchmark.scaledIterations {
                    accumulator.add(hop: 0, iq: bytes)
                }
            }
            blackHole(accumulator.samples(hop: 0))
        }

        Benchmark("one second at 2.4 MS/s, \(name) (N=\(plan.fftSize))",
                  configuration: .init(maxIterations: 20)) { benchmark in
            second.withUnsafeBytes { bytes in
                for _ in benchmark.scaledIterations {
                    var offset = 0
                    var hop = 0
                    while offset < bytes.count {
                        accumulator.add(hop: hop, iq: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + plan.bufferBytes)]))
                        offset += plan.bufferBytes
                        hop = (hop + 1) % plan.hopCount
                    }
                }
            }
            blackHole(accumulator.samples(hop: 0))
        }
    }
}
