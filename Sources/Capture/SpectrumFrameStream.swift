import Signals

/// What is known about a capture besides its frames. Importers fill what
/// their format carries; everything is optional except the source format.
public struct CaptureMetadata: Sendable, Equatable {
    /// format the frames were read from, e.g. "tscope", "rtl_power", "hackrf_sweep"
    public var format: String
    /// analyzer name, e.g. "HackRF One"
    public var device: String?
    public var serial: String?
    /// free-form gain settings as the device names them, e.g. "lna=16 vga=20 amp=0"
    public var gains: String?
    /// band covered [Hz]
    public var span: FrequencyRange?
    /// bin width [Hz]
    public var binWidthHz: Double?
    public var label: String?
    public var operatorName: String?
    /// offset of the recording machine's local time from UTC [s]
    public var utcOffsetSeconds: Int?
    /// tscope version that wrote the file
    public var writerVersion: String?
    /// the converter in front of the analyzer it was recorded with
    /// (`--frequency-offset`): its frames are in real frequencies already;
    /// this says how they were reached
    public var conversion: FrequencyConversion?

    public init(format: String) {
        self.format = format
    }

    /// what the levels are in: dBm where the recording says so (`unit=dBm`
    /// in `gains`: a calibrated analyzer, a tinySA, an RF Explorer), else dB
    public var levelUnit: PowerUnit { PowerUnit(recordedIn: gains) }
}

/// A source of spectrum frames read in order from a file, in constant memory.
///
/// `next` fills `frame` (reusing its storage) and returns false at the end.
/// Damage that is recoverable (one bad line in a long CSV) is skipped and
/// counted in `skipped` (fatal when the reader was made strict); anything
/// else throws a `CaptureError`.
public protocol SpectrumFrameReader: AnyObject {
    var metadata: CaptureMetadata { get }
    /// records skipped as damaged so far
    var skipped: Int { get }
    /// bytes consumed so far and the total, for progress bars (total nil if unknown)
    var progress: (done: Int, total: Int?) { get }
    func next(into frame: inout SpectrumFrame) throws -> Bool
}

/// A sink for spectrum frames in some file format. `finish` flushes and
/// closes; frames written before an error are kept.
public protocol SpectrumFrameWriter: AnyObject {
    func write(_ frame: SpectrumFrame) throws
    func finish() throws
}
