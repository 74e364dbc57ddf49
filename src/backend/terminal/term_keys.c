#include "backend/terminal/term_keys.h"

#include "backend/terminal/term_screen.h"
#include "backend/terminal/vt_keys.h"
#include "backend/terminal/vt_screen.h"
#include "core/xmalloc.h"

#include <string.h>
#include <strings.h>

/* What a terminal program can receive: meta is the alt (ESC) prefix, as
 * xterm's metaSendsEscape; super and hyper have no encoding at all. */
#define TERM_MODS (INPUT_MOD_SHIFT | INPUT_MOD_ALT | INPUT_MOD_CTRL | INPUT_MOD_META)

bool term_keys_parse(const char *field, const char *spec, struct input_key *key, char **err)
{
    if (!input_keys_parse(field, spec, key, err))
        return false;
    unsigned bad = key->mods & ~(unsigned)TERM_MODS;
    if (bad) {
        if (err)
            *err = xasprintf("argument \"%s\": %s in \"%s\" is not supported by terminal "
                             "sessions: a terminal program receives ctrl, alt (meta) and shift "
                             "only (super and hyper work on desktops)",
                             field, input_keys_mod_name(bad & -bad), spec);
        return false;
    }
    if (key->named > INPUT_KEY_F1 + 11) {
        if (err)
            *err = xasprintf("argument \"%s\": F%d in \"%s\" is not supported by terminal "
                             "sessions: terminals have F1-F12 (F13-F24 work on desktops)",
                             field, 1 + (int)(key->named - INPUT_KEY_F1), spec);
        return false;
    }
    if (key->mods & INPUT_MOD_META)
        key->mods = (key->mods & ~(unsigned)INPUT_MOD_META) | INPUT_MOD_ALT;
    return true;
}

/* The C0 byte xterm sends for ctrl+c, or -1. */
static int ctrl_byte(uint32_t c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return (int)(c & 0x1F);
    switch (c) {
    case '@':
    case ' ':
    case '2':
        return 0x00;
    case '[':
    case '3':
        return 0x1B;
    case '\\':
    case '4':
        return 0x1C;
    case ']':
    case '5':
        return 0x1D;
    case '^':
    case '6':
    case '~':
        return 0x1E;
    case '_':
    case '7':
    case '/':
        return 0x1F;
    case '?':
    case '8':
        return 0x7F;
    default:
        return -1;
    }
}

static size_t put_utf8(char *b, uint32_t c)
{
    if (c < 0x80) {
        b[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        b[0] = (char)(0xC0 | c >> 6);
        b[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        b[0] = (char)(0xE0 | c >> 12);
        b[1] = (char)(0x80 | (c >> 6 & 0x3F));
        b[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    b[0] = (char)(0xF0 | c >> 18);
    b[1] = (char)(0x80 | (c >> 12 & 0x3F));
    b[2] = (char)(0x80 | (c >> 6 & 0x3F));
    b[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* Characters do not depend on terminal modes: these follow xterm's
 * defaults (ctrl+i is Tab, alt+é is ESC then é). */
static void send_char(struct term_screen *s, uint32_t c, unsigned mods)
{
    if ((mods & INPUT_MOD_SHIFT) && !(mods & INPUT_MOD_CTRL) && c >= 'a' && c <= 'z')
        c -= 'a' - 'A';
    char b[8];
    size_t n = 0;
    if (mods & INPUT_MOD_ALT)
        b[n++] = '\x1b';
    if (mods & INPUT_MOD_CTRL) {
        int ctl = ctrl_byte(c);
        if (ctl < 0) {
            /* No C0 byte for it: the CSI u form is the best there is. */
            char u[VT_KEYS_MAX];
            term_screen_send(s, u, vt_keys_csi_u(c, mods & ~(unsigned)INPUT_MOD_SHIFT, u));
            return;
        }
        b[n++] = (char)ctl;
    } else {
        n += put_utf8(b + n, c);
    }
    term_screen_send(s, b, n);
}

void term_keys_send(struct term_screen *s, const struct input_key *key)
{
    unsigned mods = key->mods;
    if (key->named == INPUT_KEY_CHAR) {
        send_char(s, key->codepoint, mods);
        return;
    }
    /* Where xterm ignores a modifier, drop it. */
    switch (key->named) {
    case INPUT_KEY_ENTER:
    case INPUT_KEY_ESCAPE:
        mods &= ~(unsigned)(INPUT_MOD_SHIFT | INPUT_MOD_CTRL);
        break;
    case INPUT_KEY_TAB:
        mods &= ~(unsigned)INPUT_MOD_CTRL;
        break;
    case INPUT_KEY_BACKSPACE:
        if (mods & INPUT_MOD_CTRL) {
            term_screen_send(s, mods & INPUT_MOD_ALT ? "\x1b\x08" : "\x08",
                             mods & INPUT_MOD_ALT ? 2 : 1);
            return;
        }
        mods &= ~(unsigned)INPUT_MOD_SHIFT;
        break;
    default:
        break;
    }
    char buf[VT_KEYS_MAX];
    term_screen_send(s, buf, vt_keys_named(term_screen_vt(s), key->named, mods, buf));
}

bool term_keys_press(struct term_screen *s, const char *spec, char **err)
{
    struct input_key key;
    if (!term_keys_parse("key", spec, &key, err))
        return false;
    term_keys_send(s, &key);
    return true;
}

static void paste(struct term_screen *s, const char *text, size_t len)
{
    if (!len)
        return;
    bool bracket = term_screen_bracketed_paste(s);
    if (bracket)
        term_screen_send(s, "\x1b[200~", 6);
    term_screen_send(s, text, len);
    if (bracket)
        term_screen_send(s, "\x1b[201~", 6);
}

void term_keys_type(struct term_screen *s, const char *text, size_t len)
{
    /* Each line is its own paste with Enter after it, so typed commands run:
     * inside a bracketed paste a newline is only inserted. */
    static const struct input_key enter = {.named = INPUT_KEY_ENTER};
    size_t start = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '\n' && text[i] != '\r')
            continue;
        paste(s, text + start, i - start);
        term_keys_send(s, &enter);
        if (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')
            i++;
        start = i + 1;
    }
    paste(s, text + start, len - start);
}
