#include "CECGKernels.h"

#include <math.h>
#include <string.h>

// The Swift code these replace never fuses a multiply and an add; neither may the compiler here.
#pragma clang fp contract(off)
#pragma STDC FP_CONTRACT OFF

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

__attribute__((target_clones("avx", "default")))
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
