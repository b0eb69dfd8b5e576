import Capture
import Foundation

/// The first 4 bytes choose the data file's size; the rest is the .sigmf-meta JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 4 else { return 0 }
    let dataBytes = Int(UnsafeRawPointer(data).loadUnaligned(as: UInt32.self) & 0xFFFF_FFF)
    let meta = Data(bytes: data + 4, count: size - 4)
    _ = try? SigMFRecording(metaPath: "fuzz.sigmf-meta", metaJSON: meta, dataPath: "fuzz.sigmf-data", dataBytes: dataBytes)
    return 0
}
