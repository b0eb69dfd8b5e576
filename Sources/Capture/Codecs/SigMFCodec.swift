/// A SigMF recording of raw I/Q (`NAME.sigmf-meta` beside `NAME.sigmf-data`),
/// read as spectra. `record --raw` writes SigMF itself (`SigMFWriter`, from
/// the device's samples); frames cannot be turned back into samples.
struct SigMFCodec: ReadableCaptureCodec {
    let name = "sigmf"
    let summary = "SigMF raw I/Q (.sigmf-meta beside .sigmf-data)"
    let recognition = CaptureRecognition(extensions: ["sigmf-meta", "sigmf-data", "sigmf"])

    func makeReader(path: String, options: CaptureReadOptions) throws -> any SpectrumFrameReader {
        try SigMFRecording(path: path).makeReader(options: options.iq)
    }
}

extension CaptureFormat {
    public static let sigmf = CaptureFormat(SigMFCodec())
}
