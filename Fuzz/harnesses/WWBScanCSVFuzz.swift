import Capture
import Signals

func fuzzWWBScanCSV(_ bytes: UnsafeRawBufferPointer) {
    drainScan(bytes) { try TwoColumnScanReader.read(bytes: $0, name: "fuzz", options: $1) }
}
