#ifndef CECGKERNELS_H
#define CECGKERNELS_H

// Per-sample ECG loops whose Swift form could not use the processor's wider vector
// registers: Swift compiles for the baseline x86-64 (128-bit SSE2) and has no way to
// ask for more in one function. Each kernel is built twice (baseline and AVX) and the
// dynamic loader picks the one the processor runs (target_clones). Each does the
// floating-point operations of the Swift code it replaces, in the same order, with no
// fused multiply-add, so its results are the same bits on either path.

// One batch of QRSDetector's band-pass (a high-pass and a low-pass biquad section in
// transposed direct form II) and its two matched filters (QRSDetector.filterAndMatchBatch).
//   samples[count]: the input [mV] (NaN holds the last value; before the first finite
//     sample the output is 0 and nothing is primed)
//   sections[14]: b0 b1 b2 a1 a2 s1 s2 of the high-pass, then of the low-pass; the states
//     s1 s2 are updated
//   primed, last_input: whether the sections were primed on the first finite sample, and
//     the last finite input (updated)
//   narrow[taps], wide[taps]: the matched filters' taps
//   input[taps - 1 + count]: the matched filters' input; the first taps - 1 must hold the
//     previous batch's last band-passed samples; the batch's are written after them
//   filtered[count]: the band-passed samples; energy[count]: the smaller of the two
//     matched filters' squared outputs at each
void tscope_qrs_band_pass_and_match(const float *samples, long count, double *sections,
                                    int *primed, double *last_input,
                                    const double *narrow, const double *wide, long taps,
                                    double *input, double *filtered, double *energy);

// BeatShape.correlation's sums (sum of x, of y, of x², of y², of x·y, and the count) for the
// shifts first … first + shift_count − 1 (1 ≤ shift_count ≤ 5) of a[a_count] against b[b_count],
// each summed as the Swift loop sums it; into sums[k * 5 + j] for sum k and shift first + j.
void tscope_shifted_correlation_sums(const float *a, long a_count, const float *b, long b_count,
                                     long first, long shift_count, double *sums);

#endif
