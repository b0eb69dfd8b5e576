/*
 * The I/O floor for Tools/bench-sweep: starts a sweep exactly as hackrf_sweep
 * does (libhackrf over the same libusb, same requests and transfer sizes) and
 * counts sweeps and bytes, with no FFT and no output. Its time is what the
 * emulator, the socket and libhackrf cost a client that does nothing.
 *
 * Sweep accounting follows hackrf_sweep 2022.09.1 (rx_callback in
 * host/hackrf-tools/src/hackrf_sweep.c, see Firmware-Notes/hackrf-sweep.md):
 * 16384-byte blocks with header 0x7F 0x7F + u64 LE frequency [Hz]; a sweep
 * completes whenever a block arrives at the first range's start after one
 * already has.
 *
 * Usage: bench-sweep-count START_MHZ STOP_MHZ SWEEPS
 * Build: cc -O2 -o bench-sweep-count Tools/bench-sweep-count.c -lhackrf
 */
#include <libhackrf/hackrf.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    block_bytes = 16384,     /* BYTES_PER_BLOCK */
    step_hz = 20000000,      /* TUNE_STEP: one 20 MHz step per tuning */
    offset_hz = 7500000,     /* OFFSET: hackrf_sweep tunes start + 7.5 MHz */
    sample_rate_hz = 20000000,
    filter_hz = 15000000,
};

static uint64_t first_start_hz;
static int sweep_limit;
static int sweeps;
static int started;
static uint64_t bytes;
static atomic_int done;

static int on_transfer(hackrf_transfer *transfer) {
    for (int offset = 0; offset + block_bytes <= transfer->valid_length; offset += block_bytes) {
        const uint8_t *block = transfer->buffer + offset;
        if (block[0] != 0x7F || block[1] != 0x7F) continue;
        uint64_t frequency;
        memcpy(&frequency, block + 2, sizeof frequency); /* little-endian host */
        if (frequency == first_start_hz) {
            if (started && ++sweeps >= sweep_limit) {
                atomic_store(&done, 1);
                return -1;
            }
            started = 1;
        }
        bytes += block_bytes;
    }
    return 0;
}

static int check(int result, const char *what) {
    if (result != HACKRF_SUCCESS) {
        fprintf(stderr, "%s failed: %s\n", what, hackrf_error_name(result));
        exit(1);
    }
    return result;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s START_MHZ STOP_MHZ SWEEPS\n", argv[0]);
        return 2;
    }
    uint16_t start = (uint16_t)atoi(argv[1]), stop = (uint16_t)atoi(argv[2]);
    sweep_limit = atoi(argv[3]);
    if (stop <= start || sweep_limit < 1) {
        fprintf(stderr, "need START < STOP and SWEEPS >= 1\n");
        return 2;
    }
    /* hackrf_sweep rounds the stop up to whole 20 MHz steps */
    uint16_t steps = (uint16_t)(1 + (stop - start - 1) / 20);
    uint16_t frequencies[2] = {start, (uint16_t)(start + steps * 20)};
    first_start_hz = (uint64_t)start * 1000000;

    hackrf_device *device = NULL;
    check(hackrf_init(), "hackrf_init");
    check(hackrf_open(&device), "hackrf_open");
    check(hackrf_set_sample_rate_manual(device, sample_rate_hz, 1), "hackrf_set_sample_rate_manual");
    check(hackrf_set_baseband_filter_bandwidth(device, filter_hz), "hackrf_set_baseband_filter_bandwidth");
    check(hackrf_set_vga_gain(device, 20), "hackrf_set_vga_gain");
    check(hackrf_set_lna_gain(device, 16), "hackrf_set_lna_gain");
    check(hackrf_init_sweep(device, frequencies, 1, block_bytes, step_hz, offset_hz, INTERLEAVED),
          "hackrf_init_sweep");
    check(hackrf_start_rx_sweep(device, on_transfer, NULL), "hackrf_start_rx_sweep");
    while (!atomic_load(&done) && hackrf_is_streaming(device) == HACKRF_TRUE) usleep(1000);
    hackrf_close(device);
    hackrf_exit();
    fprintf(stderr, "Total sweeps: %d  bytes: %llu\n", sweeps, (unsigned long long)bytes);
    return atomic_load(&done) ? 0 : 1;
}
