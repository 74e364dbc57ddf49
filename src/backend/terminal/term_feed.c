#include "backend/terminal/term_feed.h"

#include <string.h>

/* Parser states. STR: inside an OSC, DCS or other string; STR_ESC: an ESC
 * inside one (ESC \ ends it, anything else abandons it). */
enum { GROUND, ESC, CSI, STR, STR_ESC };

#define BEL      0x07
#define CAN      0x18
#define SUB      0x1a
#define ESC_BYTE 0x1b
#define DEL      0x7f

/* libvterm 0.1.4 keeps 16 CSI parameters and does not bound the count. */
#define CSI_ARGS_MAX 16

/* Bytes that pass as they are in text: printable ASCII, the bytes of UTF-8
 * characters (input is valid UTF-8 by then), and the C0 controls libvterm
 * handles: BEL BS HT LF VT FF CR SO SI. */
static inline bool text_byte(unsigned char c)
{
    return c >= 0x20 ? c != 0x7f : (unsigned)(c - 0x07) <= 0x0f - 0x07;
}

/* DEC private modes (DECSET/DECRST) libvterm 0.1.4 handles safely: cursor
 * keys, reverse video, origin, autowrap, cursor blink and visibility, the
 * alternate screen and saved cursor, mouse reporting and its encodings,
 * focus reports, bracketed paste. Not 69 (DECLRMM): 0.1.4 leaves the margins
 * past the edge when the screen narrows and then writes outside its buffers. */
static const int dec_modes[] = {1,    5,    6,    7,    12,   25,   47,   1000, 1002,
                                1003, 1004, 1005, 1006, 1015, 1047, 1048, 1049, 2004};

/* The DECRQSS queries libvterm answers well: SGR, scroll region, margins,
 * cursor style, character protection. */
static const char *const decrqss[] = {"$qm", "$qr", "$qs", "$q q", "$q\"q"};

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

bool term_feed_idle(const struct term_feed *f)
{
    return f->state == GROUND && !f->utf8_held.len;
}

uint64_t term_feed_dropped(const struct term_feed *f)
{
    return f->dropped;
}

static void drop(struct term_feed *f)
{
    f->dropped++;
    f->state = GROUND;
    f->bad = false;
    strbuf_clear(&f->held);
}

/* Remember the last character of the text b[0..n) for REP. Text is valid
 * UTF-8, so its last character starts at most 3 bytes back. */
static void note_last(struct term_feed *f, const char *b, size_t n)
{
    unsigned char c = (unsigned char)b[n - 1];
    if (c < 0x20) {
        f->last_len = 0;
        return;
    }
    size_t k = n - 1;
    while (k > 0 && n - k < 4 && ((unsigned char)b[k] & 0xC0) == 0x80)
        k--;
    f->last_len = (unsigned char)(n - k);
    memcpy(f->last, b + k, n - k);
}

static void emit_text(struct term_feed *f, const char *b, size_t n)
{
    if (!n)
        return;
    f->write(b, n, f->ud);
    note_last(f, b, n);
}

/* A control met inside a sequence runs as it would in a terminal (the
 * sequence goes on) when libvterm handles it; CAN and SUB cancel the
 * sequence; ESC starts another (dropping this one). */
static void control_in_sequence(struct term_feed *f, unsigned char c)
{
    if (c == CAN || c == SUB) {
        drop(f);
    } else if (c == ESC_BYTE) {
        drop(f);
        f->state = ESC;
        strbuf_putc(&f->held, ESC_BYTE);
    } else if (text_byte(c)) {
        f->write((const char *)&c, 1, f->ud);
        f->last_len = 0;
    } else {
        f->dropped++;
    }
}

/* ---------------------------------------------------------------- CSI */

struct csi {
    char leader; /* '<' '=' '>' '?' or 0 */
    int n;       /* parameters */
    int arg[CSI_ARGS_MAX];
    char sep[CSI_ARGS_MAX]; /* after arg[i]: ';' or ':' (0 after the last) */
    char inter[2];
    int ninter;
    char final;
};

