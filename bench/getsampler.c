/* getsampler: the GET /api/items sampler of bench/events.py (`make bench`).
 *
 * Sends `GET /api/items` over one keep-alive connection to 127.0.0.1:PORT for SECONDS, one
 * request every INTERVAL microseconds (0: back to back), and prints one line per request:
 *
 *   START LATENCY
 *
 * both in seconds, START on CLOCK_MONOTONIC (the clock of Python's time.monotonic()). A request
 * due while the previous one is still out is sent as soon as that one is answered, so a slow
 * answer delays the next start and never hides it.
 *
 * Written in C for the same reason as bench/eventstreams.c: the Python sampler spent about
 * 50 us of CPU per request, and back to back it kept a whole core busy on the 2 cores the server
 * shares with the driver; paced, this one leaves the cores to the server.
 *
 * Usage: getsampler PORT SECONDS INTERVAL_US
 * Build: gcc -O2 -Wall -o getsampler bench/getsampler.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "benchclient.h"

static const char request[] = "GET /api/items HTTP/1.1\r\nHost: bench\r\n\r\n";

static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }

/* Reads one response (head with Content-Length, then the body); keeps what follows it. */
static void read_response(int fd, char *buffer, size_t capacity, size_t *have) {
    for (;;) {
        char *end = memmem(buffer, *have, "\r\n\r\n", 4);
        if (end != NULL) {
            long length = -1;
            for (char *line = buffer; line < end; line = strstr(line, "\r\n") + 2) {
                if (strncasecmp(line, "Content-Length:", 15) == 0) length = strtol(line + 15, NULL, 10);
            }
            if (length < 0) {
                fprintf(stderr, "getsampler: a response without Content-Length\n");
                exit(1);
            }
            size_t total = (size_t)(end + 4 - buffer) + (size_t)length;
            if (*have >= total) {
                memmove(buffer, buffer + total, *have - total);
                *have -= total;
                return;
            }
        }
        if (*have == capacity) {
            fprintf(stderr, "getsampler: a response larger than %zu bytes\n", capacity);
            exit(1);
        }
        ssize_t got = recv(fd, buffer + *have, capacity - *have, 0);
        if (got <= 0) die("getsampler: recv");
        *have += (size_t)got;
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: getsampler PORT SECONDS INTERVAL_US\n");
        return 2;
    }
    int port = atoi(argv[1]);
    double seconds = atof(argv[2]);
    double interval = atof(argv[3]) / 1e6;
    /* Wake on time: the default 50 us timer slack would be a third of the idle latency. */
    prctl(PR_SET_TIMERSLACK, 1UL);

    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int on = 1;
    if (fd < 0 || connect(fd, (struct sockaddr *)&to, sizeof to) != 0) die("getsampler: connect");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);

    size_t capacity = 4 << 20, have = 0;
    char *buffer = malloc(capacity);
    size_t max_samples = interval > 0 ? (size_t)(seconds / interval) + 16 : 4000000;
    double *starts = malloc(max_samples * sizeof *starts), *latencies = malloc(max_samples * sizeof *latencies);
    if (buffer == NULL || starts == NULL || latencies == NULL) die("getsampler: malloc");

    size_t count = 0;
    double begin = now_s(), due = begin;
    while (count < max_samples && now_s() < begin + seconds) {
        if (interval > 0) {
            double wait = due - now_s();
            if (wait > 0) {
                struct timespec pause = {.tv_sec = (time_t)wait, .tv_nsec = (long)((wait - (time_t)wait) * 1e9)};
                nanosleep(&pause, NULL);
            }
            due += interval;
        }
        double start = now_s();
        if (send(fd, request, sizeof request - 1, 0) != (ssize_t)(sizeof request - 1)) die("getsampler: send");
        read_response(fd, buffer, capacity, &have);
        starts[count] = start;
        latencies[count] = now_s() - start;
        count++;
    }
    close(fd);
    for (size_t index = 0; index < count; index++) printf("%.6f %.9f\n", starts[index], latencies[index]);
    return 0;
}
