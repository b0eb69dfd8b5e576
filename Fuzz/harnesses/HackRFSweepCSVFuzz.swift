import Capture

func fuzzHackRFSweepCSV(_ bytes: UnsafeRawBufferPointer) {
    drain(bytes) { HackRFSweepCSVReader(input: $0, options: $1) }
}