/* Parses held (ESC [ … final). False when malformed or over the limits. */
static bool parse_csi(const char *s, size_t len, struct csi *c)
{
    *c = (struct csi){.final = s[len - 1]};
    size_t j = 2, end = len - 1;
    if (j < end && s[j] >= '<' && s[j] <= '?')
        c->leader = s[j++];
    if (j < end && s[j] >= '0' && s[j] <= ';') {
        c->n = 1;
        c->arg[0] = -1;
    }
    for (; j < end && s[j] >= '0' && s[j] <= ';'; j++) {
        if (s[j] == ';' || s[j] == ':') {
            if (c->n == CSI_ARGS_MAX)
                return false;
            c->sep[c->n - 1] = s[j];
            c->arg[c->n++] = -1;
            continue;
        }
        int *a = &c->arg[c->n - 1];
        *a = (*a < 0 ? 0 : *a) * 10 + (s[j] - '0');
        if (*a > TERM_FEED_PARAM_MAX)
            *a = TERM_FEED_PARAM_MAX;
    }
    for (; j < end && s[j] >= 0x20 && s[j] <= 0x2f; j++) {
        if (c->ninter == 2)
            return false;
        c->inter[c->ninter++] = s[j];
    }
    return j == end; /* a leader or parameter after the start: malformed */
}

static int arg(const struct csi *c, int i, int missing)
{
    return i < c->n && c->arg[i] >= 0 ? c->arg[i] : missing;
}

static void write_csi(struct term_feed *f, const struct csi *c, int from, int count)
{
    char buf[16 + CSI_ARGS_MAX * 6];
    size_t n = 0;
    buf[n++] = ESC_BYTE;
    buf[n++] = '[';
    if (c->leader)
        buf[n++] = c->leader;
    for (int i = from; i < from + count; i++) {
        if (c->arg[i] >= 0) {
            /* By hand: snprintf showed in profiles of SGR-heavy output. */
            char digits[8];
            int k = 0;
            for (int v = c->arg[i]; k == 0 || v; v /= 10)
                digits[k++] = (char)('0' + v % 10);
            while (k)
                buf[n++] = digits[--k];
        }
        if (i + 1 < from + count)
            buf[n++] = c->sep[i] ? c->sep[i] : ';';
    }
    for (int i = 0; i < c->ninter; i++)
        buf[n++] = c->inter[i];
    buf[n++] = c->final;
    f->write(buf, n, f->ud);
}

static bool known_mode(const int *modes, size_t count, int mode)
{
    for (size_t i = 0; i < count; i++) {
        if (modes[i] == mode)
            return true;
    }
    return false;
}

/* SM/RM and DECSET/DECRST: libvterm 0.1.4 reads only the first parameter,
 * so each known mode goes as a sequence of its own; unknown ones are
 * dropped. */
static void set_modes(struct term_feed *f, const struct csi *c)
{
    static const int ansi_modes[] = {4, 20}; /* IRM, LNM */
    bool dec = c->leader == '?';
    for (int i = 0; i < c->n; i++) {
        bool ok = dec ? known_mode(dec_modes, sizeof dec_modes / sizeof dec_modes[0], c->arg[i])
                      : known_mode(ansi_modes, 2, c->arg[i]);
        if (ok)
            write_csi(f, c, i, 1);
        else
            f->dropped++;
    }
}

/* REP (CSI Ps b): libvterm 0.1.4's loops for ever after a zero-width
 * character and writes past the row after a wide one, so the character is
 * printed again here, as xterm does, at most a row's worth. */
static void repeat(struct term_feed *f, const struct csi *c)
{
    int count = arg(c, 0, 1);
    if (count < 1)
        count = 1;
    if (count > f->rep_max)
        count = f->rep_max;
    char buf[256];
    size_t n = 0;
    for (int k = 0; f->last_len && k < count; k++) {
        if (n + f->last_len > sizeof buf) {
            f->write(buf, n, f->ud);
            n = 0;
        }
        memcpy(buf + n, f->last, f->last_len);
        n += f->last_len;
    }
    if (n)
        f->write(buf, n, f->ud);
    f->last_len = 0;
}

/* Whether the CSI (no leader, no intermediate) is one libvterm handles
 * safely with any parameters up to the cap. */
