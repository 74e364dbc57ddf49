#include "backend/terminal/term_feed.h"

#include <string.h>

/* The parser states of libvterm 0.1.4 (its parser.c), as far as they matter
 * here: only ESC starts anything held back, and ESC acts the same from all.
 * CSI_DROP: a CSI with too many parameters, dropped up to its final byte. */
enum { GROUND, ESC, CSI, STR, STR_ESC, CSI_DROP };

/* libvterm keeps a CSI's parameters in 16 slots and does not bound the
 * count: the 16th separator writes past them (and crashes). */
#define CSI_SEPARATORS_MAX 15

#define BEL      0x07
#define CAN      0x18
#define SUB      0x1a
#define ESC_BYTE 0x1b

void term_feed_init(struct term_feed *f, term_feed_write_fn *write, term_feed_write_fn *reply,
                    void *ud)
{
    *f = (struct term_feed){
        .write = write, .reply = reply, .ud = ud, .state = GROUND, .rep_max = 80};
    strbuf_init(&f->held);
    strbuf_init(&f->utf8_held);
    strbuf_init(&f->clean);
}

void term_feed_finish(struct term_feed *f)
{
    strbuf_finish(&f->held);
    strbuf_finish(&f->utf8_held);
    strbuf_finish(&f->clean);
}

static void emit(struct term_feed *f, const char *b, size_t from, size_t to)
{
    if (to > from)
        f->write(b + from, to - from, f->ud);
}

/* Emits b[from..to) where b[to] is the ESC of a sequence libvterm will not
 * get, then CAN: it ends what that ESC would have ended (an escape or string
 * it abandoned, written now or with an earlier feed), so that what is
 * written next is not read as its rest (text as CSI parameters, say). */
static void emit_cut(struct term_feed *f, const char *b, size_t from, size_t to)
{
    emit(f, b, from, to);
    f->write("\x18", 1, f->ud);
}

/* A DECRQSS query libvterm would answer wrongly: all but the five it knows.
 * Controls inside a string are executed, not part of it, as in libvterm;
 * an ESC in it (one not directly followed by its \) is. */
