/*
 * fakeusb: a stand-in for libusb-1.0.so.0 that routes every transfer to an
 * EmulatorSocketServer over a Unix-domain socket (protocol:
 * Firmware-Notes/fake-libusb.md). Lets unmodified libusb programs (hackrf_info,
 * hackrf_sweep, tscope) run against a firmware emulator without USB hardware.
 *
 * Types and signatures come from <libusb.h> (libusb-1.0-0-dev) so the ABI
 * matches; the behaviour follows the libusb-1.0 API documentation: callbacks
 * run only inside libusb_handle_events*() on the calling thread, a cancelled
 * transfer completes with LIBUSB_TRANSFER_CANCELLED, and
 * LIBUSB_TRANSFER_FREE_BUFFER / FREE_TRANSFER are honoured.
 *
 * Environment: TSCOPE_FAKEUSB_SOCKET = path[:path...]; device n (from 0) is on
 * bus 1, address n + 1. TSCOPE_FAKEUSB_REFUSE = n:ACCESS or n:BUSY[,...] makes
 * libusb_open of device n fail with LIBUSB_ERROR_ACCESS (no udev rule), or
 * libusb_claim_interface fail with LIBUSB_ERROR_BUSY (another program has it).
 */
#define _GNU_SOURCE
#include <libusb.h>

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* ---- wire protocol (Firmware-Notes/fake-libusb.md) ---- */

enum { OP_HELLO = 1, OP_CONTROL = 2, OP_BULK_IN = 3, OP_BULK_OUT = 4 };
enum { PROTOCOL_VERSION = 1, REQUEST_HEADER_SIZE = 16, RESPONSE_HEADER_SIZE = 8 };
/* how long one async bulk-IN round trip may wait for data [ms]: bounds cancel latency */
enum { ASYNC_WAIT_MS = 20 };
/* slice of a synchronous bulk IN with timeout 0 (= forever) [ms] */
enum { SYNC_WAIT_SLICE_MS = 100 };
enum { MAX_DEVICES = 8, MAX_STRING = 128 };

struct request {
    uint8_t op, type_or_endpoint, request;
    uint16_t value, index;
    uint32_t length, wait_ms;
};

/* ---- state ---- */

struct device_slot {
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int fd;        /* -1 while not connected */
    int gone;      /* the connection dropped: the device is unplugged */
    int open_error;  /* libusb_open fails with this (0: opens) */
    int claim_error; /* libusb_claim_interface fails with this (0: claims) */
    pthread_mutex_t io; /* one round trip at a time */
    struct libusb_device_descriptor descriptor;
    char strings[4][MAX_STRING]; /* string descriptors 1..3; "" = absent */
};

struct libusb_context { int unused; };
struct libusb_device { int refcount; int slot; };
struct libusb_device_handle { struct libusb_device *device; int configuration; unsigned claimed; };

enum transfer_state { T_IDLE, T_QUEUED, T_IN_PROGRESS };

struct fake_transfer {
    struct fake_transfer *next;
    enum transfer_state state;
    int cancel_requested;
    struct timespec deadline; /* valid when pub.timeout != 0 */
    struct libusb_transfer pub; /* last: it ends in a flexible array */
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;  /* queue, refcounts, init count */
static pthread_cond_t g_wake = PTHREAD_COND_INITIALIZER;    /* submit, cancel, interrupt */
static pthread_mutex_t g_event_lock = PTHREAD_MUTEX_INITIALIZER; /* one event handler at a time */
static int g_init_count;
static int g_interrupt;
static int g_slot_count;
static int g_next_slot; /* round robin over devices in event handling */
static struct device_slot g_slots[MAX_DEVICES];
static struct fake_transfer *g_queue;

static struct fake_transfer *fake_of(struct libusb_transfer *t) {
    return (struct fake_transfer *)((char *)t - offsetof(struct fake_transfer, pub));
}

/* ---- time ---- */

static struct timespec now_plus_ms(long ms) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) { ts.tv_sec += 1; ts.tv_nsec -= 1000000000L; }
    return ts;
}

static long ms_until(struct timespec deadline) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long ms = (deadline.tv_sec - now.tv_sec) * 1000L + (deadline.tv_nsec - now.tv_nsec) / 1000000L;
    return ms < 0 ? 0 : ms;
}

/* ---- socket I/O ---- */

