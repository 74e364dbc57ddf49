/* Cuts program output into the writes libvterm 0.1.4 handles safely.
 *
 * 0.1.4's UTF-8 decoder overruns a stack buffer when a character cut short
 * is followed by text; it loses an OSC or DCS string split between writes (a
 * title split across pty reads never arrives); it reads an ESC \ split
 * between writes as a string SIZE_MAX long; it copies each string onto its
 * stack; and it answers an unknown DECRQSS query (DCS $ q … ST) through a
 * broken printf format. So here:
 *  - bad UTF-8 becomes U+FFFD, and a character split between reads waits for
 *    its end;
 *  - an unfinished escape, CSI or string is held back until it completes, up
 *    to TERM_FEED_HOLD_MAX bytes; a longer string is dropped whole (libvterm
 *    would lose it anyway), longer escapes pass in pieces;
 *  - unknown DECRQSS queries are answered here, as xterm does;
 *  - REP (CSI Ps b), which hangs or overruns in 0.1.4, is done here by
 *    printing the character again, at most rep_max times;
 *  - a CSI of more than 16 parameters, which overruns libvterm's argument
 *    array (0.1.4 to 0.3.3), is dropped.
 * Everything else passes in order, unchanged. As nothing incomplete reaches
 * libvterm, its parser is at rest between feeds and the screen can inject
 * sequences of its own (term_feed_inject). */
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
    struct strbuf held;              /* bytes not yet written */
    struct strbuf utf8_held;         /* the start of a character the last read cut off */
    struct strbuf clean;             /* scratch: input with bad UTF-8 replaced */
    int state;                       /* where libvterm's parser will be after held */
    bool esc_long;                   /* an escape or CSI outgrew the hold: passes in pieces */
    bool swallow;                    /* a string outgrew the hold and is being dropped */
    char kind;                       /* the current string's introducer: ']' OSC, 'P' DCS */
    int separators;                  /* ';' and ':' in the current CSI so far */
    size_t hold, esc, content;       /* offsets in held: escape start, last ESC, string text */
    char last[4], rep[4];            /* the last character printed (UTF-8), and before ESC */
    unsigned char last_len, rep_len; /* bytes; 0 = none */
    int rep_max;                     /* REP's cap: the screen's width */
};

void term_feed_init(struct term_feed *f, term_feed_write_fn *write, term_feed_write_fn *reply,
                    void *ud);
void term_feed_finish(struct term_feed *f);
/* Pass bytes on, now or (part of them) with a later call. The callbacks must
 * not call back into the feed. */
void term_feed_bytes(struct term_feed *f, const char *bytes, size_t len);
/* Write a complete sequence of the screen's own to libvterm now, ahead of
 * anything held back. */
void term_feed_inject(struct term_feed *f, const char *bytes, size_t len);
