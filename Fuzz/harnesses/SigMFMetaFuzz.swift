import Capture
import Foundation

/// The first 4 bytes choose the data file's size; the rest is the .sigmf-meta JSON.
func fuzzSigMFMeta(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count >= 4 else { return }
    let dataBytes = Int(bytes.loadUnaligned(as: UInt32.self) & 0xFFFF_FFF)
    let meta = Data(bytes[4...])
    _ = try? SigMFRecording(metaPath: "fuzz.sigmf-meta", metaJSON: meta, dataPath: "fuzz.sigmf-data", dataBytes: dataBytes)
}
