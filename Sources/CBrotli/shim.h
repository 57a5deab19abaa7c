#ifndef PULLREFRESH_BROTLI_SHIM_H
#define PULLREFRESH_BROTLI_SHIM_H

#include <brotli/encode.h>
#include <brotli/decode.h>

#endif
