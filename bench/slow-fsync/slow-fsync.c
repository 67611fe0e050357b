/* A machine whose disk flushes are slow, on any machine: LD_PRELOAD this into a process and
 * every fsync and fdatasync it makes waits SLOW_FSYNC_MS milliseconds (default 20) before
 * flushing. Cloud block storage and shared VMs often take 5-50 ms per flush where a laptop's
 * NVMe takes well under one; the benchmarks use it to show what a slow flush costs a request
 * (bench/registration-bench.sh, bench/jobs-bench.sh). Build: cc -shared -fPIC -O2 -o
 * slow-fsync.so slow-fsync.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void slow_down(void) {
    static long delay_ns = -1;
    if (delay_ns < 0) {
        const char *text = getenv("SLOW_FSYNC_MS");
        delay_ns = (text ? atol(text) : 20) * 1000000L;
    }
    struct timespec wait = { delay_ns / 1000000000L, delay_ns % 1000000000L };
    while (nanosleep(&wait, &wait) != 0) { }
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    slow_down();
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    slow_down();
    return real(fd);
}
