#ifndef PULLREFRESH_SODIUM_SHIM_H
#define PULLREFRESH_SODIUM_SHIM_H

#include <sodium.h>

#endif
