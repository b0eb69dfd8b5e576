/// soapy_power's binary output (`--format soapy_power_bin`, files named .sdrff
/// or .soapy): records that start with the magic "SDRFF".
struct SoapyPowerBinCodec: PathReaderCodec, SinkWriterCodec {
    typealias Reader = SoapyPowerBinReader
    typealias Writer = SoapyPowerBinWriter
    let name = "soapy_power_bin"
    let summary = "soapy_power's binary records"
    let recognition = CaptureRecognition(magic: SoapyPowerBinReader.magic)
    let outputExtensions = ["sdrff", "soapy"]
}

extension CaptureFormat {
    public static let soapyPowerBin = CaptureFormat(SoapyPowerBinCodec())
}
