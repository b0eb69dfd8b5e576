import CFFTW
import Foundation
import ThreadKit

/// The one lock around FFTW's planner. Creating and destroying plans touches
/// FFTW's global planner state and must be serialised process-wide; only
/// `fftwf_execute` on distinct plans may run in parallel (FFTW 3 manual,
/// "Thread safety"). Every FFT user in tscope plans through here, so a sweep,
/// an RTL-SDR hop spectrum and an I/Q import made on different threads at
/// once never plan concurrently.
public enum FFTWPlanner {
    /// held while FFTW's planner runs: no state of its own (the plans and buffers are the caller's)
    private static let planner = Guarded(())

    /// A forward complex transform of `size` points from `input` to `output`
    /// (FFTW_ESTIMATE: no timing runs, so making one costs microseconds).
    public static func forwardPlan(size: Int, input: UnsafeMutablePointer<fftwf_complex>,
                                   output: UnsafeMutablePointer<fftwf_complex>) -> fftwf_plan {
        // the buffers go in by address so that they stay the caller's (a pointer would join the lock's region)
        let (inputAddress, outputAddress) = (UInt(bitPattern: input), UInt(bitPattern: output))
        let plan = planner.withLock { _ in
            UInt(bitPattern: fftwf_plan_dft_1d(Int32(size), UnsafeMutablePointer(bitPattern: inputAddress),
                                               UnsafeMutablePointer(bitPattern: outputAddress), FFTW_FORWARD,
                                               UInt32(FFTW_ESTIMATE)))
        }
        return fftwf_plan(bitPattern: plan)!
    }

    /// Destroys a plan made by `forwardPlan`.
    public static func destroy(_ plan: fftwf_plan) {
        let address = UInt(bitPattern: plan)
        planner.withLock { _ in fftwf_destroy_plan(fftwf_plan(bitPattern: address)) }
    }
}
