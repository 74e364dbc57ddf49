/* The libav* libraries (FFmpeg's libavutil, libavcodec, libavformat),
 * dlopen'ed once for the whole process by the first user — a WebM
 * recording (record/video.c) or an android screen stream — so a server
 * that uses neither never maps them. The headers give the types at build
 * time; each user looks up the functions it calls with LIBAV_LOOKUP. */
#pragma once
#include <stdbool.h>

enum libav_lib { LIBAV_UTIL, LIBAV_CODEC, LIBAV_FORMAT };

/* The handle of lib (the libraries are loaded in that order), or NULL with
 * *why (static text naming the Debian package to install). Any thread. */
void *libav_handle(enum libav_lib lib, const char **why);

/* Stores the function name of lib in fn (a pointer of name's own type);
 * false with *why (static text) when it cannot. Any thread. */
bool libav_symbol(enum libav_lib lib, const char *name, void *fn, const char **why);
