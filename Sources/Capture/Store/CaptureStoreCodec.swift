import Foundation
import Signals

/// tscope's own capture store (SQLite, `Firmware-Notes/capture-format.md`):
/// here, beside the store, so the parsers outside Store/ need none of it.
/// Writing to a store that exists appends a session, never overwrites.
struct CaptureStoreCodec: ReadableCaptureCodec, WritableCaptureCodec {
    let name = "tscope"
    let summary = "tscope's capture store (SQLite)"
    let recognition = CaptureRecognition(extensions: ["tscope"], magic: Array("SQLite format 3".utf8))
    let outputExtensions = ["tscope"]

    func makeReader(path: String, options: CaptureReadOptions) throws -> any SpectrumFrameReader {
        try CaptureStoreReader(path: path, strict: options.strict)
    }

    func makeWriter(path: String, options: CaptureWriteOptions) throws -> any SpectrumFrameWriter {
        try storeWriter(path: path, metadata: options.metadata, atomicSession: false)
    }

    /// A store that exists (and is a regular file) gets the new session as one transaction, rolled back
    /// whole on failure; a new store is written under a temporary name and renamed, as other formats are.
    func makeAtomicWriter(path: String, options: CaptureWriteOptions) throws -> AtomicFrameWriter {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if size > 0, !AtomicOutput.writesInPlace(path) {
            return AtomicFrameWriter(writer: try storeWriter(path: path, metadata: options.metadata, atomicSession: true),
                                     output: nil)
        }
        let output = AtomicOutput(target: path)
        do {
            let writer = try storeWriter(path: output.path, metadata: options.metadata, atomicSession: true)
            return AtomicFrameWriter(writer: writer, output: output)
        } catch {
            throw output.naming(error)
        }
    }

    private func storeWriter(path: String, metadata: CaptureMetadata?, atomicSession: Bool) throws -> CaptureStoreWriter {
        var stored = metadata ?? CaptureMetadata(format: "tscope")
        stored.format = "tscope"
        return try CaptureStoreWriter(path: path, metadata: stored,
                                      session: CaptureSessionInfo(startedAt: unixTimeNow(), label: stored.label,
                                                                  operatorName: stored.operatorName,
                                                                  band: stored.span, binWidthHz: stored.binWidthHz),
                                      options: CaptureStoreWriter.Options(atomicSession: atomicSession))
    }
}

extension CaptureFormat {
    public static let tscope = CaptureFormat(CaptureStoreCodec())
}
