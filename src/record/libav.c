/* dlopen of libavutil/libavcodec/libavformat (see libav.h). */
#include "record/libav.h"

#include <dlfcn.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <pthread.h>
#include <string.h>

#define SONAME(lib, major) "lib" #lib ".so." AV_STRINGIFY(major)

static void *handles[3];
static const char *load_error; /* static text, for the first library missing */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

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
        *why = "the installed libav* lack a function glovebox needs";
        return false;
    }
    memcpy(fn, &sym, sizeof sym);
    return true;
}
