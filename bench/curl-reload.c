/* curl-reload: the peer of bench/river.py's 304 figure (`make bench`).
 *
 * Does what one server reload of a river does on the wire: a conditional GET of each of COUNT
 * feeds at http://127.0.0.1:PORT/r/fan<N>.xml, all at once, on libcurl's multi interface, with
 * the options the server sets on every transfer (timeouts, redirects, size cap, gzip, user
 * agent, If-None-Match from the last answer), each easy handle reset and reused and the
 * connections kept. The first reload fetches the bodies and learns the ETags; then RELOADS more,
 * which the feeds answer with 304. Prints the process's CPU per reload over those:
 *
 *   cpu_per_reload_ms 5.12
 *
 * LOOP is how it waits:
 *   poll   curl_multi_poll and curl_multi_perform, the loop of libcurl's own examples;
 *   epoll  libcurl's socket interface over epoll: the server's own loop (the same
 *          pullrefresh_curl_loop from Sources/CCurl/shim.h), in C with nothing around it.
 *
 * So the server's figure is shown beside what libcurl itself costs on this machine for the same
 * fetches: what is left between them is the server's own (Swift) work per reload.
 *
 * Usage: curl-reload PORT COUNT RELOADS poll|epoll
 * Build: gcc -O2 -Wall -I Sources/CCurl -o curl-reload bench/curl-reload.c -lcurl
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "shim.h"

enum { max_feeds = 500, etag_capacity = 128 };

struct feed {
    CURL *handle;
    char url[128];
    char etag[etag_capacity];
    struct curl_slist *headers;
};

static size_t discard_body(char *data, size_t size, size_t count, void *context) {
    (void)data;
    (void)context;
    return size * count;
}

/* Keeps the ETag of the answer, to be sent back as If-None-Match. */
static size_t keep_etag(char *data, size_t size, size_t count, void *context) {
    size_t length = size * count;
    struct feed *feed = context;
    if (length > 6 && strncasecmp(data, "ETag: ", 6) == 0) {
        size_t value = length - 6;
        while (value > 0 && (data[6 + value - 1] == '\r' || data[6 + value - 1] == '\n')) value--;
        if (value < etag_capacity) {
            memcpy(feed->etag, data + 6, value);
            feed->etag[value] = 0;
        }
    }
    return length;
}

static double cpu_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

/* The options of one transfer, as Transfer.attach sets them on a pooled handle. */
static void prepare(struct feed *feed, char *error_buffer) {
    CURL *handle = feed->handle;
    curl_easy_reset(handle);
    curl_slist_free_all(feed->headers);
    feed->headers = curl_slist_append(NULL, "Accept: application/rss+xml, application/atom+xml, */*;q=0.1");
    if (feed->etag[0]) {
        char line[etag_capacity + 16];
        snprintf(line, sizeof line, "If-None-Match: %s", feed->etag);
        feed->headers = curl_slist_append(feed->headers, line);
    }
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error_buffer);
    curl_easy_setopt(handle, CURLOPT_URL, feed->url);
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(handle, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, 15000L);
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(handle, CURLOPT_ACCEPT_ENCODING, "gzip");
    curl_easy_setopt(handle, CURLOPT_USERAGENT, "curl-reload/1 (bench/river.py)");
    curl_easy_setopt(handle, CURLOPT_HTTPHEADER, feed->headers);
    curl_easy_setopt(handle, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)5000000);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, discard_body);
    curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, keep_etag);
    curl_easy_setopt(handle, CURLOPT_HEADERDATA, feed);
}

/* Takes the finished transfers off the multi handle; returns how many there were. */
static int collect(CURLM *multi) {
    int finished = 0, queued = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &queued))) {
        if (message->msg != CURLMSG_DONE) continue;
        curl_multi_remove_handle(multi, message->easy_handle);
        finished++;
    }
    return finished;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: curl-reload PORT COUNT RELOADS poll|epoll\n");
        return 2;
    }
    int port = atoi(argv[1]), count = atoi(argv[2]), reloads = atoi(argv[3]);
    int use_epoll = strcmp(argv[4], "epoll") == 0;
    if (count < 1 || count > max_feeds || reloads < 1) return 2;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)max_feeds);
    static pullrefresh_curl_loop loop;
    if (use_epoll && pullrefresh_curl_loop_start(multi, &loop) != 0) return 1;
    static struct feed feeds[max_feeds];
    static char error_buffer[CURL_ERROR_SIZE + 1];
    for (int index = 0; index < count; index++) {
        feeds[index].handle = curl_easy_init();
        snprintf(feeds[index].url, sizeof feeds[index].url, "http://127.0.0.1:%d/r/fan%d.xml", port, index);
    }
    double start = 0;
    /* Reload 0 learns the ETags and is not counted. */
    for (int reload = 0; reload <= reloads; reload++) {
        if (reload == 1) start = cpu_seconds();
        for (int index = 0; index < count; index++) {
            prepare(&feeds[index], error_buffer);
            curl_multi_add_handle(multi, feeds[index].handle);
        }
        int finished = 0;
        while (finished < count) {
            if (use_epoll) {
                pullrefresh_curl_loop_run_once(multi, &loop, 1000);
            } else {
                int running = 0;
                curl_multi_perform(multi, &running);
                if (running) curl_multi_poll(multi, NULL, 0, 1000, NULL);
            }
            finished += collect(multi);
        }
    }
    printf("cpu_per_reload_ms %.3f\n", (cpu_seconds() - start) / reloads * 1000);
    return 0;
}