static bool plain_csi_ok(const struct csi *c)
{
    switch (c->final) {
    case '@':
    case 'A':
    case 'B':
    case 'C':
    case 'D':
    case 'E':
    case 'F':
    case 'G':
    case 'H':
    case 'I':
    case 'J':
    case 'K':
    case 'L':
    case 'M':
    case 'P':
    case 'S':
    case 'T':
    case 'X':
    case 'Z':
    case '`':
    case 'a':
    case 'd':
    case 'e':
    case 'f':
    case 'm':
    case 'r':
    case 's':
        return true;
    case 'c': /* DA */
        return arg(c, 0, 0) == 0;
    case 'g': /* TBC */
        return arg(c, 0, 0) == 0 || arg(c, 0, 0) == 3;
    case 'n': /* DSR */
        return arg(c, 0, 0) == 5 || arg(c, 0, 0) == 6;
    default:
        return false;
    }
}

static void finish_csi(struct term_feed *f)
{
    struct csi c;
    if (f->bad || !parse_csi(f->held.data, f->held.len, &c)) {
        drop(f);
        return;
    }
    char inter = c.ninter == 1 ? c.inter[0] : c.ninter ? '#' : 0; /* '#': two, none known */
    bool ok = false, written = false;
    if (!c.leader && !inter && c.final == 'b') {
        repeat(f, &c);
        ok = written = true;
    } else if ((!c.leader || c.leader == '?') && !inter && (c.final == 'h' || c.final == 'l')) {
        set_modes(f, &c); /* counts what it drops */
        ok = written = true;
    } else if (!c.leader && !inter) {
        ok = plain_csi_ok(&c);
    } else if (c.leader == '?' && !inter) {
        ok = c.final == 'J' || c.final == 'K' || (c.final == 'n' && arg(&c, 0, 0) == 6);
    } else if (c.leader == '>' && !inter) {
        ok = c.final == 'c' && arg(&c, 0, 0) == 0; /* DA2 */
    } else if ((!c.leader || c.leader == '?') && inter == '$') {
        ok = c.final == 'p'; /* DECRQM */
    } else if (!c.leader && inter) {
        ok = (inter == ' ' && c.final == 'q')     /* DECSCUSR */
             || (inter == '"' && c.final == 'q')  /* DECSCA */
             || (inter == '!' && c.final == 'p'); /* DECSTR */
    }
    if (ok && !written)
        write_csi(f, &c, 0, c.n);
    if (!ok)
        f->dropped++;
    f->state = GROUND;
    strbuf_clear(&f->held);
}

/* ---------------------------------------------------------------- escapes */

static void finish_escape(struct term_feed *f)
{
    const char *s = f->held.data;
    size_t len = f->held.len;
    bool ok = false;
    if (!f->bad && len == 2)
        ok = strchr("78=>DEHMc", s[1]) != NULL;
    else if (!f->bad && len == 3 && strchr("()*+", s[1]))
        ok = strchr("0AB", s[2]) != NULL; /* G0-G3: DEC graphics, UK, ASCII */
    else if (!f->bad && len == 3 && s[1] == '#')
        ok = s[2] == '8'; /* DECALN */
    if (ok)
        f->write(s, len, f->ud);
    else
        f->dropped++;
    f->state = GROUND;
    f->bad = false;
    strbuf_clear(&f->held);
}

/* ---------------------------------------------------------------- strings */

static void finish_string(struct term_feed *f)
{
    const char *s = f->held.data + 2; /* after ESC ] or ESC P */
    size_t len = f->held.len - 2;
    char kind = f->held.data[1];
    bool ok = false;
    if (f->bad) {
        /* over the limit: dropped */
    } else if (kind == ']') {
        /* Titles: OSC 0, 1, 2. libvterm 0.1.4 loses one split between
         * writes, so it goes in one. */
        ok = len >= 2 && s[0] >= '0' && s[0] <= '2' && s[1] == ';';
        if (ok) {
            strbuf_append(&f->held, "\x1b\\", 2);
            f->write(f->held.data, f->held.len, f->ud);
        }
    } else if (kind == 'P') {
        for (size_t k = 0; k < sizeof decrqss / sizeof decrqss[0]; k++) {
            if (strlen(decrqss[k]) == len && !memcmp(s, decrqss[k], len))
                ok = true;
        }
        if (ok) {
            strbuf_append(&f->held, "\x1b\\", 2);
            f->write(f->held.data, f->held.len, f->ud);
        } else if (len >= 2 && s[0] == '$' && s[1] == 'q') {
            /* Any other DECRQSS: xterm's "invalid" answer; libvterm 0.1.4
             * would answer through a broken printf format. */
            f->reply("\x1bP0$r\x1b\\", 7, f->ud);
            ok = true;
        }
    }
    if (!ok)
        f->dropped++;
    f->state = GROUND;
    f->bad = false;
    strbuf_clear(&f->held);
}

