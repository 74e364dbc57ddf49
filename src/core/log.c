#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static enum log_level current = LOG_WARNING;

static _Thread_local const char *context; /* the loop thread's; workers have none */

void log_set_context(const char *ctx)
{
    context = ctx;
}

static const char *const names[] = {"debug", "info", "warning", "error"};

void log_init(void)
{
    const char *env = getenv("GLOVEBOX_LOG");
    if (!env)
        return;
    for (int i = LOG_DEBUG; i <= LOG_ERROR; i++) {
        if (strcmp(env, names[i]) == 0)
            current = (enum log_level)i;
    }
}

void log_set_level(enum log_level level)
{
    current = level;
}

bool log_enabled(enum log_level level)
{
    return level >= current;
}

void log_write(enum log_level level, const char *module, const char *fmt, ...)
{
    if (!log_enabled(level))
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char line[4096];
    /* Worker threads log too; only the loop thread sets a context. */
    const char *ctx = context;
    int n = snprintf(line, sizeof line, "%02d:%02d:%02d.%03ld %s %s: %s%s%s", tm.tm_hour, tm.tm_min,
                     tm.tm_sec, ts.tv_nsec / 1000000, names[level], module, ctx ? "[" : "",
                     ctx ? ctx : "", ctx ? "] " : "");
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof line)
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* One write per line so concurrent writers do not interleave mid-line. */
    fprintf(stderr, "%s\n", line);
}
