/*
 * Self-test client for the libusb stand-in: exercises the libusb API the way
 * drivers do, against an EmulatorSocketServer hosting the toy emulator of
 * Tests/USBDriverTests (ids 1209:0001, serial "TOY-0001", bulk IN 0x81 sends
 * consecutive u32 LE counter words). Prints one fact per line; exit 0 = every
 * call behaved.
 *
 * Usage: selftest            the full run
 *        selftest bench S    synchronous 262144-byte bulk reads for S seconds, prints MB/s
 *        selftest stream     async bulk IN until every transfer fails (unplug test)
 * (env TSCOPE_FAKEUSB_SOCKET)
 */
#include <libusb.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TRANSFERS = 4, TRANSFER_SIZE = 16384, TARGET_COMPLETIONS = 64 };

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL " __VA_ARGS__); printf("\n"); } } while (0)

struct stream_state {
    uint32_t expected_word; /* next counter word the stream must deliver */
    int completed, cancelled, errors, in_flight, ordered, stop;
    int target;                  /* completions before cancelling; 0 = never */
    enum libusb_transfer_status last_error;
    long bytes;
};

static uint32_t word_at(const unsigned char *p) {
    return p[0] | (p[1] << 8) | (p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void on_transfer(struct libusb_transfer *t) {
    struct stream_state *s = t->user_data;
    if (t->status == LIBUSB_TRANSFER_COMPLETED) {
        s->completed++;
        s->bytes += t->actual_length;
        for (int i = 0; i + 4 <= t->actual_length; i += 4, s->expected_word++)
            if (word_at(t->buffer + i) != s->expected_word) { s->ordered = 0; s->expected_word = word_at(t->buffer + i); }
        if (!s->stop && (s->target == 0 || s->completed < s->target) && libusb_submit_transfer(t) == 0) return;
    } else if (t->status == LIBUSB_TRANSFER_CANCELLED) {
        s->cancelled++;
    } else {
        s->errors++;
        s->last_error = t->status;
    }
    s->in_flight--;
}

static double seconds_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int bench(libusb_device_handle *h, double seconds) {
    enum { SIZE = 262144 };
    unsigned char *buffer = malloc(SIZE);
    long total = 0;
    double start = seconds_now();
    while (seconds_now() - start < seconds) {
        int got = 0;
        int rc = libusb_bulk_transfer(h, 0x81, buffer, SIZE, &got, 1000);
        if (rc != 0) { printf("bench error %s\n", libusb_error_name(rc)); free(buffer); return 1; }
        total += got;
    }
    double elapsed = seconds_now() - start;
    printf("bench %.1f MB/s\n", total / elapsed / 1e6);
    free(buffer);
    return 0;
}

static const char *status_name(enum libusb_transfer_status status) {
    switch (status) {
    case LIBUSB_TRANSFER_COMPLETED: return "COMPLETED";
    case LIBUSB_TRANSFER_NO_DEVICE: return "NO_DEVICE";
    case LIBUSB_TRANSFER_CANCELLED: return "CANCELLED";
    case LIBUSB_TRANSFER_STALL: return "STALL";
    case LIBUSB_TRANSFER_TIMED_OUT: return "TIMED_OUT";
    default: return "ERROR";
    }
}

/* target 0: run until every transfer has failed (at most 20 s) */
static void stream(libusb_context *ctx, libusb_device_handle *h, int target) {
    struct stream_state s = { .ordered = 1, .target = target };
    struct libusb_transfer *transfers[TRANSFERS];
    for (int i = 0; i < TRANSFERS; i++) {
        transfers[i] = libusb_alloc_transfer(0);
        libusb_fill_bulk_transfer(transfers[i], h, 0x81, malloc(TRANSFER_SIZE), TRANSFER_SIZE, on_transfer, &s, 0);
        transfers[i]->flags = LIBUSB_TRANSFER_FREE_BUFFER;
        CHECK(libusb_submit_transfer(transfers[i]) == 0, "submit %d", i);
        s.in_flight++;
    }
    double deadline = seconds_now() + 20;
    struct timeval tv = { 0, 100000 };
    while (s.in_flight > 0 && seconds_now() < deadline) {
        if (target > 0 && s.completed >= target && !s.stop) {
            s.stop = 1;
            for (int i = 0; i < TRANSFERS; i++) libusb_cancel_transfer(transfers[i]);
        }
        libusb_handle_events_timeout(ctx, &tv);
    }
    printf("async completed %d ordered %d cancelled %d errors %d in_flight %d last_error %s\n",
           s.completed, s.ordered, s.cancelled, s.errors, s.in_flight, status_name(s.last_error));
    fflush(stdout);
    /* a second cancel of an idle transfer is refused */
    CHECK(libusb_cancel_transfer(transfers[0]) == LIBUSB_ERROR_NOT_FOUND, "cancel idle transfer");
    for (int i = 0; i < TRANSFERS; i++) libusb_free_transfer(transfers[i]);
}

int main(int argc, char **argv) {
    libusb_context *ctx = NULL;
    CHECK(libusb_init(&ctx) == 0, "init");
    libusb_device **list;
    ssize_t count = libusb_get_device_list(ctx, &list);
    printf("devices %zd\n", count);
    for (ssize_t i = 0; i < count; i++) {
        struct libusb_device_descriptor d;
        libusb_get_device_descriptor(list[i], &d);
        printf("device bus %d address %d id %04x:%04x bcd %04x\n", libusb_get_bus_number(list[i]),
               libusb_get_device_address(list[i]), d.idVendor, d.idProduct, d.bcdDevice);
    }
    libusb_free_device_list(list, 1);

    libusb_device_handle *h = libusb_open_device_with_vid_pid(ctx, 0x1209, 0x0001);
    if (h == NULL) { printf("open failed\n"); return 1; }
    struct libusb_device_descriptor d;
    libusb_get_device_descriptor(libusb_get_device(h), &d);
    unsigned char text[256];
    int n = libusb_get_string_descriptor_ascii(h, d.iSerialNumber, text, sizeof text);
    printf("serial %s\n", n > 0 ? (char *)text : "?");
    n = libusb_get_string_descriptor_ascii(h, d.iProduct, text, sizeof text);
    printf("product %s\n", n > 0 ? (char *)text : "?");

    int configuration = 0;
    CHECK(libusb_get_configuration(h, &configuration) == 0 && configuration == 1, "configuration");
    CHECK(libusb_set_configuration(h, 1) == 0, "set configuration");
    CHECK(libusb_kernel_driver_active(h, 0) == 0, "kernel driver active");
    CHECK(libusb_claim_interface(h, 0) == 0, "claim");
    struct libusb_config_descriptor *config;
    CHECK(libusb_get_active_config_descriptor(libusb_get_device(h), &config) == 0 &&
          config->bConfigurationValue == 1 && config->interface[0].altsetting[0].endpoint[0].bEndpointAddress == 0x81,
          "config descriptor");
    libusb_free_config_descriptor(config);

    if (argc >= 2 && strcmp(argv[1], "run") != 0) {
        int rc = 0;
        if (argc == 3 && strcmp(argv[1], "bench") == 0) rc = bench(h, atof(argv[2]));
        else if (strcmp(argv[1], "stream") == 0) { printf("streaming\n"); fflush(stdout); stream(ctx, h, 0); }
        else { printf("unknown mode %s\n", argv[1]); rc = 2; }
        libusb_release_interface(h, 0);
        libusb_close(h);
        libusb_exit(ctx);
        return rc;
    }

    unsigned char hello[] = "hello";
    int rc = libusb_control_transfer(h, 0x40, 1, 0x1234, 7, hello, 5, 100);
    printf("control out %d\n", rc);
    unsigned char reply[16] = {0};
    rc = libusb_control_transfer(h, 0xC0, 2, 0, 0, reply, sizeof reply - 1, 100);
    printf("control in %d %s\n", rc, rc > 0 ? (char *)reply : "");
    rc = libusb_control_transfer(h, 0xC0, 3, 0, 0, reply, 1, 100);
    printf("control stall %s\n", libusb_error_name(rc));

    stream(ctx, h, TARGET_COMPLETIONS);

    unsigned char block[4096];
    int got = 0;
    rc = libusb_bulk_transfer(h, 0x81, block, sizeof block, &got, 1000);
    printf("bulk in %s %d\n", libusb_error_name(rc), got);
    unsigned char out[] = { 1, 2, 3 };
    rc = libusb_bulk_transfer(h, 0x02, out, sizeof out, &got, 1000);
    printf("bulk out %s %d\n", libusb_error_name(rc), got);

    CHECK(libusb_release_interface(h, 0) == 0, "release");
    libusb_close(h);
    libusb_exit(ctx);
    printf("done failures %d\n", failures);
    return failures == 0 ? 0 : 1;
}
