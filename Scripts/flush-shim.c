// flush-shim: an LD_PRELOAD library that counts the calls a process makes to flush data to the
// drive, and its write calls, and can make each flush slower, so what a store costs in flushes
// can be measured on any Linux machine (Scripts/measure-store-io.sh builds and uses it).
//
//   gcc -shared -fPIC -O2 -o flush-shim.so Scripts/flush-shim.c -ldl -pthread
//   LD_PRELOAD=$PWD/flush-shim.so FLUSH_SHIM_REPORT=1 FLUSH_DELAY_MS=2 ./program
//
// Flushes: fsync, fdatasync, syncfs, sync, sync_file_range, and msync with MS_SYNC (an msync
// without it only schedules the write-back). Writes: write, pwrite/pwrite64, writev,
// pwritev/pwritev64. Each wrapper calls the real function, found with dlsym(RTLD_NEXT), and
// counts the call whether or not it failed: a failed fsync still waited for the drive.
//
// FLUSH_DELAY_MS (a real number of milliseconds, such as 2 or 17) makes every flush sleep that
// long after the real call returns, to stand for a drive that takes that long to empty its
// cache (Apple's drives take about 17 ms per F_FULLFSYNC; a virtual disk often returns at once).
// By default the delays of flushes from several threads overlap, as if the drive emptied its
// cache for each caller at once; FLUSH_DELAY_SERIAL=1 makes them take turns instead, as a drive
// that flushes for one caller at a time would. Which of the two a real drive is nearer depends
// on the drive and the file system, so a measurement of many threads should try both.
// FLUSH_SHIM_REPORT=1 prints the totals to stderr at exit; otherwise the library prints nothing.
//
// A program reads the counts of one phase with the two exported functions, looked up with
// dlsym(RTLD_DEFAULT, ...) so that it also runs without the library:
//   void flush_shim_reset(void);                          // zero every counter
//   void flush_shim_counts(long *flushes, long *writes);  // the totals since the last reset
//
// What it cannot see: calls made inside the C library itself (stdio's fflush and fclose write
// through glibc's internal write, not the exported one), raw syscall(2) and io_uring, and
// writes to descriptors opened with O_SYNC or O_DSYNC, each of which is a flush the counts miss.

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

// One counter per wrapped function, so the report at exit says which calls made the totals.
enum {
    COUNT_FSYNC, COUNT_FDATASYNC, COUNT_SYNCFS, COUNT_SYNC, COUNT_SYNC_FILE_RANGE, COUNT_MSYNC,
    FLUSH_KINDS,
    COUNT_WRITE = FLUSH_KINDS, COUNT_PWRITE, COUNT_WRITEV, COUNT_PWRITEV,
    ALL_KINDS
};

static const char *const names[ALL_KINDS] = {
    "fsync", "fdatasync", "syncfs", "sync", "sync_file_range", "msync(MS_SYNC)",
    "write", "pwrite", "writev", "pwritev",
};

// Relaxed atomics: the counts need no ordering with other memory, only no lost increments
// when many threads flush at once.
static atomic_long counts[ALL_KINDS];

static void count(int kind) {
    atomic_fetch_add_explicit(&counts[kind], 1, memory_order_relaxed);
}

// The delay, parsed once: -1 until then, in nanoseconds after.
static atomic_llong delay_nanoseconds = -1;

static long long delay(void) {
    long long nanoseconds = atomic_load_explicit(&delay_nanoseconds, memory_order_relaxed);
    if (nanoseconds >= 0) return nanoseconds;
    nanoseconds = 0;
    const char *text = getenv("FLUSH_DELAY_MS");
    if (text != NULL && *text != '\0') {
        char *end = NULL;
        double milliseconds = strtod(text, &end);
        // A value that is not a number is an error of the caller's, who would otherwise
        // measure no delay while believing there was one.
        if (end == text || *end != '\0' || !(milliseconds >= 0 && milliseconds < 1e9)) {
            fprintf(stderr, "flush-shim: FLUSH_DELAY_MS=%s is not a number of milliseconds\n", text);
            abort();
        }
        nanoseconds = (long long)(milliseconds * 1e6 + 0.5);
    }
    atomic_store_explicit(&delay_nanoseconds, nanoseconds, memory_order_relaxed);
    return nanoseconds;
}

// Whether delays take turns (FLUSH_DELAY_SERIAL=1), read at load time; and the turn.
static int serial_delays;
static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;

// Read at load time, so a bad FLUSH_DELAY_MS stops the program before it runs, not at its
// first flush.
__attribute__((constructor)) static void read_delay(void) {
    delay();
    const char *serial = getenv("FLUSH_DELAY_SERIAL");
    serial_delays = serial != NULL && strcmp(serial, "1") == 0;
}

// Counts a flush and, with FLUSH_DELAY_MS, sleeps after it. errno is kept: the caller reads
// the real call's errno, not the sleep's.
static void flushed(int kind) {
    count(kind);
    long long nanoseconds = delay();
    if (nanoseconds == 0) return;
    int saved = errno;
    struct timespec left = { .tv_sec = nanoseconds / 1000000000LL, .tv_nsec = nanoseconds % 1000000000LL };
    if (serial_delays) pthread_mutex_lock(&turn);
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {}
    if (serial_delays) pthread_mutex_unlock(&turn);
    errno = saved;
}

