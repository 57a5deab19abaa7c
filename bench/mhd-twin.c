/* mhd-twin: the C baseline for `make bench`.
 *
 * A minimal libmicrohttpd server that answers GET with bytes captured from pullrefresh
 * beforehand, so both servers send identical bodies with the same Content-Type. Same daemon
 * setup as Sources/HTTPServer/Server.swift: internal polling thread + epoll (+ ITC, which ours
 * gets with suspend/resume and which lets SIGTERM stop it at once), a thread pool of
 * the given size (the option is only passed for N > 1, as ours does), keep-alive through the
 * two-call handler pattern (first call only sets *con_cls; queueing then would make 0.9.75
 * answer `Connection: close`).
 *
 * Usage: mhd-twin [--poll] [--headers] PORT THREADS PATH CONTENT-TYPE FILE ETAG [HEADERS] [...]...
 *   --poll uses poll() instead of epoll (for when our server switches; see bench/README.md).
 *   --headers: every route takes a fifth argument, a file of `Name: value` lines added to its 200
 *   response (the compression bench passes every header ours sent, e.g. Content-Encoding, Vary,
 *   the security headers). A route with `Content-Encoding: X` checks that the request's
 *   Accept-Encoding names X (a substring test, the least a server must do) and answers 406
 *   otherwise.
 *   PORT 0 picks a free port; the real one is printed as `mhd-twin listening on http://127.0.0.1:N`.
 *   ETAG "-" means none; otherwise it is sent, and a matching If-None-Match gets a 304.
 * Runs until SIGTERM/SIGINT.
 *
 * Build: gcc -O2 -o mhd-twin bench/mhd-twin.c $(pkg-config --cflags --libs libmicrohttpd)
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MAX_ROUTES 16

struct route {
    const char *path;
    const char *etag;
    const char *encoding;              /* Content-Encoding of the body, or NULL */
    struct MHD_Response *ok;           /* built once, queued for every request (refcounted) */
    struct MHD_Response *not_modified;
};

static struct route routes[MAX_ROUTES];
static int route_count;
static struct MHD_Response *not_found;
static int marker; /* any non-NULL address for *con_cls */

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls) {
    (void)cls; (void)version; (void)upload_data;
    if (*con_cls == NULL) { /* first call: headers only; answer on the next call */
        *con_cls = &marker;
        return MHD_YES;
    }
    if (*upload_data_size != 0) { *upload_data_size = 0; return MHD_YES; }
    if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) {
        for (int i = 0; i < route_count; i++) {
            if (strcmp(url, routes[i].path) != 0) continue;
            if (routes[i].encoding != NULL) {
                const char *accept = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Accept-Encoding");
                if (accept == NULL || strstr(accept, routes[i].encoding) == NULL)
                    return MHD_queue_response(connection, MHD_HTTP_NOT_ACCEPTABLE, not_found);
            }
            if (routes[i].not_modified != NULL) {
                const char *inm = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "If-None-Match");
                if (inm != NULL && strcmp(inm, routes[i].etag) == 0)
                    return MHD_queue_response(connection, MHD_HTTP_NOT_MODIFIED, routes[i].not_modified);
            }
            return MHD_queue_response(connection, MHD_HTTP_OK, routes[i].ok);
        }
    }
    return MHD_queue_response(connection, MHD_HTTP_NOT_FOUND, not_found);
}

static char *slurp(const char *file, size_t *size) {
    FILE *f = fopen(file, "rb");
    if (f == NULL) { perror(file); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc(n > 0 ? (size_t)n : 1);
    if (data == NULL || fread(data, 1, (size_t)n, f) != (size_t)n) { perror(file); exit(2); }
    fclose(f);
    *size = (size_t)n;
    return data;
}

/* Adds each `Name: value` line of `file` to `response`; remembers a Content-Encoding. */
static void add_headers(struct route *r, const char *file) {
    size_t size;
    char *text = slurp(file, &size);
    text = realloc(text, size + 1);
    text[size] = '\0';
    for (char *line = strtok(text, "\r\n"); line != NULL; line = strtok(NULL, "\r\n")) {
        char *colon = strchr(line, ':');
        if (colon == NULL) continue;
        *colon = '\0';
        const char *value = colon + 1;
        while (*value == ' ') value++;
        if (strcasecmp(line, "Content-Type") == 0) continue; /* set from its own argument */
        if (strcasecmp(line, "Content-Encoding") == 0) r->encoding = strdup(value);
        MHD_add_response_header(r->ok, line, value);
    }
    /* `text` stays allocated: MHD copies header strings, r->encoding is its own copy. */
}

int main(int argc, char **argv) {
    unsigned int event_loop = MHD_USE_EPOLL;
    int per_route = 4;
    while (argc > 1 && argv[1][0] == '-' && argv[1][1] == '-') {
        if (strcmp(argv[1], "--poll") == 0) event_loop = MHD_USE_POLL;
        else if (strcmp(argv[1], "--headers") == 0) per_route = 5;
        else break;
        argv++;
        argc--;
    }
    if (argc < 3 + per_route || (argc - 3) % per_route != 0 || (argc - 3) / per_route > MAX_ROUTES) {
        fprintf(stderr, "usage: %s [--poll] [--headers] PORT THREADS (PATH CONTENT-TYPE FILE ETAG|- [HEADERS])...\n",
                argv[0]);
        return 2;
    }
    int port = atoi(argv[1]);
    unsigned int threads = (unsigned int)atoi(argv[2]);
    for (int a = 3; a < argc; a += per_route) {
        struct route *r = &routes[route_count++];
        size_t size;
        char *body = slurp(argv[a + 2], &size);
        r->path = argv[a];
        r->ok = MHD_create_response_from_buffer(size, body, MHD_RESPMEM_PERSISTENT);
        MHD_add_response_header(r->ok, MHD_HTTP_HEADER_CONTENT_TYPE, argv[a + 1]);
        if (per_route == 5) add_headers(r, argv[a + 4]);
        if (strcmp(argv[a + 3], "-") != 0) {
            r->etag = argv[a + 3];
            MHD_add_response_header(r->ok, MHD_HTTP_HEADER_ETAG, r->etag);
            r->not_modified = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
            MHD_add_response_header(r->not_modified, MHD_HTTP_HEADER_ETAG, r->etag);
        }
    }
    not_found = MHD_create_response_from_buffer(9, "not found", MHD_RESPMEM_PERSISTENT);

    /* Block the stop signals before MHD starts its threads (they inherit the mask); main waits. */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | event_loop | MHD_USE_ITC, (uint16_t)port, NULL, NULL, handle, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_LISTENING_ADDRESS_REUSE, 1U,
        MHD_OPTION_CONNECTION_LIMIT, 1024U,
        MHD_OPTION_CONNECTION_TIMEOUT, 15U,
        threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, threads,
        MHD_OPTION_END);
    if (daemon == NULL) { fprintf(stderr, "mhd-twin: MHD_start_daemon failed\n"); return 1; }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    printf("mhd-twin listening on http://127.0.0.1:%u\n", info != NULL ? info->port : (unsigned)port);
    fflush(stdout);

    int sig;
    sigwait(&stop_signals, &sig);
    MHD_stop_daemon(daemon);
    return 0;
}