static int write_all(int fd, const void *data, size_t length) {
    const uint8_t *p = data;
    while (length > 0) {
        ssize_t n = send(fd, p, length, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n; length -= (size_t)n;
    }
    return 0;
}

static int read_all(int fd, void *data, size_t length) {
    uint8_t *p = data;
    while (length > 0) {
        ssize_t n = recv(fd, p, length, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n; length -= (size_t)n;
    }
    return 0;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = v & 0xff; p[1] = v >> 8; }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (v >> (8 * i)) & 0xff; }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t get32(const uint8_t *p) { return p[0] | (p[1] << 8) | (p[2] << 16) | ((uint32_t)p[3] << 24); }

static void slot_drop(struct device_slot *s) {
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    s->gone = 1;
}

/*
 * One request/response exchange; caller holds s->io and s is connected.
 * Returns 0 with *result (>= 0 success, < 0 libusb error from the device) and
 * *in_length, or LIBUSB_ERROR_NO_DEVICE when the connection failed.
 */
static int exchange(struct device_slot *s, const struct request *rq, const void *out, size_t out_length,
                    void *in, size_t in_capacity, int32_t *result, size_t *in_length) {
    uint8_t header[REQUEST_HEADER_SIZE] = {0};
    header[0] = rq->op; header[1] = rq->type_or_endpoint; header[2] = rq->request;
    put16(header + 4, rq->value); put16(header + 6, rq->index);
    put32(header + 8, rq->length); put32(header + 12, rq->wait_ms);
    if (write_all(s->fd, header, sizeof header) != 0 ||
        (out_length > 0 && write_all(s->fd, out, out_length) != 0)) {
        slot_drop(s);
        return LIBUSB_ERROR_NO_DEVICE;
    }
    uint8_t response[RESPONSE_HEADER_SIZE];
    if (read_all(s->fd, response, sizeof response) != 0) { slot_drop(s); return LIBUSB_ERROR_NO_DEVICE; }
    *result = (int32_t)get32(response);
    size_t length = get32(response + 4);
    if (length > in_capacity) { slot_drop(s); return LIBUSB_ERROR_NO_DEVICE; } /* protocol violation */
    if (length > 0 && read_all(s->fd, in, length) != 0) { slot_drop(s); return LIBUSB_ERROR_NO_DEVICE; }
    *in_length = length;
    return 0;
}

static void read_string(char *dst, const uint8_t **p, const uint8_t *end) {
    dst[0] = 0;
    if (*p + 2 > end) return;
    int present = (*p)[0];
    size_t length = (*p)[1];
    *p += 2;
    if (*p + length > end) { *p = end; return; }
    if (present) {
        size_t n = length < MAX_STRING - 1 ? length : MAX_STRING - 1;
        memcpy(dst, *p, n);
        dst[n] = 0;
    }
    *p += length;
}

/* Connects and says hello if not yet done; caller holds s->io. */
static int slot_connect(struct device_slot *s) {
    if (s->fd >= 0) return 0;
    if (s->gone) return LIBUSB_ERROR_NO_DEVICE;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return LIBUSB_ERROR_NO_DEVICE;
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    memcpy(address.sun_path, s->path, sizeof address.sun_path);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) { close(fd); return LIBUSB_ERROR_NO_DEVICE; }
    s->fd = fd;
    struct request hello = { .op = OP_HELLO, .value = PROTOCOL_VERSION };
    uint8_t facts[8 + 3 * (2 + 255)];
    int32_t result; size_t length;
    int rc = exchange(s, &hello, NULL, 0, facts, sizeof facts, &result, &length);
    if (rc != 0) return rc;
    if (result < 0 || length < 8) { slot_drop(s); return LIBUSB_ERROR_NO_DEVICE; }
    const uint8_t *p = facts + 8, *end = facts + length;
    for (int i = 1; i <= 3; i++) read_string(s->strings[i], &p, end);
    struct libusb_device_descriptor *d = &s->descriptor;
    memset(d, 0, sizeof *d);
    d->bLength = LIBUSB_DT_DEVICE_SIZE;
    d->bDescriptorType = LIBUSB_DT_DEVICE;
    d->bcdUSB = 0x0200;
    d->bMaxPacketSize0 = 64;
    d->idVendor = get16(facts);
    d->idProduct = get16(facts + 2);
    d->bcdDevice = get16(facts + 4);
    d->iManufacturer = s->strings[1][0] ? 1 : 0;
    d->iProduct = s->strings[2][0] ? 2 : 0;
    d->iSerialNumber = s->strings[3][0] ? 3 : 0;
    d->bNumConfigurations = 1;
    return 0;
}

