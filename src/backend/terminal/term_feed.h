/* Cuts program output into the writes libvterm 0.1.4 handles well.
 *
 * 0.1.4 loses an OSC or DCS string split between two writes (so a title split
 * across pty reads never arrives), reads an ESC \ split between writes as a
 * string SIZE_MAX long, copies each string onto its stack, and answers an
 * unknown DECRQSS query (DCS $ q … ST) through a broken printf format. So:
 * an unfinished escape or string is held back until it completes, up to
 * TERM_FEED_HOLD_MAX bytes; a longer string is dropped whole (libvterm would
 * lose it anyway); and unknown DECRQSS queries are answered here, as xterm
 * does. Everything else passes in order, unchanged. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"

#define TERM_FEED_HOLD_MAX 4096

typedef void term_feed_write_fn(const char *buf, size_t len, void *ud);

struct term_feed {
    term_feed_write_fn *write; /* bytes for libvterm */
    term_feed_write_fn *reply; /* answers for the program */
    void *ud;
    struct strbuf held; /* bytes not yet written */
    int state;          /* where libvterm's parser will be after held */
    bool esc_long;      /* an escape outgrew the hold and passes in pieces */
    bool swallow;       /* a string outgrew the hold and is being dropped */
    char kind;          /* the current string's introducer: ']' OSC, 'P' DCS */
    size_t hold, esc, content; /* offsets in held: escape start, last ESC, string text */
};

void term_feed_init(struct term_feed *f, term_feed_write_fn *write, term_feed_write_fn *reply,
                    void *ud);
void term_feed_finish(struct term_feed *f);
/* Pass bytes on, now or (part of them) with a later call. The callbacks must
 * not call back into the feed. */
void term_feed_bytes(struct term_feed *f, const char *bytes, size_t len);