// The next definition of `name` (the C library's), looked up on first use and kept. Two
// threads may both look it up the first time; they find the same address.
#define REAL(type, name) \
    static _Atomic(type) real_##name; \
    type next_##name = atomic_load_explicit(&real_##name, memory_order_acquire); \
    if (next_##name == NULL) { \
        next_##name = (type)dlsym(RTLD_NEXT, #name); \
        if (next_##name == NULL) { \
            fprintf(stderr, "flush-shim: %s not found\n", #name); \
            abort(); \
        } \
        atomic_store_explicit(&real_##name, next_##name, memory_order_release); \
    }

typedef int (*fd_function)(int);
typedef void (*void_function)(void);
typedef int (*sync_file_range_function)(int, off_t, off_t, unsigned int);
typedef int (*msync_function)(void *, size_t, int);
typedef ssize_t (*write_function)(int, const void *, size_t);
typedef ssize_t (*pwrite_function)(int, const void *, size_t, off_t);
typedef ssize_t (*pwrite64_function)(int, const void *, size_t, off64_t);
typedef ssize_t (*writev_function)(int, const struct iovec *, int);
typedef ssize_t (*pwritev_function)(int, const struct iovec *, int, off_t);
typedef ssize_t (*pwritev64_function)(int, const struct iovec *, int, off64_t);

EXPORT int fsync(int descriptor) {
    REAL(fd_function, fsync);
    int result = next_fsync(descriptor);
    flushed(COUNT_FSYNC);
    return result;
}

EXPORT int fdatasync(int descriptor) {
    REAL(fd_function, fdatasync);
    int result = next_fdatasync(descriptor);
    flushed(COUNT_FDATASYNC);
    return result;
}

EXPORT int syncfs(int descriptor) {
    REAL(fd_function, syncfs);
    int result = next_syncfs(descriptor);
    flushed(COUNT_SYNCFS);
    return result;
}

EXPORT void sync(void) {
    REAL(void_function, sync);
    next_sync();
    flushed(COUNT_SYNC);
}

// sync_file_range writes pages back but does not empty the drive's cache or write metadata;
// it is counted because a program calling it means to make data durable, and each call with
// SYNC_FILE_RANGE_WAIT_AFTER waits for the device.
EXPORT int sync_file_range(int descriptor, off_t offset, off_t length, unsigned int flags) {
    REAL(sync_file_range_function, sync_file_range);
    int result = next_sync_file_range(descriptor, offset, length, flags);
    flushed(COUNT_SYNC_FILE_RANGE);
    return result;
}

EXPORT int msync(void *address, size_t length, int flags) {
    REAL(msync_function, msync);
    int result = next_msync(address, length, flags);
    if (flags & MS_SYNC) flushed(COUNT_MSYNC);
    return result;
}

EXPORT ssize_t write(int descriptor, const void *buffer, size_t length) {
    REAL(write_function, write);
    count(COUNT_WRITE);
    return next_write(descriptor, buffer, length);
}

EXPORT ssize_t pwrite(int descriptor, const void *buffer, size_t length, off_t offset) {
    REAL(pwrite_function, pwrite);
    count(COUNT_PWRITE);
    return next_pwrite(descriptor, buffer, length, offset);
}

EXPORT ssize_t pwrite64(int descriptor, const void *buffer, size_t length, off64_t offset) {
    REAL(pwrite64_function, pwrite64);
    count(COUNT_PWRITE);
    return next_pwrite64(descriptor, buffer, length, offset);
}

EXPORT ssize_t writev(int descriptor, const struct iovec *vectors, int vectorCount) {
    REAL(writev_function, writev);
    count(COUNT_WRITEV);
    return next_writev(descriptor, vectors, vectorCount);
}

EXPORT ssize_t pwritev(int descriptor, const struct iovec *vectors, int vectorCount, off_t offset) {
    REAL(pwritev_function, pwritev);
    count(COUNT_PWRITEV);
    return next_pwritev(descriptor, vectors, vectorCount, offset);
}

EXPORT ssize_t pwritev64(int descriptor, const struct iovec *vectors, int vectorCount, off64_t offset) {
    REAL(pwritev64_function, pwritev64);
    count(COUNT_PWRITEV);
    return next_pwritev64(descriptor, vectors, vectorCount, offset);
}

EXPORT void flush_shim_reset(void) {
    for (int kind = 0; kind < ALL_KINDS; kind++) atomic_store(&counts[kind], 0);
}

EXPORT void flush_shim_counts(long *flushes, long *writes) {
    long flushTotal = 0, writeTotal = 0;
    for (int kind = 0; kind < FLUSH_KINDS; kind++) flushTotal += atomic_load(&counts[kind]);
    for (int kind = FLUSH_KINDS; kind < ALL_KINDS; kind++) writeTotal += atomic_load(&counts[kind]);
    if (flushes != NULL) *flushes = flushTotal;
    if (writes != NULL) *writes = writeTotal;
}

// The totals since the start (or the last reset), by call, when FLUSH_SHIM_REPORT=1. Printed
// with stdio, whose writes go through the C library's internal write and are not counted.
__attribute__((destructor)) static void report(void) {
    const char *wanted = getenv("FLUSH_SHIM_REPORT");
    if (wanted == NULL || strcmp(wanted, "1") != 0) return;
    long flushes = 0, writes = 0;
    flush_shim_counts(&flushes, &writes);
    fprintf(stderr, "flush-shim: %ld flushes, %ld write calls, %.3f ms delay per flush%s\n",
        flushes, writes, (double)delay() / 1e6, serial_delays ? ", taking turns" : "");
    for (int kind = 0; kind < ALL_KINDS; kind++) {
        long value = atomic_load(&counts[kind]);
        if (value != 0) fprintf(stderr, "flush-shim:   %-16s %ld\n", names[kind], value);
    }
}
