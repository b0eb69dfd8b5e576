import Capture

func fuzzHackRFSweepBinary(_ bytes: UnsafeRawBufferPointer) {
    drain(bytes) { HackRFSweepBinaryReader(input: $0, options: $1) }
}
