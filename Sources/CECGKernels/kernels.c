#include "CECGKernels.h"

#include <math.h>
#include <string.h>

// The Swift code these replace never fuses a multiply and an add; neither may the compiler here.
#pragma clang fp contract(off)
#pragma STDC FP_CONTRACT OFF

// Built twice on x86-64, for the baseline and for AVX, the loader picking the one the processor
// runs; elsewhere (an ARM board) once, for what the compiler targets.
#if defined(__x86_64__)
#define KERNEL __attribute__((target_clones("avx", "default")))
#else
#define KERNEL
#endif

// Four doubles: two 128-bit operations on the baseline, one 256-bit with AVX; lane by lane
// the same IEEE operations either way (Swift's SIMD4<Double>).
typedef double double4 __attribute__((vector_size(32)));

// The helpers on four doubles are macros: a function taking or returning one would have a
// different calling convention in the two builds of the kernel.

// an unaligned load of four doubles
#define LOAD4(pointer) ({ double4 loaded_; memcpy(&loaded_, (pointer), sizeof loaded_); loaded_; })

// Swift's SIMD4.sum(): from -0.0, lane 0 to lane 3 in order
#define LANE_SUM(value) ((((-0.0 + (value)[0]) + (value)[1]) + (value)[2]) + (value)[3])

// Swift's min(x, y): y < x ? y : x
static inline double swift_min(double x, double y) { return y < x ? y : x; }

// MatchedFilterPair.smallerSquare: each filter's lanes and leftover taps summed, the smaller square
#define SMALLER_SQUARE(narrow, narrow_tail, wide, wide_tail) \
    smaller_of_squares(LANE_SUM(narrow) + (narrow_tail), LANE_SUM(wide) + (wide_tail))

static inline double smaller_of_squares(double narrow_sum, double wide_sum) {
    return swift_min(narrow_sum * narrow_sum, wide_sum * wide_sum);
}

// One biquad section in transposed direct form II (Biquad): coefficients and state.
typedef struct {
    double b0, b1, b2, a1, a2, s1, s2;
} section;

// Biquad.process: y = b0 x + s1; s1 = b1 x - a1 y + s2; s2 = b2 x - a2 y.
static inline double process(section *s, double x) {
    double y = s->b0 * x + s->s1;
    s->s1 = s->b1 * x - s->a1 * y + s->s2;
    s->s2 = s->b2 * x - s->a2 * y;
    return y;
}

// Biquad.dcGain: (b0 + b1 + b2) / (1 + a1 + a2).
static inline double dc_gain(const section *s) { return (s->b0 + s->b1 + s->b2) / (1 + s->a1 + s->a2); }

// Biquad.prime(with:): the state as if x had been the input forever.
static inline void prime(section *s, double x) {
    double y = dc_gain(s) * x;
    s->s2 = s->b2 * x - s->a2 * y;
    s->s1 = s->b1 * x - s->a1 * y + s->s2;
}

static section load_section(const double *values) {
    section s = {values[0], values[1], values[2], values[3], values[4], values[5], values[6]};
    return s;
}

static void store_section(const section *s, double *values) {
    values[5] = s->s1;
    values[6] = s->s2;
}

// QRSDetector.filterAndMatchBatch's bandPassed(_:): NaN holds the last finite input; before the
// first finite sample the output is 0; on it both sections are primed.
typedef struct {
    section high, low;
    int primed;
    double last;
} band_pass;

static inline double band_pass_sample(band_pass *filter, float sample) {
    double value = (double)sample;
    if (!(isfinite(value) || filter->primed)) return 0;
    double x = isfinite(value) ? value : filter->last;
    filter->last = x;
    if (!filter->primed) {
        // settled on x: the high-pass outputs 0, so the low-pass starts at 0, not at x
        prime(&filter->high, x);
        prime(&filter->low, x * dc_gain(&filter->high));
        filter->primed = 1;
    }
    return process(&filter->low, process(&filter->high, x));
}

