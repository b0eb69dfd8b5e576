import Capture
import Signals

/// Reads every frame `make` yields from `bytes`, lenient then strict; only a
/// crash, a hang or a leak is a finding (CaptureErrors are the expected answer).
func drain(_ bytes: UnsafeRawBufferPointer, _ make: (ByteInput, CaptureReadOptions) -> SpectrumFrameReader) {
    for strict in [false, true] {
        let options = CaptureReadOptions(strict: strict, timeZone: .utcOffset(seconds: 0))
        let reader = make(ByteInput(bytes: bytes, name: "fuzz"), options)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var frames = 0
        while (try? reader.next(into: &frame)) == true {
            frames += 1
            precondition(frame.binWidthHz > 0 && frame.powerDB.count <= 1 << 24, "impossible frame")
        }
        _ = frames
    }
}

/// Cuts `bytes` into the pieces a device or terminal read might deliver: each
/// piece is 1…16 bytes long, its length taken from `seed` (a byte of the
/// input), so the fuzzer also explores how a parser resumes between reads.
func forEachChunk(_ bytes: UnsafeRawBufferPointer, seed: UInt8, _ body: (UnsafeRawBufferPointer) -> Void) {
    var offset = 0
    var step = UInt(seed)
    while offset < bytes.count {
        let length = seed == 0 ? bytes.count - offset : 1 + Int(step % 16)
        let end = min(offset + length, bytes.count)
        body(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
        offset = end
        step = step &* 31 &+ 7
    }
}

/// Reads every frame of a scan file read at once from `bytes` (WWB, WSM, RF Explorer, Rigol),
/// lenient then strict; a CaptureError is the expected answer to damage.
func drainScan(_ bytes: UnsafeRawBufferPointer, _ read: ([UInt8], CaptureReadOptions) throws -> SpectrumFrameReader) {
    for strict in [false, true] {
        let options = CaptureReadOptions(strict: strict, timeZone: .utcOffset(seconds: 0))
        guard let reader = try? read(Array(bytes), options) else { continue }
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        while (try? reader.next(into: &frame)) == true {
            precondition(frame.binWidthHz > 0 && frame.powerDB.count <= 1 << 24, "impossible frame")
        }
    }
}
