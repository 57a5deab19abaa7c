#ifndef PULLREFRESH_UCHARDET_SHIM_H
#define PULLREFRESH_UCHARDET_SHIM_H

/* uchardet 0.0.7 (Debian's libuchardet-dev): guesses a text's encoding from its bytes.
   The pkg-config file adds -I/usr/include/uchardet. */
#include <uchardet.h>

#endif
