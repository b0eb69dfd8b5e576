import Capture
import Signals

func fuzzSDB2Scan(_ bytes: UnsafeRawBufferPointer) {
    drainScan(bytes) { try SDB2ScanReader.read(bytes: $0, name: "fuzz", options: $1) }
}
