#ifndef PULLREFRESH_CURL_SHIM_H
#define PULLREFRESH_CURL_SHIM_H

#include <stddef.h>
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift does not import: one typed
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

#endif