/* A full round trip on slot `index` (connecting first if needed). */
static int round_trip(int index, const struct request *rq, const void *out, size_t out_length,
                      void *in, size_t in_capacity, int32_t *result, size_t *in_length) {
    struct device_slot *s = &g_slots[index];
    pthread_mutex_lock(&s->io);
    int rc = slot_connect(s);
    if (rc == 0) rc = exchange(s, rq, out, out_length, in, in_capacity, result, in_length);
    pthread_mutex_unlock(&s->io);
    return rc;
}

/* ---- library init ---- */

static void parse_environment(void) {
    g_slot_count = 0;
    const char *list = getenv("TSCOPE_FAKEUSB_SOCKET");
    if (list == NULL) return;
    const char *p = list;
    while (*p && g_slot_count < MAX_DEVICES) {
        const char *colon = strchr(p, ':');
        size_t length = colon ? (size_t)(colon - p) : strlen(p);
        struct device_slot *s = &g_slots[g_slot_count];
        if (length > 0 && length < sizeof s->path) {
            memset(s, 0, sizeof *s);
            memcpy(s->path, p, length);
            s->fd = -1;
            pthread_mutex_init(&s->io, NULL);
            g_slot_count++;
        }
        if (!colon) break;
        p = colon + 1;
    }
    const char *refuse = getenv("TSCOPE_FAKEUSB_REFUSE");
    for (const char *r = refuse; r != NULL && *r; ) {
        char *end;
        long index = strtol(r, &end, 10);
        if (end != r && *end == ':' && index >= 0 && index < g_slot_count) {
            if (strncmp(end + 1, "ACCESS", 6) == 0) g_slots[index].open_error = LIBUSB_ERROR_ACCESS;
            if (strncmp(end + 1, "BUSY", 4) == 0) g_slots[index].claim_error = LIBUSB_ERROR_BUSY;
        }
        const char *comma = strchr(r, ',');
        r = comma ? comma + 1 : NULL;
    }
}

int libusb_init(libusb_context **ctx) {
    pthread_mutex_lock(&g_lock);
    if (g_init_count++ == 0) parse_environment();
    pthread_mutex_unlock(&g_lock);
    if (ctx) {
        *ctx = calloc(1, sizeof **ctx);
        if (*ctx == NULL) return LIBUSB_ERROR_NO_MEM;
    }
    return 0;
}

void libusb_exit(libusb_context *ctx) {
    free(ctx);
    pthread_mutex_lock(&g_lock);
    if (g_init_count > 0 && --g_init_count == 0) {
        for (int i = 0; i < g_slot_count; i++) {
            pthread_mutex_lock(&g_slots[i].io);
            if (g_slots[i].fd >= 0) close(g_slots[i].fd);
            g_slots[i].fd = -1;
            pthread_mutex_unlock(&g_slots[i].io);
            pthread_mutex_destroy(&g_slots[i].io);
        }
        g_slot_count = 0;
    }
    pthread_mutex_unlock(&g_lock);
}

void libusb_set_debug(libusb_context *ctx, int level) { (void)ctx; (void)level; }

int libusb_set_option(libusb_context *ctx, enum libusb_option option, ...) {
    (void)ctx; (void)option;
    return 0;
}

const struct libusb_version *libusb_get_version(void) {
    static const struct libusb_version version = { 1, 0, 26, 0, "-tscope-fake", "" };
    return &version;
}

int libusb_has_capability(uint32_t capability) {
    return capability == LIBUSB_CAP_HAS_CAPABILITY;
}

const char *libusb_error_name(int code) {
    switch (code) {
    case LIBUSB_SUCCESS: return "LIBUSB_SUCCESS";
    case LIBUSB_ERROR_IO: return "LIBUSB_ERROR_IO";
    case LIBUSB_ERROR_INVALID_PARAM: return "LIBUSB_ERROR_INVALID_PARAM";
    case LIBUSB_ERROR_ACCESS: return "LIBUSB_ERROR_ACCESS";
    case LIBUSB_ERROR_NO_DEVICE: return "LIBUSB_ERROR_NO_DEVICE";
    case LIBUSB_ERROR_NOT_FOUND: return "LIBUSB_ERROR_NOT_FOUND";
    case LIBUSB_ERROR_BUSY: return "LIBUSB_ERROR_BUSY";
    case LIBUSB_ERROR_TIMEOUT: return "LIBUSB_ERROR_TIMEOUT";
    case LIBUSB_ERROR_OVERFLOW: return "LIBUSB_ERROR_OVERFLOW";
    case LIBUSB_ERROR_PIPE: return "LIBUSB_ERROR_PIPE";
    case LIBUSB_ERROR_INTERRUPTED: return "LIBUSB_ERROR_INTERRUPTED";
    case LIBUSB_ERROR_NO_MEM: return "LIBUSB_ERROR_NO_MEM";
    case LIBUSB_ERROR_NOT_SUPPORTED: return "LIBUSB_ERROR_NOT_SUPPORTED";
    default: return "LIBUSB_ERROR_OTHER";
    }
}

