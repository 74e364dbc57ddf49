#include "backend/terminal/vt_parse.h"

#include <string.h>

enum state {
    GROUND,
    ESCAPE,
    ESCAPE_INTER,
    CSI_PARAM,
    CSI_INTER,
    DCS_PARAM,
    DCS_INTER,
    STRING,     /* OSC, DCS data, SOS, PM or APC: up to ST or BEL */
    STRING_ESC, /* ESC inside a string: ST if a backslash follows */
};

enum string_kind { STR_OSC, STR_DCS, STR_OTHER };

#define CAN 0x18
#define SUB 0x1a
#define ESC 0x1b

void vt_parse_init(struct vt_parser *p, const struct vt_parse_ops *ops, void *ud)
{
    memset(p, 0, sizeof *p);
    p->ops = ops;
    p->ud = ud;
}

void vt_parse_reset(struct vt_parser *p)
{
    p->state = GROUND;
    p->need = 0;
    p->ignore = false;
    p->str_len = 0;
}

bool vt_parse_idle(const struct vt_parser *p)
{
    return p->state == GROUND && p->need == 0;
}

uint64_t vt_parse_dropped(const struct vt_parser *p)
{
    return p->dropped;
}

static void start_sequence(struct vt_parser *p, int state)
{
    p->state = state;
    p->ignore = false;
    p->csi.nparams = 1;
    p->csi.params[0] = -1;
    p->csi.sub = 0;
    p->csi.leader = 0;
    p->csi.ninter = 0;
}

static void start_string(struct vt_parser *p, int kind)
{
    p->state = STRING;
    p->str_kind = kind;
    p->str_len = 0;
    if (kind != STR_DCS)
        p->ignore = false;
}

static void add_inter(struct vt_parser *p, char c)
{
    if (p->csi.ninter < VT_MAX_INTER)
        p->csi.inter[p->csi.ninter++] = c;
    else
        p->ignore = true;
}

/* A parameter byte (0x30-0x3F) of a CSI or DCS. */
static void param_byte(struct vt_parser *p, unsigned char c)
{
    struct vt_csi *q = &p->csi;
    if (c <= '9') {
        int *v = &q->params[q->nparams - 1];
        int n = (*v < 0 ? 0 : *v) * 10 + (c - '0');
        *v = n > VT_PARAM_MAX ? VT_PARAM_MAX : n;
    } else if (c == ';' || c == ':') {
        if (q->nparams == VT_MAX_PARAMS) {
            p->ignore = true;
            return;
        }
        if (c == ':')
            q->sub |= 1u << q->nparams;
        q->params[q->nparams++] = -1;
    } else if (q->nparams == 1 && q->params[0] < 0 && !q->leader && !(q->sub & 1)) {
        q->leader = (char)c; /* < = > ? first */
    } else {
        p->ignore = true; /* a leader in the middle */
    }
}

static void dispatch_csi(struct vt_parser *p, char final)
{
    p->state = GROUND;
    if (p->ignore) {
        p->dropped++;
        return;
    }
    p->csi.final = final;
    p->ops->csi(p->ud, &p->csi);
}

static void end_string(struct vt_parser *p)
{
    p->state = GROUND;
    if (p->ignore || p->str_kind == STR_OTHER) {
        p->dropped++;
        return;
    }
    if (p->str_kind == STR_OSC)
        p->ops->osc(p->ud, p->str, p->str_len);
    else
        p->ops->dcs(p->ud, &p->csi, p->str, p->str_len);
}

/* Where a UTF-8 lead byte says the next byte must be, and how many follow;
 * false for bytes that never start a character. */
static bool utf8_lead(struct vt_parser *p, unsigned char c)
{
    p->lo = 0x80;
    p->hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        p->need = 1;
        p->cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        p->need = 2;
        p->cp = c & 0x0F;
        if (c == 0xE0)
            p->lo = 0xA0; /* not overlong */
        else if (c == 0xED)
            p->hi = 0x9F; /* not a surrogate */
    } else if (c >= 0xF0 && c <= 0xF4) {
        p->need = 3;
        p->cp = c & 0x07;
        if (c == 0xF0)
            p->lo = 0x90;
        else if (c == 0xF4)
            p->hi = 0x8F; /* not past U+10FFFF */
    } else {
        return false;
    }
    return true;
}

static void print_cp(struct vt_parser *p, uint32_t cp)
{
    if (cp >= 0x80 && cp < 0xA0) {
        p->dropped++; /* a C1 control: never acted upon */
        return;
    }
    p->ops->print(p->ud, cp);
}

/* A C0 control (or DEL) met inside a sequence or string. True when it was
 * handled; false when c is ESC, which the caller deals with. */
static bool control_in_sequence(struct vt_parser *p, unsigned char c, bool execute)
{
    if (c == CAN || c == SUB) {
        p->dropped++;
        p->state = GROUND;
        return true;
    }
    if (c == ESC)
        return false;
    if (execute && c != 0x7f)
        p->ops->execute(p->ud, c);
    return true;
}

static void escape_final(struct vt_parser *p, unsigned char c)
{
    switch (c) {
    case '[':
        start_sequence(p, CSI_PARAM);
        return;
    case ']':
        p->ignore = false;
        start_string(p, STR_OSC);
        return;
    case 'P':
        start_sequence(p, DCS_PARAM);
        return;
    case 'X':
    case '^':
    case '_':
        start_string(p, STR_OTHER);
        return;
    default:
        p->state = GROUND;
        p->ops->esc(p->ud, p->csi.inter, p->csi.ninter, (char)c);
        return;
    }
}

