/* dlopen of libavutil/libavcodec/libavformat (see libav.h). */
#define LOG_MODULE "libav"
#include "record/libav.h"

#include "core/log.h"
#include "core/xmalloc.h"

#include <dlfcn.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/log.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define SONAME(lib, major) "lib" #lib ".so." AV_STRINGIFY(major)

static void *handles[3];
static const char *load_error; /* static text, for the first library missing */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* libav's own messages ("concealing 4 DC … errors" on a damaged picture,
 * which glovebox handles) go to the log at debug level, in its format,
 * instead of bare lines on stderr. Any thread. fmt is libav's own. */
__attribute__((format(printf, 3, 0))) static void av_log_line(void *avcl, int level,
                                                              const char *fmt, va_list vl)
{
    (void)avcl;
    if (level > AV_LOG_WARNING || !log_enabled(LOG_DEBUG))
        return;
    char line[512];
    vsnprintf(line, sizeof line, fmt, vl);
    size_t n = strlen(line);
    while (n && line[n - 1] == '\n')
        line[--n] = '\0';
    log_debug("%s", line);
}

static void load(void)
{
    static const char *const libs[] = {
        SONAME(avutil, LIBAVUTIL_VERSION_MAJOR),
        SONAME(avcodec, LIBAVCODEC_VERSION_MAJOR),
        SONAME(avformat, LIBAVFORMAT_VERSION_MAJOR),
    };
    static const char *const missing[] = {
        "libavutil is not installed (Debian: libavutil57)",
        "libavcodec is not installed (Debian: libavcodec59)",
        "libavformat is not installed (Debian: libavformat59)",
    };
    /* Loaded for good: they stay mapped until exit. A library missing
     * leaves the ones before it usable. */
    for (int i = 0; i < 3; i++) {
        handles[i] = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) {
            load_error = missing[i];
            return;
        }
        if (i == 0) {
            void (*set_callback)(void (*)(void *, int, const char *, va_list));
            void *sym = dlsym(handles[0], "av_log_set_callback");
            memcpy(&set_callback, &sym, sizeof sym);
            if (sym)
                set_callback(av_log_line);
        }
    }
}

void *libav_handle(enum libav_lib lib, const char **why)
{
    pthread_once(&load_once, load);
    if (!handles[lib])
        *why = load_error;
    return handles[lib];
}

bool libav_symbol(enum libav_lib lib, const char *name, void *fn, const char **why)
{
    void *h = libav_handle(lib, why);
    if (!h)
        return false;
    void *sym = dlsym(h, name);
    if (!sym) {
        /* Named, so a user can tell which library is too old. Made once
         * per process at most (each table stops at its first miss and
         * keeps the text for good). */
        *why = xasprintf("the installed libav* lack %s, which glovebox needs (Debian 12 has "
                         "it: libavcodec59, libavformat59, libavutil57)",
                         name);
        return false;
    }
    memcpy(fn, &sym, sizeof sym);
    return true;
}