const char *libusb_strerror(int code) {
    switch (code) {
    case LIBUSB_SUCCESS: return "Success";
    case LIBUSB_ERROR_IO: return "Input/Output Error";
    case LIBUSB_ERROR_INVALID_PARAM: return "Invalid parameter";
    case LIBUSB_ERROR_ACCESS: return "Access denied (insufficient permissions)";
    case LIBUSB_ERROR_NO_DEVICE: return "No such device (it may have been disconnected)";
    case LIBUSB_ERROR_NOT_FOUND: return "Entity not found";
    case LIBUSB_ERROR_BUSY: return "Resource busy";
    case LIBUSB_ERROR_TIMEOUT: return "Operation timed out";
    case LIBUSB_ERROR_OVERFLOW: return "Overflow";
    case LIBUSB_ERROR_PIPE: return "Pipe error";
    case LIBUSB_ERROR_INTERRUPTED: return "System call interrupted (perhaps due to signal)";
    case LIBUSB_ERROR_NO_MEM: return "Insufficient memory";
    case LIBUSB_ERROR_NOT_SUPPORTED: return "Operation not supported or unimplemented on this platform";
    default: return "Other error";
    }
}

/* ---- devices ---- */

ssize_t libusb_get_device_list(libusb_context *ctx, libusb_device ***list) {
    (void)ctx;
    libusb_device **devices = calloc(MAX_DEVICES + 1, sizeof *devices);
    if (devices == NULL) return LIBUSB_ERROR_NO_MEM;
    ssize_t count = 0;
    for (int i = 0; i < g_slot_count; i++) {
        pthread_mutex_lock(&g_slots[i].io);
        int rc = slot_connect(&g_slots[i]);
        pthread_mutex_unlock(&g_slots[i].io);
        if (rc != 0) continue; /* server not there or gone: not plugged in */
        libusb_device *device = calloc(1, sizeof *device);
        if (device == NULL) break;
        device->refcount = 1;
        device->slot = i;
        devices[count++] = device;
    }
    *list = devices;
    return count;
}

libusb_device *libusb_ref_device(libusb_device *device) {
    pthread_mutex_lock(&g_lock);
    device->refcount++;
    pthread_mutex_unlock(&g_lock);
    return device;
}

void libusb_unref_device(libusb_device *device) {
    if (device == NULL) return;
    pthread_mutex_lock(&g_lock);
    int last = --device->refcount == 0;
    pthread_mutex_unlock(&g_lock);
    if (last) free(device);
}

void libusb_free_device_list(libusb_device **list, int unref_devices) {
    if (list == NULL) return;
    if (unref_devices)
        for (libusb_device **d = list; *d; d++) libusb_unref_device(*d);
    free(list);
}

uint8_t libusb_get_bus_number(libusb_device *device) { (void)device; return 1; }
uint8_t libusb_get_device_address(libusb_device *device) { return (uint8_t)(device->slot + 1); }

int libusb_get_device_descriptor(libusb_device *device, struct libusb_device_descriptor *descriptor) {
    *descriptor = g_slots[device->slot].descriptor;
    return 0;
}

/* One configuration (value 1), interface 0 with bulk IN 0x81 and bulk OUT 0x02. */
struct config_block {
    struct libusb_config_descriptor config;
    struct libusb_interface interface;
    struct libusb_interface_descriptor altsetting;
    struct libusb_endpoint_descriptor endpoints[2];
};

