import CFFTW

/// The FFTW library linked at run time.
public enum FFTWLibrary {
    /// FFTW's own version string, e.g. "fftw-3.3.10-sse2-avx" (`fftwf_version`).
    public static var version: String { String(cString: tscope_fftwf_version()) }
}
