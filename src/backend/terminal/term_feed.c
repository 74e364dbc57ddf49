#include "backend/terminal/term_feed.h"

#include <string.h>

/* The parser states of libvterm 0.1.4 that matter here (its parser.c). CSI
 * and plain text are GROUND: only ESC starts anything held back, and ESC acts
 * the same from all of them. */
enum { GROUND, ESC, STR, STR_ESC };

#define BEL 0x07
#define CAN 0x18
#define SUB 0x1a
#define ESC_BYTE 0x1b

void term_feed_init(struct term_feed *f, term_feed_write_fn *write, term_feed_write_fn *reply,
                    void *ud)
{
    *f = (struct term_feed){.write = write, .reply = reply, .ud = ud, .state = GROUND};
    strbuf_init(&f->held);
}

void term_feed_finish(struct term_feed *f)
{
    strbuf_finish(&f->held);
}

static void emit(struct term_feed *f, const char *b, size_t from, size_t to)
{
    if (to > from)
        f->write(b + from, to - from, f->ud);
}

/* A DECRQSS query libvterm would answer wrongly: all but the five it knows.
 * Controls inside a string are executed, not part of it, as in libvterm. */
static bool bad_decrqss(const char *b, size_t from, size_t to)
{
    char s[8];
    size_t n = 0;
    for (size_t i = from; i < to; i++) {
        unsigned char c = (unsigned char)b[i];
        if (c < 0x20 || c == 0x7f)
            continue;
        if (n == sizeof s)
            return s[0] == '$' && s[1] == 'q';
        s[n++] = (char)c;
    }
    if (n < 2 || s[0] != '$' || s[1] != 'q')
        return false;
    static const char *const known[] = {"$qm", "$qr", "$qs", "$q q", "$q\"q"};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        if (strlen(known[k]) == n && !memcmp(s, known[k], n))
            return false;
    }
    return true;
}

/* Scan b[i..n) (b[0..i) was scanned before and held), write what is safe and
 * hold the rest. */
static void scan(struct term_feed *f, const char *b, size_t n, size_t i, bool from_held)
{
    int st = f->state;
    bool esc_long = f->esc_long, swallow = f->swallow;
    char kind = f->kind;
    size_t hold = f->hold, esc = f->esc, content = f->content;
    size_t start = 0; /* b[start..i) is still to be written */
    for (; i < n; i++) {
        unsigned char c = (unsigned char)b[i];
        if (st == ESC && i - (esc_long ? start : hold) >= TERM_FEED_HOLD_MAX) {
            /* Endless intermediates: harmless to libvterm in pieces. */
            emit(f, b, start, i);
            start = i;
            esc_long = true;
        } else if ((st == STR || st == STR_ESC) && !swallow && i - hold >= TERM_FEED_HOLD_MAX) {
            emit(f, b, start, hold);
            start = st == STR_ESC ? esc : i; /* an ESC may still start something */
            swallow = true;
        } else if (st == STR_ESC && swallow && i - esc >= TERM_FEED_HOLD_MAX) {
            start = i; /* ESC and endless controls: drop them with the string */
            st = STR;
        }

        if (c == CAN || c == SUB) {
            if (swallow)
                start = i + 1;
            swallow = false;
            st = GROUND;
            continue;
        }
        if (c == ESC_BYTE) {
            esc = i;
            if (st == STR) {
                st = STR_ESC;
                if (swallow)
                    start = i;
                continue;
            }
            if (swallow)
                start = i;
            swallow = false;
            st = ESC;
            hold = i;
            esc_long = false;
            continue;
        }
        bool control = c < 0x20 || c == 0x7f;
        bool ends = false;
        switch (st) {
        case ESC:
            /* Controls, intermediates and bytes >= 0x80 keep libvterm in ESC. */
            if (c == ']' || c == 'P') {
                st = STR;
                kind = (char)c;
                content = i + 1;
            } else if (!control && c >= 0x30 && c < 0x7f) {
                st = GROUND;
            }
            break;
        case STR:
            if (c == BEL)
                ends = true;
            else if (swallow)
                start = i + 1;
            break;
        case STR_ESC:
            if (control)
                break;
            if (c == '\\') {
                ends = true;
                break;
            }
            /* The string is abandoned and c follows a plain ESC. */
            swallow = false;
            hold = esc;
            esc_long = false;
            if (c == ']' || c == 'P') {
                st = STR;
                kind = (char)c;
                content = i + 1;
            } else {
                st = c >= 0x30 && c < 0x7f ? GROUND : ESC;
            }
            break;
        default:
            break;
        }
        if (ends) {
            if (swallow) {
                start = i + 1;
            } else if (kind == 'P' && bad_decrqss(b, content, st == STR ? i : esc)) {
                emit(f, b, start, hold);
                f->reply("\x1bP0$r\x1b\\", 7, f->ud);
                start = i + 1;
            }
            swallow = false;
            st = GROUND;
        }
    }

    size_t keep = n; /* b[keep..n) is held */
    if (st == ESC && !esc_long)
        keep = hold;
    else if ((st == STR || st == STR_ESC) && !swallow)
        keep = hold;
    else if (st == STR_ESC)
        keep = esc; /* a dropped string's ESC: it may yet start something */
    if (keep < start)
        keep = start; /* never write a byte twice */
    emit(f, b, start, keep);

    f->state = st;
    f->esc_long = esc_long;
    f->swallow = swallow;
    f->kind = kind;
    f->hold = hold >= keep ? hold - keep : 0;
    f->esc = esc >= keep ? esc - keep : 0;
    f->content = content >= keep ? content - keep : 0;
    if (from_held)
        strbuf_consume(&f->held, keep);
    else if (keep < n)
        strbuf_append(&f->held, b + keep, n - keep);
}

void term_feed_bytes(struct term_feed *f, const char *bytes, size_t len)
{
    if (!len)
        return;
    if (!f->held.len) {
        scan(f, bytes, len, 0, false);
        return;
    }
    size_t old = f->held.len;
    strbuf_append(&f->held, bytes, len);
    scan(f, f->held.data, f->held.len, old, true);
}