int libusb_get_active_config_descriptor(libusb_device *device, struct libusb_config_descriptor **config) {
    (void)device;
    struct config_block *b = calloc(1, sizeof *b);
    if (b == NULL) return LIBUSB_ERROR_NO_MEM;
    for (int i = 0; i < 2; i++) {
        b->endpoints[i].bLength = LIBUSB_DT_ENDPOINT_SIZE;
        b->endpoints[i].bDescriptorType = LIBUSB_DT_ENDPOINT;
        b->endpoints[i].bEndpointAddress = i == 0 ? 0x81 : 0x02;
        b->endpoints[i].bmAttributes = LIBUSB_TRANSFER_TYPE_BULK;
        b->endpoints[i].wMaxPacketSize = 512;
    }
    b->altsetting.bLength = LIBUSB_DT_INTERFACE_SIZE;
    b->altsetting.bDescriptorType = LIBUSB_DT_INTERFACE;
    b->altsetting.bNumEndpoints = 2;
    b->altsetting.bInterfaceClass = LIBUSB_CLASS_VENDOR_SPEC;
    b->altsetting.endpoint = b->endpoints;
    b->interface.altsetting = &b->altsetting;
    b->interface.num_altsetting = 1;
    b->config.bLength = LIBUSB_DT_CONFIG_SIZE;
    b->config.bDescriptorType = LIBUSB_DT_CONFIG;
    b->config.wTotalLength = LIBUSB_DT_CONFIG_SIZE + LIBUSB_DT_INTERFACE_SIZE + 2 * LIBUSB_DT_ENDPOINT_SIZE;
    b->config.bNumInterfaces = 1;
    b->config.bConfigurationValue = 1;
    b->config.bmAttributes = 0x80;
    b->config.MaxPower = 250; /* 500 mA in 2 mA units */
    b->config.interface = &b->interface;
    *config = &b->config; /* first member: free() of it frees the block */
    return 0;
}

void libusb_free_config_descriptor(struct libusb_config_descriptor *config) { free(config); }

int libusb_open(libusb_device *device, libusb_device_handle **handle) {
    struct device_slot *s = &g_slots[device->slot];
    if (s->open_error != 0) return s->open_error;
    pthread_mutex_lock(&s->io);
    int rc = slot_connect(s);
    pthread_mutex_unlock(&s->io);
    if (rc != 0) return LIBUSB_ERROR_NO_DEVICE;
    libusb_device_handle *h = calloc(1, sizeof *h);
    if (h == NULL) return LIBUSB_ERROR_NO_MEM;
    h->device = libusb_ref_device(device);
    h->configuration = 1;
    *handle = h;
    return 0;
}

libusb_device_handle *libusb_open_device_with_vid_pid(libusb_context *ctx, uint16_t vendor_id, uint16_t product_id) {
    libusb_device **list;
    if (libusb_get_device_list(ctx, &list) < 0) return NULL;
    libusb_device_handle *handle = NULL;
    for (libusb_device **d = list; *d; d++) {
        const struct libusb_device_descriptor *desc = &g_slots[(*d)->slot].descriptor;
        if (desc->idVendor == vendor_id && desc->idProduct == product_id) {
            if (libusb_open(*d, &handle) != 0) handle = NULL;
            break;
        }
    }
    libusb_free_device_list(list, 1);
    return handle;
}

void libusb_close(libusb_device_handle *handle) {
    if (handle == NULL) return;
    libusb_unref_device(handle->device);
    free(handle);
}

libusb_device *libusb_get_device(libusb_device_handle *handle) { return handle->device; }

static int handle_gone(libusb_device_handle *h) { return g_slots[h->device->slot].gone; }

int libusb_get_string_descriptor_ascii(libusb_device_handle *h, uint8_t index, unsigned char *data, int length) {
    if (handle_gone(h)) return LIBUSB_ERROR_NO_DEVICE;
    if (index < 1 || index > 3 || g_slots[h->device->slot].strings[index][0] == 0) return LIBUSB_ERROR_PIPE;
    if (length <= 0) return LIBUSB_ERROR_INVALID_PARAM;
    const char *text = g_slots[h->device->slot].strings[index];
    int n = (int)strlen(text);
    if (n > length - 1) n = length - 1;
    memcpy(data, text, (size_t)n);
    data[n] = 0;
    return n;
}

int libusb_get_configuration(libusb_device_handle *h, int *config) {
    if (handle_gone(h)) return LIBUSB_ERROR_NO_DEVICE;
    *config = h->configuration;
    return 0;
}

int libusb_set_configuration(libusb_device_handle *h, int configuration) {
    if (handle_gone(h)) return LIBUSB_ERROR_NO_DEVICE;
    if (configuration != 1 && configuration != -1 && configuration != 0) return LIBUSB_ERROR_NOT_FOUND;
    h->configuration = configuration < 0 ? 0 : configuration;
    return 0;
}

/* librtlsdr (rtl_sdr, rtl_power) asks for DMA-able buffers first and falls
 * back to malloc when there are none: there are none here. A USB reset of an
 * emulated device changes nothing it keeps. */
unsigned char *libusb_dev_mem_alloc(libusb_device_handle *h, size_t length) {
    (void)h;
    (void)length;
    return NULL;
}

int libusb_dev_mem_free(libusb_device_handle *h, unsigned char *buffer, size_t length) {
    (void)h;
    (void)buffer;
    (void)length;
    return LIBUSB_ERROR_NOT_SUPPORTED;
}