/* ---------------------------------------------------------------- scan */

/* Adds c to the sequence unless it outgrew max (then it is only dropped). */
static void hold(struct term_feed *f, unsigned char c, size_t max)
{
    if (f->held.len >= max)
        f->bad = true;
    else
        strbuf_putc(&f->held, (char)c);
}

/* One byte inside a sequence. False if c does not belong to it: the
 * sequence was dropped and c is to be read again from GROUND or ESC. */
static bool sequence_byte(struct term_feed *f, unsigned char c)
{
    switch (f->state) {
    case ESC:
        if (c < 0x20) {
            control_in_sequence(f, c);
        } else if (c == DEL) {
            /* ignored inside sequences, as by terminals */
        } else if (c >= 0x80) {
            drop(f); /* not part of an escape: abandons it */
            return false;
        } else if (c <= 0x2f) {
            hold(f, c, 4); /* an intermediate */
        } else if (f->held.len == 1 && c == '[') {
            f->state = CSI;
            strbuf_putc(&f->held, (char)c);
        } else if (f->held.len == 1 && (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_')) {
            f->state = STR;
            strbuf_putc(&f->held, (char)c);
            f->bad = c != ']' && c != 'P'; /* SOS, PM, APC: dropped */
        } else {
            strbuf_putc(&f->held, (char)c);
            finish_escape(f);
        }
        return true;
    case CSI:
        if (c < 0x20) {
            control_in_sequence(f, c);
        } else if (c == DEL) {
            /* ignored */
        } else if (c >= 0x80) {
            drop(f);
            return false;
        } else if (c <= 0x3f) {
            hold(f, c, TERM_FEED_CSI_MAX - 1);
        } else {
            strbuf_putc(&f->held, (char)c);
            finish_csi(f);
        }
        return true;
    case STR:
        if (c == BEL) {
            finish_string(f);
        } else if (c == ESC_BYTE) {
            f->state = STR_ESC;
        } else if (c == CAN || c == SUB) {
            drop(f);
        } else if (c >= 0x20 && c != DEL) {
            /* Other controls are skipped: none belongs in a title. */
            hold(f, c, TERM_FEED_STRING_MAX);
        }
        return true;
    case STR_ESC:
        if (c == '\\') {
            finish_string(f);
            return true;
        }
        /* The string is abandoned; the ESC starts something else. */
        drop(f);
        f->state = ESC;
        strbuf_putc(&f->held, ESC_BYTE);
        return false;
    default:
        return true;
    }
}

static void scan(struct term_feed *f, const char *b, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (f->state == GROUND) {
            size_t run = i;
            while (i < n && text_byte((unsigned char)b[i]))
                i++;
            emit_text(f, b + run, i - run);
            if (i == n)
                break;
            if (b[i] == ESC_BYTE) {
                f->state = ESC;
                f->bad = false;
                strbuf_clear(&f->held);
                strbuf_putc(&f->held, ESC_BYTE);
            } else {
                f->dropped++; /* a control libvterm does not need */
            }
            i++;
            continue;
        }
        if (sequence_byte(f, (unsigned char)b[i]))
            i++;
    }
}

/* ---------------------------------------------------------------- UTF-8 */

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
        if (c1)
            f->dropped++;
        else
            strbuf_append(&f->clean, "\xEF\xBF\xBD", 3);
        copied = i += len;
    }
    if (!changed) {
        scan(f, in, n);
        return;
    }
    strbuf_append(&f->clean, s + copied, n - copied);
    scan(f, f->clean.data, f->clean.len);
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
    /* Only whole sequences ever reach libvterm, so its parser is at rest. */
    f->write(bytes, len, f->ud);
}
