/* storm: the refresh-storm client for `make bench` (scenario 5).
 *
 * Opens N keep-alive connections to 127.0.0.1:PORT from SOURCE (e.g. 127.0.0.2, so they do not
 * share the per-IP connection limit with wrk), then, for every line `fire` read on stdin, sends
 * `POST /api/refresh` on all N at once and waits for every answer, and prints one line:
 *
 *   ok=200 failed=0 versions=7 slowest_ms=1005.3 reconnects=0
 *
 * `versions` lists the distinct X-Feed-Version values of the answers (all N callers must share one
 * reload). Written in C because the client shares a core with wrk: a Python client spent ~5 ms of
 * CPU per storm there, which showed up in wrk's latencies; this one needs well under 1 ms.
 *
 * Usage: storm PORT N SOURCE      (then `fire` / `quit` on stdin)
 * Build: gcc -O2 -o storm bench/storm.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct conn {
    int fd;
    char *buf;
    size_t len, cap;
    int done, status, version, closed;
    double finished_ms;
};

static int port;
static struct in_addr source;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int open_conn(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in from = {.sin_family = AF_INET, .sin_addr = source};
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&from, sizeof from) != 0 ||
        connect(fd, (struct sockaddr *)&to, sizeof to) != 0) {
        perror("storm: connect");
        exit(1);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

/* A header value as an integer, or -1. `head` is NUL-terminated. */
static long header_number(const char *head, const char *name) {
    size_t n = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line != NULL; line = strstr(line + 2, "\r\n")) {
        if (strncasecmp(line + 2, name, n) == 0 && line[2 + n] == ':') return strtol(line + 3 + n, NULL, 10);
    }
    return -1;
}

/* Marks the connection done once the whole response (headers + Content-Length body) is in. */
static void check_done(struct conn *c, double now) {
    char *end = memmem(c->buf, c->len, "\r\n\r\n", 4);
    if (end == NULL) {
        if (c->closed) { c->done = 1; c->finished_ms = now; }
        return;
    }
    *end = '\0';
    long length = header_number(c->buf, "Content-Length");
    size_t have = c->len - (size_t)(end + 4 - c->buf);
    if (c->closed || (length >= 0 && have >= (size_t)length)) {
        c->status = (int)strtol(c->buf + 9, NULL, 10);
        c->version = (int)header_number(c->buf, "X-Feed-Version");
        if (strcasestr(c->buf, "\r\nConnection: close") != NULL) c->closed = 1;
        c->done = 1;
        c->finished_ms = now;
    } else {
        *end = '\r';
    }
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s PORT N SOURCE\n", argv[0]); return 2; }
    port = atoi(argv[1]);
    int n = atoi(argv[2]);
    if (n <= 0 || inet_pton(AF_INET, argv[3], &source) != 1) { fprintf(stderr, "storm: bad arguments\n"); return 2; }
    struct conn *conns = calloc((size_t)n, sizeof *conns);
    for (int i = 0; i < n; i++) {
        conns[i].fd = open_conn();
        conns[i].cap = 16384;
        conns[i].buf = malloc(conns[i].cap);
    }
    char request[256];
    int request_len = snprintf(request, sizeof request,
                               "POST /api/refresh HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: application/json\r\n"
                               "Content-Length: 0\r\n\r\n", port);
    int ep = epoll_create1(0);
    struct epoll_event events[256];
    char line[64];
    int reconnects = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("storm ready: %d connections\n", n);

    while (fgets(line, sizeof line, stdin) != NULL && strncmp(line, "fire", 4) == 0) {
        double start = now_ms();
        for (int i = 0; i < n; i++) {
            struct conn *c = &conns[i];
            c->len = 0; c->done = 0; c->status = 0; c->version = -1; c->closed = 0;
            struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
            epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
            if (write(c->fd, request, (size_t)request_len) != request_len) { c->done = 1; c->closed = 1; }
        }
        int pending = 0;
        for (int i = 0; i < n; i++) pending += !conns[i].done;
        double deadline = start + 60000;
        while (pending > 0 && now_ms() < deadline) {
            int ready = epoll_wait(ep, events, 256, 1000);
            for (int e = 0; e < ready; e++) {
                struct conn *c = &conns[events[e].data.u32];
                if (c->done) continue;
                if (c->cap - c->len < 4096) { c->cap *= 2; c->buf = realloc(c->buf, c->cap); }
                ssize_t got = read(c->fd, c->buf + c->len, c->cap - c->len - 1);
                if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
                if (got <= 0) c->closed = 1; else c->len += (size_t)got;
                check_done(c, now_ms());
                if (c->done) { pending--; epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL); }
            }
        }
        int ok = 0, failed = 0, versions[8], distinct = 0;
        double slowest = 0;
        for (int i = 0; i < n; i++) {
            struct conn *c = &conns[i];
            if (!c->done) epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
            if (c->done && c->status == 200) ok++; else failed++;
            if (c->done && c->finished_ms - start > slowest) slowest = c->finished_ms - start;
            int seen = 0;
            for (int v = 0; v < distinct; v++) seen |= versions[v] == c->version;
            if (!seen && c->version >= 0 && distinct < 8) versions[distinct++] = c->version;
            if (!c->done || c->closed) { close(c->fd); c->fd = open_conn(); reconnects++; }
        }
        printf("ok=%d failed=%d versions=", ok, failed);
        for (int v = 0; v < distinct; v++) printf("%s%d", v ? "," : "", versions[v]);
        printf(" slowest_ms=%.1f reconnects=%d\n", slowest, reconnects);
    }
    return 0;
}