int libusb_reset_device(libusb_device_handle *h) {
    if (handle_gone(h)) return LIBUSB_ERROR_NO_DEVICE;
    return 0;
}

/* Interfaces a device has: one, except a CDC-ACM serial port at the STM32
 * virtual COM port id 0483:5740 (the tinySA), which has its communication
 * interface 0 and data interface 1 (ChibiOS usbcfg.c); both can be claimed. */
static int interface_count(libusb_device_handle *h) {
    const struct libusb_device_descriptor *d = &g_slots[h->device->slot].descriptor;
    return d->idVendor == 0x0483 && d->idProduct == 0x5740 ? 2 : 1;
}

int libusb_claim_interface(libusb_device_handle *h, int interface_number) {
    if (handle_gone(h)) return LIBUSB_ERROR_NO_DEVICE;
    if (g_slots[h->device->slot].claim_error != 0) return g_slots[h->device->slot].claim_error;
    if (interface_number < 0 || interface_number >= interface_count(h)) return LIBUSB_ERROR_NOT_FOUND;
    h->claimed |= 1u << interface_number;
    return 0;
}

int libusb_release_interface(libusb_device_handle *h, int interface_number) {
    if (interface_number < 0 || interface_number >= interface_count(h) || !(h->claimed & (1u << interface_number)))
        return LIBUSB_ERROR_NOT_FOUND;
    h->claimed &= ~(1u << interface_number);
    return handle_gone(h) ? LIBUSB_ERROR_NO_DEVICE : 0;
}

/* No kernel driver ever binds an emulated device. */
int libusb_kernel_driver_active(libusb_device_handle *h, int interface_number) {
    (void)interface_number;
    return handle_gone(h) ? LIBUSB_ERROR_NO_DEVICE : 0;
}

int libusb_detach_kernel_driver(libusb_device_handle *h, int interface_number) {
    (void)interface_number;
    return handle_gone(h) ? LIBUSB_ERROR_NO_DEVICE : LIBUSB_ERROR_NOT_FOUND;
}

int libusb_attach_kernel_driver(libusb_device_handle *h, int interface_number) {
    (void)interface_number;
    return handle_gone(h) ? LIBUSB_ERROR_NO_DEVICE : LIBUSB_ERROR_NOT_FOUND;
}

/* ---- synchronous transfers ---- */

int libusb_control_transfer(libusb_device_handle *h, uint8_t request_type, uint8_t request, uint16_t value,
                            uint16_t index, unsigned char *data, uint16_t length, unsigned int timeout) {
    (void)timeout; /* the emulator answers at once */
    struct request rq = { .op = OP_CONTROL, .type_or_endpoint = request_type, .request = request,
                          .value = value, .index = index, .length = length };
    int device_to_host = (request_type & LIBUSB_ENDPOINT_IN) != 0;
    int32_t result; size_t in_length = 0;
    int rc = round_trip(h->device->slot, &rq, device_to_host ? NULL : data, device_to_host ? 0 : length,
                        device_to_host ? data : NULL, device_to_host ? length : 0, &result, &in_length);
    return rc != 0 ? rc : result;
}

int libusb_bulk_transfer(libusb_device_handle *h, unsigned char endpoint, unsigned char *data, int length,
                         int *transferred, unsigned int timeout) {
    if (transferred) *transferred = 0;
    if (length < 0) return LIBUSB_ERROR_INVALID_PARAM;
    int32_t result; size_t in_length = 0;
    if (!(endpoint & LIBUSB_ENDPOINT_IN)) {
        struct request rq = { .op = OP_BULK_OUT, .type_or_endpoint = endpoint, .length = (uint32_t)length };
        int rc = round_trip(h->device->slot, &rq, data, (size_t)length, NULL, 0, &result, &in_length);
        if (rc != 0) return rc;
        if (result < 0) return result;
        if (transferred) *transferred = result;
        return 0;
    }
    struct timespec deadline = now_plus_ms(timeout);
    for (;;) {
        long wait = timeout == 0 ? SYNC_WAIT_SLICE_MS : ms_until(deadline);
        struct request rq = { .op = OP_BULK_IN, .type_or_endpoint = endpoint, .length = (uint32_t)length,
                              .wait_ms = (uint32_t)wait };
        int rc = round_trip(h->device->slot, &rq, NULL, 0, data, (size_t)length, &result, &in_length);
        if (rc != 0) return rc;
        if (result < 0) return result;
        if (in_length > 0) {
            if (transferred) *transferred = (int)in_length;
            return 0;
        }
        if (timeout != 0 && ms_until(deadline) == 0) return LIBUSB_ERROR_TIMEOUT;
    }
}

