/* Logging to stderr only: stdout belongs to the stdio transport.
 * Each .c file defines LOG_MODULE before including this header. The level
 * comes from GLOVEBOX_LOG (debug, info, warning, error; default warning). */
#pragma once
#include <stdbool.h>

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERROR };

void log_init(void);
void log_set_level(enum log_level level);
bool log_enabled(enum log_level level);
/* While set (not NULL), every line carries "[ctx] " after its module: the
 * REST API sets a call's correlation id around the work it does for it.
 * ctx is borrowed until the next call; loop thread only. */
void log_set_context(const char *ctx);
void log_write(enum log_level level, const char *module, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#ifndef LOG_MODULE
#define LOG_MODULE "glovebox"
#endif

#define log_debug(...) log_write(LOG_DEBUG, LOG_MODULE, __VA_ARGS__)
#define log_info(...)  log_write(LOG_INFO, LOG_MODULE, __VA_ARGS__)
#define log_warn(...)  log_write(LOG_WARNING, LOG_MODULE, __VA_ARGS__)
#define log_error(...) log_write(LOG_ERROR, LOG_MODULE, __VA_ARGS__)
