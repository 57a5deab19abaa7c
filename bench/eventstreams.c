/* eventstreams: the stream reader of bench/events.py (`make bench`).
 *
 * Opens N `GET /api/events` streams to 127.0.0.1:PORT, reads them all with one epoll loop and
 * prints `ready SECONDS` once every stream holds its head and `retry:` hint. Then, for every line
 * `wait VERSION` read on stdin, once every stream holds the event `id: VERSION`, prints one line
 *
 *   arrivals K1 K2 ... KN | R1 R2 ... RN
 *
 * with, per stream, when the event reached the socket (Ki: the kernel's receive timestamp,
 * SO_TIMESTAMPNS) and when this reader had it (Ri: clock_gettime after recv), both as
 * CLOCK_MONOTONIC seconds, the clock Python's time.monotonic() reads. The kernel timestamp is
 * the server's delivery time whatever this process's own scheduling: so the reader can run as
 * SCHED_IDLE (`--idle`) and leave the two cores to the server and the GET sampler without
 * changing the figure it reports. `quit` (or end of input) closes every stream.
 *
 * Written in C because a Python selector thread reading 5,000 sockets spent about a core during
 * each fan-out, on the 2 cores the server and the sampler share (bench/EVENTS.md).
 *
 * Usage: eventstreams PORT N [--idle]
 * Build: gcc -O2 -Wall -o eventstreams bench/eventstreams.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "benchclient.h"

static const char request[] = "GET /api/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n";

/* What a stream keeps: the last bytes read (an id line may straddle two reads), the newest
 * event id it holds and when that event arrived. */
struct stream {
    int fd;
    char tail[256];
    size_t tail_len;
    long version;
    double kernel_s, read_s;
};

static struct stream *streams;
static int count;
static int epoll_fd;
/* The `wait` being answered (-1: none) and how many streams hold that version so far. */
static long waited = -1;
static int holding;

static void watch(int fd, uint32_t index) {
    struct epoll_event event = {.events = EPOLLIN, .data.u32 = index};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0) die("eventstreams: epoll_ctl");
}

static void open_streams(int port) {
    for (int index = 0; index < count; index++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int on = 1;
        if (fd < 0 || connect(fd, (struct sockaddr *)&to, sizeof to) != 0) die("eventstreams: connect");
        if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0) die("eventstreams: SO_TIMESTAMPNS");
        if (send(fd, request, sizeof request - 1, 0) != (ssize_t)(sizeof request - 1)) die("eventstreams: send");
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        streams[index].fd = fd;
        streams[index].version = -1;
        watch(fd, (uint32_t)index);
    }
}

/* The newest complete `id: N` line in `text`, or -1. */
static long newest_id(const char *text, size_t len) {
    long found = -1;
    const char *end = text + len;
    for (const char *at = memmem(text, len, "id: ", 4); at != NULL;
         at = memmem(at + 4, (size_t)(end - at - 4), "id: ", 4)) {
        const char *newline = memchr(at + 4, '\n', (size_t)(end - at - 4));
        if (newline == NULL) break;
        found = strtol(at + 4, NULL, 10);
    }
    return found;
}

/* Reads what one stream has; a newer event id moves its version and arrival times. */
static void drain(struct stream *s) {
    char data[65536];
    char control[CMSG_SPACE(sizeof(struct timespec))];
    for (;;) {
        struct iovec iov = {.iov_base = data, .iov_len = sizeof data};
        struct msghdr message = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                                 .msg_controllen = sizeof control};
        ssize_t got = recvmsg(s->fd, &message, 0);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (got <= 0) {
            fprintf(stderr, "eventstreams: a stream closed early\n");
            exit(1);
        }
        double read_s = clock_s(CLOCK_MONOTONIC);
        double kernel_s = read_s;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c != NULL; c = CMSG_NXTHDR(&message, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec stamp;
                memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
                /* Realtime to monotonic: the two clocks' offset now (they only drift by slewing). */
                double offset = clock_s(CLOCK_REALTIME) - clock_s(CLOCK_MONOTONIC);
                kernel_s = (double)stamp.tv_sec + stamp.tv_nsec / 1e9 - offset;
            }
        }
        /* Search the kept tail followed by the new bytes, then keep the last bytes as the tail. */
        char joined[sizeof s->tail + sizeof data];
        memcpy(joined, s->tail, s->tail_len);
        memcpy(joined + s->tail_len, data, (size_t)got);
        size_t joined_len = s->tail_len + (size_t)got;
        long version = newest_id(joined, joined_len);
        /* The `retry:` hint counts as version 0: the stream is open. */
        if (version < 0 && s->version < 0 && memmem(joined, joined_len, "retry:", 6) != NULL) version = 0;
        if (version > s->version) {
            s->version = version;
            s->kernel_s = kernel_s;
            s->read_s = read_s;
            holding += version == waited;
        }
        s->tail_len = joined_len < sizeof s->tail ? joined_len : sizeof s->tail;
        memcpy(s->tail, joined + joined_len - s->tail_len, s->tail_len);
    }
}

/* Starts answering `wait VERSION`: counts the streams that already hold it. */
static void begin_wait(long version) {
    waited = version;
    holding = 0;
    for (int index = 0; index < count; index++) holding += streams[index].version == version;
}

static void print_arrivals(void) {
    fputs("arrivals", stdout);
    for (int index = 0; index < count; index++) printf(" %.6f", streams[index].kernel_s);
    fputs(" |", stdout);
    for (int index = 0; index < count; index++) printf(" %.6f", streams[index].read_s);
    putchar('\n');
    fflush(stdout);
}

/* One line from stdin: `wait VERSION` starts a wait; anything else (or end of input) quits. */
static int command(void) {
    char line[128];
    ssize_t got = read(STDIN_FILENO, line, sizeof line - 1);
    if (got <= 0) return 0;
    line[got] = '\0';
    long version;
    if (sscanf(line, "wait %ld", &version) != 1) return 0;
    begin_wait(version);
    return 1;
}
int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: eventstreams PORT N [--idle]\n");
        return 2;
    }
    int port = atoi(argv[1]);
    count = atoi(argv[2]);
    if (argc > 3 && strcmp(argv[3], "--idle") == 0) {
        struct sched_param none = {.sched_priority = 0};
        if (sched_setscheduler(0, SCHED_IDLE, &none) != 0) die("eventstreams: SCHED_IDLE");
    }
    streams = calloc((size_t)count, sizeof *streams);
    epoll_fd = epoll_create1(0);
    if (streams == NULL || epoll_fd < 0) die("eventstreams: setup");
    double opened = clock_s(CLOCK_MONOTONIC);
    open_streams(port);
    begin_wait(0);  /* version 0: the head and the `retry:` hint */
    int ready_sent = 0;
    struct epoll_event events[512];
    for (;;) {
        if (waited >= 0 && holding == count) {
            if (ready_sent) {
                print_arrivals();
            } else {
                printf("ready %.3f\n", clock_s(CLOCK_MONOTONIC) - opened);
                fflush(stdout);
                ready_sent = 1;
                watch(STDIN_FILENO, (uint32_t)count);
            }
            waited = -1;
        }
        int ready = epoll_wait(epoll_fd, events, 512, -1);
        if (ready < 0 && errno != EINTR) die("eventstreams: epoll_wait");
        for (int i = 0; i < ready; i++) {
            uint32_t index = events[i].data.u32;
            if (index == (uint32_t)count) {
                if (!command()) goto done;
            } else {
                drain(&streams[index]);
            }
        }
    }
done:
    for (int index = 0; index < count; index++) close(streams[index].fd);
    return 0;
}