/* ---- asynchronous transfers ---- */

struct libusb_transfer *libusb_alloc_transfer(int iso_packets) {
    if (iso_packets < 0) return NULL;
    struct fake_transfer *f = calloc(1, sizeof *f + (size_t)iso_packets * sizeof(struct libusb_iso_packet_descriptor));
    if (f == NULL) return NULL;
    f->pub.num_iso_packets = iso_packets;
    return &f->pub;
}

void libusb_free_transfer(struct libusb_transfer *transfer) {
    if (transfer == NULL) return;
    if ((transfer->flags & LIBUSB_TRANSFER_FREE_BUFFER) && transfer->buffer) free(transfer->buffer);
    free(fake_of(transfer));
}

int libusb_submit_transfer(struct libusb_transfer *transfer) {
    struct fake_transfer *f = fake_of(transfer);
    if (transfer->type != LIBUSB_TRANSFER_TYPE_BULK || !(transfer->endpoint & LIBUSB_ENDPOINT_IN))
        return LIBUSB_ERROR_NOT_SUPPORTED; /* only bulk IN streams are emulated asynchronously */
    if (transfer->dev_handle == NULL || transfer->length < 0) return LIBUSB_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&g_lock);
    if (f->state != T_IDLE) { pthread_mutex_unlock(&g_lock); return LIBUSB_ERROR_BUSY; }
    if (handle_gone(transfer->dev_handle)) { pthread_mutex_unlock(&g_lock); return LIBUSB_ERROR_NO_DEVICE; }
    f->state = T_QUEUED;
    f->cancel_requested = 0;
    f->next = NULL;
    if (transfer->timeout) f->deadline = now_plus_ms(transfer->timeout);
    struct fake_transfer **tail = &g_queue;
    while (*tail) tail = &(*tail)->next;
    *tail = f;
    pthread_cond_broadcast(&g_wake);
    pthread_mutex_unlock(&g_lock);
    return 0;
}

