#ifndef PULLREFRESH_MHD_SHIM_H
#define PULLREFRESH_MHD_SHIM_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* MHD_start_daemon is variadic, which Swift cannot call: take a typed option array instead. */
static inline struct MHD_Daemon *prh_start_daemon(unsigned int flags,
                                                  MHD_AccessHandlerCallback handler,
                                                  void *handler_cls,
                                                  struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/* The peer address of a connection, or NULL; MHD_get_connection_info is variadic too. */
static inline const struct sockaddr *prh_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/* Option values that carry function pointers travel as intptr_t inside MHD_OptionItem. */
static inline intptr_t prh_completed_callback_value(MHD_RequestCompletedCallback callback) {
    return (intptr_t)callback;
}

#endif
