/// The one list of file formats. `--format` and `--in-format` parse against
/// it, help texts and the readable/writable lists are made from it, and
/// `CaptureFormat.detect`, `forOutput`, `openReader` and `openWriter` go
/// through it, so a format added here reaches `convert`, `export`, `replay`,
/// `meter --input` and `events --input` alike.
///
/// Its order is the order of `readable`/`writable` in help and messages, and
/// the order detection tries codecs within one stage (`CaptureRecognition`);
/// no two codecs claim the same thing in one stage (`CaptureCodecListTests`).
/// The static names beside each codec (`CaptureFormat.rtlPower` …) are for
/// code that names one format; a new format needs one only if code does.
public enum CaptureCodecs {
    public static let all: [any CaptureCodec] = [
        CaptureStoreCodec(),
        RTLPowerCodec(),
        HackRFSweepCodec(),
        HackRFSweepBinaryCodec(),
        SoapyPowerBinCodec(),
        SigMFCodec(),
        RawIQCodec(sampleFormat: .cu8), RawIQCodec(sampleFormat: .cs8),
        RawIQCodec(sampleFormat: .cs16), RawIQCodec(sampleFormat: .cf32),
        SDB2Codec(), WWBCSVCodec(), WSMCodec(), RFExplorerCSVCodec(), RigolTraceCodec(),
        CSVExportCodec(),
        NullCodec(),
    ]
}