KERNEL
void tscope_qrs_band_pass_and_match(const float *samples, long count, double *sections,
                                    int *primed, double *last_input,
                                    const double *narrow, const double *wide, long taps,
                                    double *input, double *filtered, double *energy) {
    band_pass filter = {load_section(sections), load_section(sections + 7), *primed, *last_input};
    const double *x = input; // x[offset ... offset + taps - 1]: output offset's taps, oldest first
    long block_end = taps / 4 * 4;
    long offset = 0;
    // two samples band-passed, then their two outputs (MatchedFilterPair.energies): each load of
    // the taps serves both
    for (; offset + 2 <= count; offset += 2) {
        double first = band_pass_sample(&filter, samples[offset]);
        double second = band_pass_sample(&filter, samples[offset + 1]);
        filtered[offset] = first;
        filtered[offset + 1] = second;
        input[taps - 1 + offset] = first;
        input[taps + offset] = second;
        double4 narrow0 = {0, 0, 0, 0}, wide0 = {0, 0, 0, 0}, narrow1 = {0, 0, 0, 0}, wide1 = {0, 0, 0, 0};
        long k = 0;
        for (; k < block_end; k += 4) {
            double4 narrow_four = LOAD4(narrow + k), wide_four = LOAD4(wide + k);
            double4 x0 = LOAD4(x + offset + k), x1 = LOAD4(x + offset + 1 + k);
            narrow0 = narrow0 + narrow_four * x0;
            wide0 = wide0 + wide_four * x0;
            narrow1 = narrow1 + narrow_four * x1;
            wide1 = wide1 + wide_four * x1;
        }
        double narrow_tail0 = 0, wide_tail0 = 0, narrow_tail1 = 0, wide_tail1 = 0;
        for (; k < taps; k++) {
            narrow_tail0 += narrow[k] * x[offset + k];
            wide_tail0 += wide[k] * x[offset + k];
            narrow_tail1 += narrow[k] * x[offset + 1 + k];
            wide_tail1 += wide[k] * x[offset + 1 + k];
        }
        energy[offset] = SMALLER_SQUARE(narrow0, narrow_tail0, wide0, wide_tail0);
        energy[offset + 1] = SMALLER_SQUARE(narrow1, narrow_tail1, wide1, wide_tail1);
    }
    // an odd count's last sample alone (MatchedFilterPair.energy)
    if (offset < count) {
        double value = band_pass_sample(&filter, samples[offset]);
        filtered[offset] = value;
        input[taps - 1 + offset] = value;
        double4 narrow0 = {0, 0, 0, 0}, wide0 = {0, 0, 0, 0};
        long k = 0;
        for (; k < block_end; k += 4) {
            double4 x0 = LOAD4(x + offset + k);
            narrow0 = narrow0 + LOAD4(narrow + k) * x0;
            wide0 = wide0 + LOAD4(wide + k) * x0;
        }
        double narrow_tail = 0, wide_tail = 0;
        for (; k < taps; k++) {
            narrow_tail += narrow[k] * x[offset + k];
            wide_tail += wide[k] * x[offset + k];
        }
        energy[offset] = SMALLER_SQUARE(narrow0, narrow_tail, wide0, wide_tail);
    }
    store_section(&filter.high, sections);
    store_section(&filter.low, sections + 7);
    *primed = filter.primed;
    *last_input = filter.last;
}