static bool bad_decrqss(const char *b, size_t from, size_t to)
{
    char s[8];
    size_t n = 0;
    for (size_t i = from; i < to; i++) {
        unsigned char c = (unsigned char)b[i];
        if ((c < 0x20 && c != ESC_BYTE) || c == 0x7f)
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

/* Whether b[from..to) is exactly a DECRQSS query libvterm answers: the only
 * DCS it acts on. Anything else (sixel, tmux passthrough, a string with an
 * ESC or a control inside) it ignores at best, and some such strings reach
 * a broken printf in 0.1.4: those are dropped before it sees them. */
static bool known_dcs(const char *b, size_t from, size_t to)
{
    static const char *const known[] = {"$qm", "$qr", "$qs", "$q q", "$q\"q"};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        if (strlen(known[k]) == to - from && !memcmp(b + from, known[k], to - from))
            return true;
    }
    return false;
}

/* Remember the last character printed, for REP. Input is valid UTF-8 here,
 * so a character is whole within b. */
static void note_text(struct term_feed *f, const char *b, size_t i)
{
    unsigned char c = (unsigned char)b[i];
    if (c == ESC_BYTE) {
        memcpy(f->rep, f->last, sizeof f->rep);
        f->rep_len = f->last_len;
        f->last_len = 0;
    } else if (c < 0x20 || c == 0x7f) {
        f->last_len = 0;
    } else if (c < 0x80) {
        f->last[0] = (char)c;
        f->last_len = 1;
    } else if (c >= 0xC0) {
        size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        /* U+0080..U+009F are controls, not characters. */
        bool c1 = c == 0xC2 && (unsigned char)b[i + 1] < 0xA0;
        memcpy(f->last, b + i, len);
        f->last_len = c1 ? 0 : (unsigned char)len;
    }
}

/* libvterm 0.1.4's REP (CSI Ps b) loops for ever after a zero-width
 * character and writes past the row after a wide one, so REP never reaches
 * it: the character is printed Ps times here instead, as xterm does, at most
 * a row's worth. b[hold..i] is the whole CSI; false if it is not a REP. */
static bool repeat(struct term_feed *f, const char *b, size_t hold, size_t i, size_t start)
{
    long count = -1;
    for (size_t j = hold + 2; j < i; j++) {
        unsigned char c = (unsigned char)b[j];
        if (c < 0x20 || c == 0x7f)
            continue;
        if ((c >= 0x3c && c <= 0x3f) || c < 0x30)
            return false; /* a leader or intermediate: some other command */
        if (c == ';' || c == ':')
            break;
        count = (count < 0 ? 0 : count) * 10 + (c - '0');
        if (count > f->rep_max)
            count = f->rep_max;
    }
    if (count <= 0)
        count = 1;
    emit_cut(f, b, start, hold);
    for (size_t j = hold; j < i; j++) {
        if (b[j] != ESC_BYTE && ((unsigned char)b[j] < 0x20 || b[j] == 0x7f))
            f->write(b + j, 1, f->ud); /* controls inside run as libvterm would */
    }
    char buf[256];
    size_t n = 0;
    for (long k = 0; f->rep_len && k < count; k++) {
        if (n + f->rep_len > sizeof buf) {
            f->write(buf, n, f->ud);
            n = 0;
        }
        memcpy(buf + n, f->rep, f->rep_len);
        n += f->rep_len;
    }
    if (n)
        f->write(buf, n, f->ud);
    f->rep_len = 0;
    return true;
}

/* DECSET 69 (DECLRMM): left and right margins. libvterm 0.1.4 leaves them
 * past the edge when the screen narrows, and scrolling inside them then
 * writes outside its buffers; programs that use them are rare, so they are
 * not offered. libvterm reads only the first parameter of a DECSET. */
static bool margins_on(const char *b, size_t hold, size_t i)
{
    size_t j = hold + 2;
    if (j >= i || b[j] != '?')
        return false;
    int v = 0;
    for (j++; j < i && b[j] >= '0' && b[j] <= '9' && v < 1000; j++)
        v = v * 10 + (b[j] - '0');
    return v == 69 && (j == i || b[j] == ';' || b[j] == ':');
}

/* Scan b[i..n) (b[0..i) was scanned before and held), write what is safe and
 * hold the rest. */
static void scan(struct term_feed *f, const char *b, size_t n, size_t i, bool from_held)
{
    int st = f->state;
    bool esc_long = f->esc_long, swallow = f->swallow;
    char kind = f->kind;
    int separators = f->separators;
    size_t hold = f->hold, esc = f->esc, content = f->content;
    size_t start = 0; /* b[start..i) is still to be written */
    for (; i < n; i++) {
        unsigned char c = (unsigned char)b[i];
        if ((st == ESC || st == CSI) && i - (esc_long ? start : hold) >= TERM_FEED_HOLD_MAX) {
            /* Endless parameters: harmless to libvterm in pieces. */
            emit(f, b, start, i);
            start = i;
            esc_long = true;
        } else if ((st == STR || st == STR_ESC) && !swallow && i - hold >= TERM_FEED_HOLD_MAX) {
            emit_cut(f, b, start, hold);
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
        if (st == GROUND)
            note_text(f, b, i);
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
            /* An escape, CSI or string cut short by this ESC (a string's
             * ESC followed by another): a terminal abandons it, and so does
             * libvterm, but only if it sees it whole. Cut here, it would
             * reach libvterm alone and leave its parser inside a sequence
             * (ESC ESC ! [ … b, ESC P ESC ESC ! [ b then hang it), so it
             * is dropped before libvterm sees it. */
            if ((st == ESC || st == CSI || st == STR_ESC) && !esc_long && !swallow) {
                emit(f, b, start, hold);
                start = i;
            }
            swallow = false;
            st = ESC;
            hold = i;
            esc_long = false;
            separators = 0; /* counts intermediates while in ESC */
            continue;
        }
        bool control = c < 0x20 || c == 0x7f;
        bool ends = false;
        switch (st) {
        case ESC:
            /* libvterm runs a control or a byte >= 0x80 met inside an
             * escape and stays in it; strings it then opens or ends that
             * way overflow its buffers (ESC NUL \). No program sends that:
             * the escape is cancelled and the byte goes on as itself. */
            if (control || c >= 0x80) {
                /* CAN also ends a sequence this ESC interrupted, which
                 * libvterm would otherwise still be in. */
                emit(f, b, start, esc_long ? i : hold);
                f->write("\x18", 1, f->ud);
                start = i;
                esc_long = false;
                st = GROUND;
                break;
            }
            if (c >= 0x20 && c <= 0x2f) {
                separators++;
            } else if (separators && (c == '[' || c == ']' || c == 'P')) {
                /* ESC ! [ and the like: no program sends them, and libvterm
                 * 0.1.4 reads them its own way (ESC ! [ 5 b hangs it). The
                 * sequence is dropped; CAN ends what libvterm saw of it. */
                emit(f, b, start, esc_long ? i : hold);
                /* Whatever libvterm saw last, it is at rest after CAN (a
                 * CAN at rest does nothing). */
                f->write("\x18", 1, f->ud);
                start = i + 1;
                esc_long = false;
                st = c == '[' ? CSI_DROP : GROUND;
            } else if (c == ']' || c == 'P') {
                st = STR;
                kind = (char)c;
                content = i + 1;
            } else if (c == '[') {
                st = CSI;
                separators = 0;
            } else if (!control && c >= 0x30 && c < 0x7f) {
                st = GROUND;
            }
            break;
        case CSI:
            if ((c == ';' || c == ':') && ++separators > CSI_SEPARATORS_MAX) {
                /* Let libvterm have the sequence up to here, then CAN: it
                 * ends the CSI unexecuted (xterm would ignore the extra
                 * parameters), and whatever came before (a string the ESC
                 * abandoned, say) ends as it would have. The rest of the
                 * sequence is dropped. */
                emit(f, b, start, i);
                f->write("\x18", 1, f->ud);
                start = i + 1;
                st = CSI_DROP;
                esc_long = false;
                break;
            }
            /* Parameters and intermediates continue it; controls run inside. */
            if (control || (c >= 0x20 && c <= 0x3f))
                break;
            st = GROUND;
            if (c == 'b' && esc_long) {
                /* A REP too long to read: end it unexecuted. */
                emit(f, b, start, i);
                f->write("\x18", 1, f->ud);
                start = i + 1;
            } else if (c == 'b' && repeat(f, b, hold, i, start)) {
                start = i + 1;
            } else if (c == 'h' && !esc_long && margins_on(b, hold, i)) {
                emit_cut(f, b, start, hold);
                start = i + 1;
            }
            break;
        case CSI_DROP:
            start = i + 1;
            if (!control && c >= 0x40)
                st = GROUND; /* the final byte, dropped with the rest */
            break;
        case STR:
            if (c == BEL)
                ends = true;
            else if (swallow)
                start = i + 1;
            break;
        case STR_ESC:
            /* A BEL right after the ESC is a control like the others: were
             * it passed, libvterm 0.1.4 would end the string yet keep the
             * ESC pending, read a following \ as ST and copy a string of
             * a wrong, huge length (found by fuzz_term_screen). */
            if (control) {
                /* ESC then a control inside a string: xterm abandons the
                 * string there, and libvterm 0.1.4 mis-sizes it (a DCS so
                 * ended reaches a broken printf). Drop it; run the control. */
                if (!swallow)
                    emit(f, b, start, hold);
                f->write("\x18", 1, f->ud); /* and whatever came before */
                start = i;
                swallow = false;
                st = GROUND;
                break;
            }
            if (c == '\\') {
                ends = true;
                break;
            }
            /* The string is abandoned and c follows a plain ESC. Its bytes
             * never reach libvterm (a cut DCS can crash it): text before
             * it goes out, the string is dropped. */
            if (!swallow)
                emit(f, b, start, hold);
            f->write("\x18", 1, f->ud);
            start = esc;
            swallow = false;
            hold = esc;
            esc_long = false;
            if (c == ']' || c == 'P') {
                st = STR;
                kind = (char)c;
                content = i + 1;
            } else {
                st = c == '[' ? CSI : c >= 0x30 && c < 0x7f ? GROUND : ESC;
                separators = 0;
            }
            break;
        default:
            break;
        }
        if (ends) {
            if (swallow) {
                start = i + 1;
            } else if (kind == 'P') {
                /* Up to the ESC of an ESC \; a BEL after an ESC keeps it. */
                size_t end = st == STR_ESC && c == '\\' && esc + 1 == i ? esc : i;
                if (!known_dcs(b, content, end)) {
                    emit_cut(f, b, start, hold);
                    if (bad_decrqss(b, content, end))
                        f->reply("\x1bP0$r\x1b\\", 7, f->ud);
                    start = i + 1;
                }
            }
            swallow = false;
            st = GROUND;
        }
    }

    size_t keep = n; /* b[keep..n) is held */
    if ((st == ESC || st == CSI) && !esc_long)
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
    f->separators = separators;
    f->hold = hold >= keep ? hold - keep : 0;
    f->esc = esc >= keep ? esc - keep : 0;
    f->content = content >= keep ? content - keep : 0;
    if (from_held)
        strbuf_consume(&f->held, keep);
    else if (keep < n)
        strbuf_append(&f->held, b + keep, n - keep);
}

static void scan_bytes(struct term_feed *f, const char *bytes, size_t len)
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

/* 1 and *len for a valid sequence at s, 0 when s[0..n) is a valid start cut
 * short, -1 and *len (the maximal bad prefix) when invalid. */
static int utf8_check(const unsigned char *s, size_t n, size_t *len)
{
    unsigned c = s[0], lo = 0x80, hi = 0xBF;
    size_t need;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        lo = c == 0xE0 ? 0xA0 : lo; /* overlong */
        hi = c == 0xED ? 0x9F : hi; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        lo = c == 0xF0 ? 0x90 : lo; /* overlong */
        hi = c == 0xF4 ? 0x8F : hi; /* past U+10FFFF */
    } else {
        *len = 1;
        return -1;
    }
    for (size_t k = 1; k <= need; k++) {
        if (k >= n)
            return 0;
        if (s[k] < (k == 1 ? lo : 0x80) || s[k] > (k == 1 ? hi : 0xBF)) {
            *len = k;
            return -1;
        }
    }
    *len = need + 1;
    return 1;
}

