import Capture

func fuzzSoapyPowerBin(_ bytes: UnsafeRawBufferPointer) {
    drain(bytes) { SoapyPowerBinReader(input: $0, options: $1) }
}