// BeatShape.correlation's five sums and count for up to five consecutive shifts of `a` against `b`:
// for shift first + j (j < shift_count), over index i of b where 0 <= i + shift < a_count and
// i < b_count, in increasing i: sum_a += x, sum_b += y, sum_aa += x x, sum_bb += y y,
// sum_ab += x y, count += 1, with x = a[i + shift] and y = b[i] as doubles, each started at +0;
// written to sums[k * 5 + j] for k = 0 … 5 (sum_a, sum_b, sum_aa, sum_bb, sum_ab, count).
// Shifts 0 to 3 are the lanes of a four-double vector, shift 4 is summed in scalars beside them,
// so the five chains of additions overlap. Where a lane has no term at an index it adds +0, which
// leaves its sums as they were (a sum started at +0 is never -0); the count, a sum of ones, is
// the number of terms exactly. So each shift's sums are the scalar loop's, term for term.
KERNEL
void tscope_shifted_correlation_sums(const float *a, long a_count, const float *b, long b_count,
                                     long first, long shift_count, double *sums) {
    long low[5], high[5];
    long start = b_count, end = 0, both_start = 0, both_end = b_count;
    int active[5];
    for (int j = 0; j < 5; j++) {
        long shift = first + j;
        low[j] = shift < 0 ? -shift : 0;
        long limit = a_count - shift < b_count ? a_count - shift : b_count;
        high[j] = limit > low[j] ? limit : low[j];
        if (j >= shift_count) high[j] = low[j]; // a lane past the shifts asked: no terms
        active[j] = high[j] > low[j];
        if (active[j]) {
            if (low[j] < start) start = low[j];
            if (high[j] > end) end = high[j];
            if (low[j] > both_start) both_start = low[j];
            if (high[j] < both_end) both_end = high[j];
        }
    }
    double4 zero = {0, 0, 0, 0};
    double4 sum_a = zero, sum_b = zero, sum_aa = zero, sum_bb = zero, sum_ab = zero; // shifts 0 to 3
    double a4 = 0, b4 = 0, aa4 = 0, bb4 = 0, ab4 = 0;                                  // shift 4
    int fast = active[0] && active[1] && active[2] && active[3] && (shift_count == 4 || active[4]);
    if (end > start) {
        if (!fast || both_end < both_start) both_start = both_end = start; // every index lane by lane
        for (long i = start; i < end; i++) {
            double y = (double)b[i];
            if (i >= both_start && i < both_end) {
                // every shift has a term here
                // two loops, with and without the fifth shift: one testing shift_count at each index
                // took 9 % more instructions
                long next = both_end;
                if (shift_count == 5) {
                    for (; i < next; i++) {
                        double yi = (double)b[i];
                        double4 x = {(double)a[i + first], (double)a[i + first + 1], (double)a[i + first + 2], (double)a[i + first + 3]};
                        double4 y4 = {yi, yi, yi, yi};
                        sum_a = sum_a + x; sum_b = sum_b + y4; sum_aa = sum_aa + x * x;
                        sum_bb = sum_bb + y4 * y4; sum_ab = sum_ab + x * y4;
                        double x1 = (double)a[i + first + 4];
                        a4 += x1; b4 += yi; aa4 += x1 * x1; bb4 += yi * yi; ab4 += x1 * yi;
                    }
                } else {
                    for (; i < next; i++) {
                        double yi = (double)b[i];
                        double4 x = {(double)a[i + first], (double)a[i + first + 1], (double)a[i + first + 2], (double)a[i + first + 3]};
                        double4 y4 = {yi, yi, yi, yi};
                        sum_a = sum_a + x; sum_b = sum_b + y4; sum_aa = sum_aa + x * x;
                        sum_bb = sum_bb + y4 * y4; sum_ab = sum_ab + x * y4;
                    }
                }
                i--; // the loop's i++ moves on to both_end
                continue;
            }
            // some shifts have no term here: lane by lane, +0 for those
            double4 x = zero, y4 = zero;
            for (int j = 0; j < 4; j++) {
                if (i >= low[j] && i < high[j]) {
                    x[j] = (double)a[i + first + j];
                    y4[j] = y;
                }
            }
            sum_a = sum_a + x; sum_b = sum_b + y4; sum_aa = sum_aa + x * x;
            sum_bb = sum_bb + y4 * y4; sum_ab = sum_ab + x * y4;
            if (i >= low[4] && i < high[4]) {
                double x1 = (double)a[i + first + 4];
                a4 += x1; b4 += y; aa4 += x1 * x1; bb4 += y * y; ab4 += x1 * y;
            }
        }
    }
    double4 results[5] = {sum_a, sum_b, sum_aa, sum_bb, sum_ab};
    double fifth[5] = {a4, b4, aa4, bb4, ab4};
    for (int k = 0; k < 5; k++) {
        for (int j = 0; j < 4; j++) sums[k * 5 + j] = results[k][j];
        sums[k * 5 + 4] = fifth[k];
    }
    for (int j = 0; j < 5; j++) sums[25 + j] = (double)(high[j] - low[j]);
}