/* libvterm 0.1.4's decoder writes past its buffer when a sequence cut short
 * (by a control, say) is followed by text, so it only ever gets valid UTF-8:
 * bad bytes become U+FFFD, and a sequence split between reads waits for its
 * end. Valid input passes through without a copy. */
static void clean_utf8(struct term_feed *f, const char *in, size_t n)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t i = 0, copied = 0; /* in[copied..i) is good and not yet copied */
    bool changed = false;
    strbuf_clear(&f->clean);
    while (i < n) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t len;
        int r = utf8_check(s + i, n - i, &len);
        /* U+0080..U+009F are C1 controls, which libvterm would print with a
         * width of -1 (walking the cursor off the screen): drop them. */
        bool c1 = r > 0 && s[i] == 0xC2 && s[i + 1] < 0xA0;
        if (r > 0 && !c1) {
            i += len;
            continue;
        }
        strbuf_append(&f->clean, s + copied, i - copied);
        changed = true;
        if (r == 0) {
            strbuf_append(&f->utf8_held, s + i, n - i);
            copied = i = n;
            break;
        }
        if (!c1)
            strbuf_append(&f->clean, "\xEF\xBF\xBD", 3);
        copied = i += len;
    }
    if (!changed) {
        scan_bytes(f, in, n);
        return;
    }
    strbuf_append(&f->clean, s + copied, n - copied);
    scan_bytes(f, f->clean.data, f->clean.len);
}

void term_feed_bytes(struct term_feed *f, const char *bytes, size_t len)
{
    if (!len)
        return;
    if (!f->utf8_held.len) {
        clean_utf8(f, bytes, len);
        return;
    }
    struct strbuf in = f->utf8_held;
    strbuf_init(&f->utf8_held);
    strbuf_append(&in, bytes, len);
    clean_utf8(f, in.data, in.len);
    strbuf_finish(&in);
}

void term_feed_inject(struct term_feed *f, const char *bytes, size_t len)
{
    /* Held bytes have not reached libvterm, so its parser is at rest unless
     * an escape outgrew the hold and is passing through: end that first. */
    if ((f->state == ESC || f->state == CSI) && f->esc_long) {
        f->write("\x18", 1, f->ud);
        f->state = GROUND;
        f->esc_long = false;
    }
    f->write(bytes, len, f->ud);
}
