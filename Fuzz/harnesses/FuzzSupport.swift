import Capture
import Signals

/// Reads every frame `make` yields from `data`, lenient then strict; only a
/// crash, a hang or a leak is a finding (CaptureErrors are the expected answer).
func drain(_ data: UnsafePointer<UInt8>, _ size: Int, _ make: (ByteInput, CaptureReadOptions) -> SpectrumFrameReader) {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
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
