import Capture
import Signals

func fuzzRigolTrace(_ bytes: UnsafeRawBufferPointer) {
    drainScan(bytes) { try RigolTraceScanReader.read(bytes: $0, name: "fuzz", options: $1) }
}
