import Capture

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    drain(data, size) { HackRFSweepCSVReader(input: $0, options: $1) }
    return 0
}
