import Capture

func fuzzRTLPowerCSV(_ bytes: UnsafeRawBufferPointer) {
    drain(bytes) { RTLPowerCSVReader(input: $0, options: $1) }
}
