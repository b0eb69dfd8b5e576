/// soapy_power's binary output (`--format soapy_power_bin`, files named .sdrff
/// or .soapy): records that start with the magic "SDRFF".
struct SoapyPowerBinCodec: ReadableCaptureCodec, WritableCaptureCodec {
    let name = "soapy_power_bin"
    let summary = "soapy_power's binary records"
    let recognition = CaptureRecognition(magic: SoapyPowerBinReader.magic)
    let outputExtensions = ["sdrff", "soapy"]

    func makeReader(path: String, options: CaptureReadOptions) throws -> any SpectrumFrameReader {
        try SoapyPowerBinReader(path: path, options: options)
    }

    func makeWriter(path: String, options: CaptureWriteOptions) throws -> any SpectrumFrameWriter {
        SoapyPowerBinWriter(sink: try makeSink(path: path))
    }
}

extension CaptureFormat {
    public static let soapyPowerBin = CaptureFormat(SoapyPowerBinCodec())
}
