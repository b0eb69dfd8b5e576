import Capture
import Signals

func fuzzWSMScan(_ bytes: UnsafeRawBufferPointer) {
    drainScan(bytes) { try WSMScanReader.read(bytes: $0, name: "fuzz", options: $1) }
}
