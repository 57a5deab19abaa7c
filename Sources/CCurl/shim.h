#ifndef PULLREFRESH_CURL_SHIM_H
#define PULLREFRESH_CURL_SHIM_H

#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <curl/curl.h>

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

#endif
