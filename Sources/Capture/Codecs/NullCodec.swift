import Signals

/// Frames read and dropped: `convert IN /dev/null --format null` checks a
/// file and counts its frames.
struct NullCodec: WritableCaptureCodec {
    let name = "null"
    let summary = "nothing: frames are read and dropped (a check)"
    let recognition = CaptureRecognition.byNameOnly

    func makeWriter(path: String, options: CaptureWriteOptions) throws -> any SpectrumFrameWriter {
        DiscardingWriter()
    }

    /// nothing is written, so nothing needs renaming into place
    func makeAtomicWriter(path: String, options: CaptureWriteOptions) throws -> AtomicFrameWriter {
        AtomicFrameWriter(writer: DiscardingWriter(), output: nil)
    }
}

extension CaptureFormat {
    public static let null = CaptureFormat(NullCodec())
}

/// Drops every frame.
final class DiscardingWriter: SpectrumFrameWriter {
    func write(_ frame: SpectrumFrame) throws {}
    func finish() throws {}
}
