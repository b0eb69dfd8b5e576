/// How readers treat what a file does not say and what is damaged.
public struct CaptureReadOptions: Sendable {
    /// How to read wall-clock times written without a zone (rtl_power and
    /// hackrf_sweep print the recording machine's local time).
    public enum TimeZoneRule: Sendable, Equatable {
        /// this machine's local zone (with its daylight-saving rules)
        case local
        /// a fixed offset from UTC [s], e.g. 32400 for Japan
        case utcOffset(seconds: Int)
    }

    /// make recoverable damage (one bad line) fatal instead of skipping and counting it
    public var strict: Bool
    public var timeZone: TimeZoneRule
    /// raw I/Q inputs: what the file does not carry
    public var iq: IQOptions

    public init(strict: Bool = false, timeZone: TimeZoneRule = .local, iq: IQOptions = IQOptions()) {
        self.strict = strict
        self.timeZone = timeZone
        self.iq = iq
    }
}

/// Settings for turning raw I/Q into spectrum frames.
public struct IQOptions: Sendable {
    /// sample rate [samples/s]; required for bare .cu8/.cs8/.cf32 files
    public var sampleRateHz: Double?
    /// centre frequency [Hz]; 0 if unknown
    public var centerHz: Double?
    /// FFT size [bins] (a power of two keeps FFTW fast)
    public var fftSize: Int
    /// FFTs averaged per frame (Welch, non-overlapping); 1 keeps every short burst sharp
    public var averaging: Int
    /// time of the first sample [s since the Unix epoch]; 0 if unknown
    public var startTime: Double?

    public init(sampleRateHz: Double? = nil, centerHz: Double? = nil, fftSize: Int = 1024, averaging: Int = 16,
                startTime: Double? = nil) {
        self.sampleRateHz = sampleRateHz
        self.centerHz = centerHz
        self.fftSize = fftSize
        self.averaging = averaging
        self.startTime = startTime
    }
}
