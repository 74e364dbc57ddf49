/* The libav* libraries (FFmpeg's libavutil, libavcodec, libavformat),
 * dlopen'ed once for the whole process by the first user — a WebM
 * recording (record/video.c) or an android screen stream — so a server
 * that uses neither never maps them. The headers give the types at build
 * time; each user looks up the functions it calls (LIBAV_FUNCTION_TABLE). */
#pragma once
#include <pthread.h>
#include <stdbool.h>

enum libav_lib { LIBAV_UTIL, LIBAV_CODEC, LIBAV_FORMAT };

/* The handle of lib (the libraries are loaded in that order), or NULL with
 * *why (static text naming the Debian package to install). Any thread. */
void *libav_handle(enum libav_lib lib, const char **why);

/* Stores the function name of lib in fn (a pointer of name's own type);
 * false with *why (text that lives as long as the process, naming the
 * function) when it cannot. Any thread. */
bool libav_symbol(enum libav_lib lib, const char *name, void *fn, const char **why);

/* For a file's list of functions — LIST(X) expanding X(lib, name) for each
 * — a static table av of pointers of each function's own type, a static
 * load_error (static text; NULL once loaded) and a static load() that
 * fills the table, to run once: pthread_once(&load_once, load). */
#define LIBAV_FUNCTION_TABLE(LIST)                                                                 \
    static struct {                                                                                \
        LIST(LIBAV_FIELD_)                                                                         \
    } av;                                                                                          \
    static const char *load_error;                                                                 \
    static pthread_once_t load_once = PTHREAD_ONCE_INIT;                                           \
    static void load(void)                                                                         \
    {                                                                                              \
        LIST(LIBAV_LOOKUP_)                                                                        \
    }
#define LIBAV_FIELD_(lib, name) __typeof__(&name) name;
#define LIBAV_LOOKUP_(lib, name)                                                                   \
    if (!libav_symbol(lib, #name, &av.name, &load_error))                                          \
        return;
