import CFFTW
import Foundation

/// The one lock around FFTW's planner. Creating and destroying plans touches
/// FFTW's global planner state and must be serialised process-wide; only
/// `fftwf_execute` on distinct plans may run in parallel (FFTW 3 manual,
/// "Thread safety"). Every FFT user in tscope plans through here, so a sweep,
/// an RTL-SDR hop spectrum and an I/Q import made on different threads at
/// once never plan concurrently.
public enum FFTWPlanner {
    /// a plain lock: the plan and buffers are the caller's (not sent anywhere), so no Mutex state to hand over
    private static let planner = NSLock()

    /// A forward complex transform of `size` points from `input` to `output`
    /// (FFTW_ESTIMATE: no timing runs, so making one costs microseconds).
    public static func forwardPlan(size: Int, input: UnsafeMutablePointer<fftwf_complex>,
                                   output: UnsafeMutablePointer<fftwf_complex>) -> fftwf_plan {
        planner.lock()
        defer { planner.unlock() }
        return fftwf_plan_dft_1d(Int32(size), input, output, FFTW_FORWARD, UInt32(FFTW_ESTIMATE))!
    }

    /// Destroys a plan made by `forwardPlan`.
    public static func destroy(_ plan: fftwf_plan) {
        planner.lock()
        defer { planner.unlock() }
        fftwf_destroy_plan(plan)
    }
}