void vt_parse_feed(struct vt_parser *p, const char *bytes, size_t len)
{
    const unsigned char *s = (const unsigned char *)bytes, *end = s + len;
    while (s < end) {
        unsigned char c = *s;
        switch (p->state) {
        case GROUND:
            if (p->need) {
                if (c >= p->lo && c <= p->hi) {
                    p->cp = p->cp << 6 | (c & 0x3F);
                    p->lo = 0x80;
                    p->hi = 0xBF;
                    s++;
                    if (--p->need == 0)
                        print_cp(p, p->cp);
                    continue;
                }
                /* Cut short: one U+FFFD for what came, then c afresh. */
                p->need = 0;
                p->ops->print(p->ud, 0xFFFD);
                continue;
            }
            if (c >= 0x20 && c < 0x7f) {
                const unsigned char *run = s;
                while (s < end && *s >= 0x20 && *s < 0x7f)
                    s++;
                p->ops->print_ascii(p->ud, (const char *)run, (size_t)(s - run));
                continue;
            }
            s++;
            if (c == ESC) {
                start_sequence(p, ESCAPE);
            } else if (c < 0x20) {
                p->ops->execute(p->ud, c);
            } else if (c >= 0x80 && !utf8_lead(p, c)) {
                p->ops->print(p->ud, 0xFFFD);
            }
            /* DEL is ignored. */
            continue;

        case ESCAPE:
        case ESCAPE_INTER:
            s++;
            if (c < 0x20 || c == 0x7f) {
                if (!control_in_sequence(p, c, true)) {
                    p->dropped++; /* cut short by another ESC */
                    start_sequence(p, ESCAPE);
                }
            } else if (c < 0x30) {
                p->state = ESCAPE_INTER;
                add_inter(p, (char)c);
            } else if (c < 0x7f) {
                if (p->ignore) {
                    p->dropped++;
                    p->state = GROUND;
                } else if (p->state == ESCAPE_INTER) {
                    p->state = GROUND;
                    p->ops->esc(p->ud, p->csi.inter, p->csi.ninter, (char)c);
                } else {
                    escape_final(p, c);
                }
            } else {
                p->dropped++; /* not part of any escape: the byte is text */
                p->state = GROUND;
                s--;
            }
            continue;

        case CSI_PARAM:
        case CSI_INTER:
            /* Parameters are the bulk of a colourful stream: take digits
             * in a tight loop. */
            if (c >= '0' && c <= '9' && p->state == CSI_PARAM) {
                int *v = &p->csi.params[p->csi.nparams - 1];
                int n = *v < 0 ? 0 : *v;
                while (s < end && *s >= '0' && *s <= '9') {
                    n = n * 10 + (*s++ - '0');
                    if (n > VT_PARAM_MAX)
                        n = VT_PARAM_MAX;
                }
                *v = n;
                continue;
            }
            s++;
            if (c >= 0x40 && c < 0x7f) {
                dispatch_csi(p, (char)c);
            } else if (c < 0x20 || c == 0x7f) {
                if (!control_in_sequence(p, c, true)) {
                    p->dropped++;
                    start_sequence(p, ESCAPE);
                }
            } else if (c < 0x30) {
                p->state = CSI_INTER;
                add_inter(p, (char)c);
            } else if (c < 0x40) {
                if (p->state == CSI_INTER)
                    p->ignore = true; /* a parameter after an intermediate */
                else
                    param_byte(p, c);
            } else {
                p->dropped++;
                p->state = GROUND;
                s--;
            }
            continue;

        case DCS_PARAM:
        case DCS_INTER:
            s++;
            if (c >= 0x40 && c < 0x7f) {
                p->csi.final = (char)c;
                start_string(p, STR_DCS);
            } else if (c < 0x20 || c == 0x7f) {
                if (!control_in_sequence(p, c, false)) {
                    p->dropped++;
                    start_sequence(p, ESCAPE);
                }
            } else if (c < 0x30) {
                p->state = DCS_INTER;
                add_inter(p, (char)c);
            } else if (c < 0x40) {
                if (p->state == DCS_INTER)
                    p->ignore = true;
                else
                    param_byte(p, c);
            } else {
                p->dropped++;
                p->state = GROUND;
                s--;
            }
            continue;

        case STRING: {
            /* Take the string's bytes in one go up to a control. */
            const unsigned char *run = s;
            while (s < end && *s >= 0x20)
                s++;
            size_t n = (size_t)(s - run);
            if (n) {
                if (n > VT_STRING_MAX - p->str_len) {
                    p->ignore = true;
                    n = VT_STRING_MAX - p->str_len;
                }
                memcpy(p->str + p->str_len, run, n);
                p->str_len += n;
                continue;
            }
            s++;
            if (c == 0x07)
                end_string(p);
            else if (c == ESC)
                p->state = STRING_ESC;
            else
                control_in_sequence(p, c, false); /* others are skipped */
            continue;
        }

        case STRING_ESC:
            if (c == '\\') {
                s++;
                end_string(p);
                continue;
            }
            /* Not ST: the string is dropped, and the ESC starts afresh. */
            p->dropped++;
            start_sequence(p, ESCAPE);
            continue;
        }
    }
}
