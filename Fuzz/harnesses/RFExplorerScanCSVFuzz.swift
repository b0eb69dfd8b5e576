import Capture
import Signals

func fuzzRFExplorerScanCSV(_ bytes: UnsafeRawBufferPointer) {
    drainScan(bytes) { try RFExplorerScanReader.read(bytes: $0, name: "fuzz", options: $1) }
}
