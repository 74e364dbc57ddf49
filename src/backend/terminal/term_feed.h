/* Stands between program output and libvterm 0.1.4: a whitelist.
 *
 * libvterm 0.1.4 crashes, hangs or overruns its buffers on many inputs a
 * program can print (a UTF-8 character cut short then text, an OSC or DCS
 * split between writes, ESC \ split between writes, REP after a zero-width
 * character, more than 16 CSI parameters, DECRQSS queries it does not know,
 * ESC ! [ … b, left/right margins after a resize, …), and fuzzing kept
 * finding more. So instead of dropping the known-bad, only what is known to
 * be safe passes, and libvterm only ever gets whole sequences:
 *  - text: printable ASCII and valid UTF-8 (bad bytes become U+FFFD, C1
 *    controls are dropped, a character split between reads waits for its
 *    end), and the C0 controls BEL BS HT LF VT FF CR SO SI;
 *  - escapes: DECSC/DECRC (ESC 7/8), DECKPAM/DECKPNM (ESC =/>), IND, NEL,
 *    HTS, RI, RIS, DECALN, charset designation ESC ( ) * + with 0, A or B;
 *  - CSI: cursor movement, erase, insert/delete lines and characters,
 *    scrolling, scroll regions, tabs, SGR, device status and attributes,
 *    DECRQM, DECSCUSR, DECSCA, DECSTR, SM/RM of IRM and LNM, DECSET/DECRST of
 *    the DEC modes listed in term_feed.c; at most 16 parameters, each capped
 *    at TERM_FEED_PARAM_MAX, the sequence at most TERM_FEED_CSI_MAX bytes;
 *  - OSC 0, 1 and 2 (titles) up to TERM_FEED_STRING_MAX bytes, controls in
 *    them skipped; DCS only as the DECRQSS queries libvterm answers well
 *    (others get xterm's "invalid" answer from here).
 * REP (CSI Ps b) is done here, by printing the last character again.
 * Everything else is dropped whole and counted (term_feed_dropped): as
 * nothing incomplete or unknown reaches libvterm, its parser is at rest
 * between writes, and the screen can write sequences of its own at any time
 * (term_feed_inject).
 *
 * Streaming: a sequence split between reads is held until it completes.
 * Text runs pass straight from the caller's buffer with a table scan. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

#define TERM_FEED_CSI_MAX    128  /* bytes of one CSI or escape */
#define TERM_FEED_STRING_MAX 4096 /* bytes of one OSC or DCS string */
#define TERM_FEED_PARAM_MAX  9999 /* larger CSI parameters are capped */

typedef void term_feed_write_fn(const char *buf, size_t len, void *ud);

struct term_feed {
    term_feed_write_fn *write; /* bytes for libvterm */
    term_feed_write_fn *reply; /* answers for the program */
    void *ud;
    struct strbuf held;      /* the sequence read so far (controls in it already run) */
    struct strbuf utf8_held; /* the start of a character the last read cut off */
    struct strbuf clean;     /* scratch: input with bad UTF-8 replaced */
    int state;               /* where the parser is: see term_feed.c */
    bool bad;                /* the current sequence outgrew its limit: dropped at its end */
    char last[4];            /* the last character printed (UTF-8), for REP */
    unsigned char last_len;  /* bytes; 0 = none */
    int rep_max;             /* REP's cap: the screen's width */
    uint64_t dropped;        /* sequences and controls dropped */
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
/* Whether nothing is held: the next byte starts fresh. */
bool term_feed_idle(const struct term_feed *f);
/* Escape sequences, strings and control characters dropped so far. */
uint64_t term_feed_dropped(const struct term_feed *f);
