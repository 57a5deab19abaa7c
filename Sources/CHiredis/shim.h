#ifndef PULLREFRESH_HIREDIS_SHIM_H
#define PULLREFRESH_HIREDIS_SHIM_H

#include <stddef.h>
#include <sys/time.h>
#include <hiredis/hiredis.h>

#endif
