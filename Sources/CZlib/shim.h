#ifndef PULLREFRESH_ZLIB_SHIM_H
#define PULLREFRESH_ZLIB_SHIM_H

#include <zlib.h>

/* deflateInit2 and inflateInit2 are macros, which Swift does not import. */
static inline int prh_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

static inline int prh_inflate_init_gzip(z_streamp stream) {
    return inflateInit2(stream, 15 + 16);
}

#endif
