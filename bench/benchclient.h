/* What the C clients of bench/events.py share (bench/eventstreams.c, bench/getsampler.c). */
#ifndef BENCH_BENCHCLIENT_H
#define BENCH_BENCHCLIENT_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* A clock's reading in seconds; CLOCK_MONOTONIC is the clock of Python's time.monotonic(). */
static inline double clock_s(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* perror and exit 1: the driver reads the message from stderr. */
static inline void die(const char *what) {
    perror(what);
    exit(1);
}

#endif