int libusb_cancel_transfer(struct libusb_transfer *transfer) {
    struct fake_transfer *f = fake_of(transfer);
    pthread_mutex_lock(&g_lock);
    int rc = LIBUSB_ERROR_NOT_FOUND;
    if (f->state != T_IDLE && !f->cancel_requested) {
        f->cancel_requested = 1;
        pthread_cond_broadcast(&g_wake);
        rc = 0;
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

void libusb_interrupt_event_handler(libusb_context *ctx) {
    (void)ctx;
    pthread_mutex_lock(&g_lock);
    g_interrupt = 1;
    pthread_cond_broadcast(&g_wake);
    pthread_mutex_unlock(&g_lock);
}

static void unlink_transfer(struct fake_transfer *f) {
    for (struct fake_transfer **p = &g_queue; *p; p = &(*p)->next)
        if (*p == f) { *p = f->next; f->next = NULL; return; }
}

/* Completes a transfer: runs its callback on this thread; caller holds no lock. */
static void finish(struct fake_transfer *f, enum libusb_transfer_status status, int actual_length) {
    struct libusb_transfer *t = &f->pub;
    pthread_mutex_lock(&g_lock);
    f->state = T_IDLE;
    pthread_mutex_unlock(&g_lock);
    t->status = status;
    t->actual_length = actual_length;
    int free_after = (t->flags & LIBUSB_TRANSFER_FREE_TRANSFER) != 0;
    if (t->callback) t->callback(t);
    if (free_after) libusb_free_transfer(t);
}

static enum libusb_transfer_status transfer_status_of(int code) {
    switch (code) {
    case LIBUSB_ERROR_NO_DEVICE: return LIBUSB_TRANSFER_NO_DEVICE;
    case LIBUSB_ERROR_PIPE: return LIBUSB_TRANSFER_STALL;
    case LIBUSB_ERROR_TIMEOUT: return LIBUSB_TRANSFER_TIMED_OUT;
    case LIBUSB_ERROR_OVERFLOW: return LIBUSB_TRANSFER_OVERFLOW;
    default: return LIBUSB_TRANSFER_ERROR;
    }
}

/* With g_lock held: a transfer whose cancel was asked for, or NULL. */
static struct fake_transfer *take_cancelled(void) {
    for (struct fake_transfer *f = g_queue; f; f = f->next)
        if (f->cancel_requested || (f->pub.timeout && ms_until(f->deadline) == 0)) { unlink_transfer(f); return f; }
    return NULL;
}

/* With g_lock held: the oldest queued transfer of the next device in round-robin order. */
static struct fake_transfer *take_next(void) {
    for (int k = 0; k < MAX_DEVICES; k++) {
        int slot = (g_next_slot + k) % MAX_DEVICES;
        for (struct fake_transfer *f = g_queue; f; f = f->next)
            if (f->pub.dev_handle->device->slot == slot) {
                unlink_transfer(f);
                g_next_slot = slot + 1;
                return f;
            }
    }
    return NULL;
}

/* With g_lock held: puts an unfinished transfer back at the head (keeps order). */
static void requeue_front(struct fake_transfer *f) {
    f->state = T_QUEUED;
    f->next = g_queue;
    g_queue = f;
}

/* One bulk-IN round trip for f; returns 1 when f was completed. */
static int service(struct fake_transfer *f, long wait_ms) {
    struct libusb_transfer *t = &f->pub;
    struct request rq = { .op = OP_BULK_IN, .type_or_endpoint = t->endpoint, .length = (uint32_t)t->length,
                          .wait_ms = (uint32_t)wait_ms };
    int32_t result = 0; size_t in_length = 0;
    int rc = round_trip(t->dev_handle->device->slot, &rq, NULL, 0, t->buffer, (size_t)t->length, &result, &in_length);
    if (rc != 0) { finish(f, LIBUSB_TRANSFER_NO_DEVICE, 0); return 1; }
    if (result < 0) { finish(f, transfer_status_of(result), 0); return 1; }
    if (in_length > 0) { finish(f, LIBUSB_TRANSFER_COMPLETED, (int)in_length); return 1; }
    pthread_mutex_lock(&g_lock);
    int cancelled = f->cancel_requested;
    int timed_out = t->timeout && ms_until(f->deadline) == 0;
    if (!cancelled && !timed_out) requeue_front(f);
    pthread_mutex_unlock(&g_lock);
    if (cancelled) { finish(f, LIBUSB_TRANSFER_CANCELLED, 0); return 1; }
    if (timed_out) { finish(f, LIBUSB_TRANSFER_TIMED_OUT, 0); return 1; }
    return 0;
}

int libusb_handle_events_timeout_completed(libusb_context *ctx, struct timeval *tv, int *completed) {
    (void)ctx;
    long budget_ms = tv ? tv->tv_sec * 1000L + tv->tv_usec / 1000L : 0;
    struct timespec deadline = now_plus_ms(budget_ms);
    pthread_mutex_lock(&g_event_lock);
    for (;;) {
        pthread_mutex_lock(&g_lock);
        if (g_interrupt) { g_interrupt = 0; pthread_mutex_unlock(&g_lock); break; }
        if (completed && *completed) { pthread_mutex_unlock(&g_lock); break; }
        struct fake_transfer *f = take_cancelled();
        if (f) {
            pthread_mutex_unlock(&g_lock);
            finish(f, f->cancel_requested ? LIBUSB_TRANSFER_CANCELLED : LIBUSB_TRANSFER_TIMED_OUT, 0);
            if (!completed) break;
            continue;
        }
        f = take_next();
        if (f) {
            f->state = T_IN_PROGRESS;
            pthread_mutex_unlock(&g_lock);
            long left = ms_until(deadline);
            int done = service(f, left < ASYNC_WAIT_MS ? left : ASYNC_WAIT_MS);
            if (done && !completed) break;
            if (!done && ms_until(deadline) == 0) break;
            continue;
        }
        if (ms_until(deadline) == 0) { pthread_mutex_unlock(&g_lock); break; }
        struct timespec until;
        /* condition variables wait on CLOCK_REALTIME: convert the remaining budget */
        clock_gettime(CLOCK_REALTIME, &until);
        long left = ms_until(deadline);
        until.tv_sec += left / 1000;
        until.tv_nsec += (left % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) { until.tv_sec += 1; until.tv_nsec -= 1000000000L; }
        pthread_cond_timedwait(&g_wake, &g_lock, &until);
        pthread_mutex_unlock(&g_lock);
    }
    pthread_mutex_unlock(&g_event_lock);
    return 0;
}

int libusb_handle_events_timeout(libusb_context *ctx, struct timeval *tv) {
    return libusb_handle_events_timeout_completed(ctx, tv, NULL);
}

int libusb_handle_events_completed(libusb_context *ctx, int *completed) {
    struct timeval tv = { 60, 0 }; /* libusb's default for the blocking variants */
    return libusb_handle_events_timeout_completed(ctx, &tv, completed);
}

int libusb_handle_events(libusb_context *ctx) {
    return libusb_handle_events_completed(ctx, NULL);
}
