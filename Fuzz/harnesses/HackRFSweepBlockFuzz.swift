import Analyzers
import DSP
import Devices
import Signals

/// HackRF sweep blocks as the firmware sends them, built around the fuzzed
/// bytes so they get past the header check: bytes 0–3 choose a plan (start,
/// span, bin width), byte 4 the number of blocks (0…7), then 2 bytes per block
/// choose its frequency (a step of the plan, a frequency off the 5 MHz grid,
/// or a raw one) and damage (broken magic, a short block); the rest of the
/// input, repeated, is every block's int8 I/Q payload. Blocks go the way
/// `HackRFSweepDriver.ingest` and `HackRFSpectrumSource` send them: header
/// check, `SweepFFT`, `SweepFrameAssembler`. Every frame spans the plan.
func fuzzHackRFSweepBlock(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count >= 5 else { return }
    let start = (Int(bytes[0]) | Int(bytes[1]) << 8) % (HackRFSweepPlan.maximumMHz + 50)
    let binWidths: [Double] = [1e6, 250e3, 100e3, 20e3, 5e6, 6e6]
    guard let plan = try? HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: start, stopMHz: start + 1 + Int(bytes[2]) * 4)],
                                          binWidthHz: binWidths[Int(bytes[3]) % binWidths.count]) else { return }
    let blockCount = Int(bytes[4] % 8)
    let payloadStart = 5 + 2 * blockCount
    guard bytes.count >= payloadStart else { return }
    let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart...])
    let fft = SweepFFT(fftSize: plan.fftSize) // FFTW_ESTIMATE plans: cheap per input
    let assembler = SweepFrameAssembler(plan: plan)
    let block = UnsafeMutableRawBufferPointer.allocate(byteCount: HackRFProtocol.blockSize, alignment: 16)
    defer { block.deallocate() }
    var accepted = 0
    for index in 0..<blockCount {
        let kind = bytes[5 + 2 * index], damage = bytes[6 + 2 * index]
        let frequency: UInt64
        switch kind {
        case 0..<200: frequency = plan.stepFrequenciesHz[Int(kind) % plan.stepFrequenciesHz.count]
        case 200..<250: frequency = assembler.startHz + UInt64(kind - 200) * 1_000_000
        default: frequency = UInt64(damage) << 56 | UInt64(kind)
        }
        for i in HackRFProtocol.headerSize..<block.count {
            block[i] = payload.isEmpty ? 0 : payload[(i - HackRFProtocol.headerSize) % payload.count]
        }
        HackRFBlockHeader.write(frequencyHz: frequency, into: block)
        if damage & 1 == 1 { block[1] = damage }
        let length = damage & 2 == 2 ? HackRFProtocol.blockSize - Int(damage) : HackRFProtocol.blockSize
        let received = UnsafeRawBufferPointer(rebasing: block[0..<length])
        guard received.count == HackRFProtocol.blockSize, let hz = HackRFBlockHeader.frequency(of: received),
              plan.isStepFrequency(hz) else { continue }
        accepted += 1
        fft.process(received)
        precondition(fft.lowerQuarter.count == assembler.binsPerQuarter && fft.upperQuarter.count == assembler.binsPerQuarter,
                     "quarter size differs from the plan")
        if let frame = assembler.add(frequencyHz: hz, lowerQuarter: fft.lowerQuarter, upperQuarter: fft.upperQuarter,
                                     timestamp: Double(index)) {
            precondition(frame.powerDB.count == assembler.binCount && frame.binWidthHz > 0
                             && frame.startHz == Double(plan.ranges[0].startMHz) * 1e6, "frame does not span the plan")
        }
    }
    precondition(assembler.misplacedBlocks <= accepted, "more misplaced blocks than blocks")
}

