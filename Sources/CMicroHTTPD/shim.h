#ifndef PULLREFRESH_MHD_SHIM_H
#define PULLREFRESH_MHD_SHIM_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdio.h>
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

/* The socket of a connection, or -1 (for writing event chunks while it is suspended). */
static inline int prh_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/* Option values that carry function pointers travel as intptr_t inside MHD_OptionItem. */
static inline intptr_t prh_completed_callback_value(MHD_RequestCompletedCallback callback) {
    return (intptr_t)callback;
}

/* Open connections across every worker thread (MHD_get_daemon_info is variadic). */
static inline unsigned int prh_daemon_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/* Where libmicrohttpd's own messages go: a formatted line handed to a Swift function. */
struct prh_log_target {
    void (*sink)(void *context, const char *message);
    void *context;
};

/* MHD_OPTION_EXTERNAL_LOGGER's callback takes a va_list, which Swift cannot format: do it here. */
static inline void prh_external_logger(void *cls, const char *format, va_list arguments) {
    const struct prh_log_target *target = (const struct prh_log_target *)cls;
    char message[512];
    vsnprintf(message, sizeof message, format, arguments);
    target->sink(target->context, message);
}

static inline intptr_t prh_external_logger_value(void) {
    return (intptr_t)prh_external_logger;
}

/* The content reader's end markers are macros with casts, which Swift does not import. */
static inline ssize_t prh_content_reader_end_of_stream(void) {
    return MHD_CONTENT_READER_END_OF_STREAM;
}

static inline ssize_t prh_content_reader_end_with_error(void) {
    return MHD_CONTENT_READER_END_WITH_ERROR;
}

#endif
