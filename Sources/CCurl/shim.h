#ifndef PULLREFRESH_CURL_SHIM_H
#define PULLREFRESH_CURL_SHIM_H

#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* curl_easy_setopt, curl_easy_getinfo, curl_multi_setopt and curl_share_setopt are variadic, which Swift does not import: one typed
   wrapper per argument kind. */
typedef size_t (*pullrefresh_curl_write)(char *data, size_t size, size_t count, void *context);

static inline CURLcode pullrefresh_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pullrefresh_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pullrefresh_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pullrefresh_curl_set_write(CURL *handle, pullrefresh_curl_write function) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, function);
}

static inline CURLcode pullrefresh_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode pullrefresh_curl_get_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode pullrefresh_curl_get_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

typedef curl_socket_t (*pullrefresh_curl_open_socket)(void *context, curlsocktype purpose,
                                                      struct curl_sockaddr *address);

static inline CURLcode pullrefresh_curl_set_open_socket(CURL *handle, pullrefresh_curl_open_socket function) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, function);
}

static inline CURLcode pullrefresh_curl_set_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/* The address libcurl is about to connect to, as 4 (IPv4) or 16 (IPv6) bytes in network order
   into `bytes`; returns the count, 0 for any other family. */
static inline int pullrefresh_curl_address_bytes(const struct curl_sockaddr *address, unsigned char bytes[16]) {
    if (address->family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)&address->addr;
        memcpy(bytes, &v4->sin_addr, 4);
        return 4;
    }
    if (address->family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&address->addr;
        memcpy(bytes, &v6->sin6_addr, 16);
        return 16;
    }
    return 0;
}

/* The socket libcurl would have opened itself, for an address that passed the check. */
static inline curl_socket_t pullrefresh_curl_open(const struct curl_sockaddr *address) {
    return socket(address->family, address->socktype, address->protocol);
}

static inline CURLMcode pullrefresh_curl_multi_set_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/* Makes `share` hold a DNS cache of its own, used by the easy handles it is set on instead of
   their multi handle's. */
static inline CURLSHcode pullrefresh_curl_share_dns(CURLSH *share) {
    return curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
}

/* The transfer loop's waiting (Sources/Upstream/TransferLoop.swift): libcurl's socket interface
   over epoll. libcurl says which sockets it waits on through the socket callback and when it next
   wants to be called through the timer callback; the loop then waits in epoll_wait, which costs
   by the sockets that are ready, and hands each ready one to curl_multi_socket_action, which
   runs only that socket's transfer. (curl_multi_poll and curl_multi_perform walk every socket
   and every transfer at each wake-up: with 100 feeds answering one by one, 100 times per
   reload.) Both callbacks run inside curl_multi_socket_action and curl_multi_add_handle, so on
   the loop's thread only, like everything in this struct. */
typedef struct {
    int epoll;
    /* The eventfd a submission writes to, watched beside libcurl's sockets. */
    int wake;
    /* When libcurl wants curl_multi_socket_action(CURL_SOCKET_TIMEOUT), in CLOCK_MONOTONIC
       milliseconds; -1: it wants no call. */
    long long timer_due;
} pullrefresh_curl_loop;

static inline long long pullrefresh_monotonic_milliseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static inline int pullrefresh_curl_loop_socket(CURL *easy, curl_socket_t socket, int what, void *context,
                                               void *socket_context) {
    (void)easy;
    (void)socket_context;
    pullrefresh_curl_loop *loop = context;
    if (what == CURL_POLL_REMOVE) {
        /* Fails harmlessly when libcurl already closed it: a closed socket leaves epoll itself. */
        epoll_ctl(loop->epoll, EPOLL_CTL_DEL, socket, NULL);
        return 0;
    }
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0);
    event.data.fd = socket;
    /* A socket libcurl watched before is changed, a new one added: no set of our own to keep. */
    if (epoll_ctl(loop->epoll, EPOLL_CTL_MOD, socket, &event) != 0 && errno == ENOENT) {
        epoll_ctl(loop->epoll, EPOLL_CTL_ADD, socket, &event);
    }
    return 0;
}

static inline int pullrefresh_curl_loop_timer(CURLM *multi, long timeout_ms, void *context) {
    (void)multi;
    pullrefresh_curl_loop *loop = context;
    loop->timer_due = timeout_ms < 0 ? -1 : pullrefresh_monotonic_milliseconds() + timeout_ms;
    return 0;
}

/* Sets up `loop` (an epoll instance watching a new eventfd) and makes `multi` report to it.
   Returns 0, or -1 when the kernel refused either. */
static inline int pullrefresh_curl_loop_start(CURLM *multi, pullrefresh_curl_loop *loop) {
    loop->timer_due = -1;
    loop->epoll = epoll_create1(EPOLL_CLOEXEC);
    loop->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (loop->epoll < 0 || loop->wake < 0) return -1;
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLIN;
    event.data.fd = loop->wake;
    if (epoll_ctl(loop->epoll, EPOLL_CTL_ADD, loop->wake, &event) != 0) return -1;
    curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, pullrefresh_curl_loop_socket);
    curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, loop);
    curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, pullrefresh_curl_loop_timer);
    curl_multi_setopt(multi, CURLMOPT_TIMERDATA, loop);
    return 0;
}

/* Wakes the loop's wait; from any thread. */
static inline void pullrefresh_curl_loop_wake(int wake) {
    uint64_t one = 1;
    ssize_t written = write(wake, &one, sizeof one);
    (void)written; /* EAGAIN: the counter is already non-zero, so a wake-up is pending anyway */
}

/* Waits until a socket is ready, a wake-up comes or libcurl's timer is due (at most
   `longest_ms`), then hands every ready socket to curl_multi_socket_action, and libcurl's timer
   if it is due. A wake-up (the eventfd) is read here: the caller takes the submissions on each
   return anyway. */
static inline void pullrefresh_curl_loop_run_once(CURLM *multi, pullrefresh_curl_loop *loop, int longest_ms) {
    int wait = longest_ms;
    if (loop->timer_due >= 0) {
        long long left = loop->timer_due - pullrefresh_monotonic_milliseconds();
        wait = left <= 0 ? 0 : (left < longest_ms ? (int)left : longest_ms);
    }
    struct epoll_event events[64];
    int ready = epoll_wait(loop->epoll, events, 64, wait);
    int running = 0;
    for (int index = 0; index < ready; index++) {
        int socket = events[index].data.fd;
        if (socket == loop->wake) {
            uint64_t count;
            ssize_t got = read(loop->wake, &count, sizeof count);
            (void)got;
            continue;
        }
        uint32_t flags = events[index].events;
        int action = ((flags & EPOLLIN) ? CURL_CSELECT_IN : 0) | ((flags & EPOLLOUT) ? CURL_CSELECT_OUT : 0) |
                     ((flags & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0);
        curl_multi_socket_action(multi, socket, action, &running);
    }
    if (loop->timer_due >= 0 && loop->timer_due <= pullrefresh_monotonic_milliseconds()) {
        /* One-shot: libcurl sets the next one from inside this call if it wants one. */
        loop->timer_due = -1;
        curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
    }
}

#endif
