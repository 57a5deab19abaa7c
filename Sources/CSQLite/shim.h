#ifndef PULLREFRESH_SQLITE_SHIM_H
#define PULLREFRESH_SQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import: bound text
   and blobs are copied by SQLite (the Swift buffers live only for the call). */
static inline void (*pullrefresh_sqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }

#endif
