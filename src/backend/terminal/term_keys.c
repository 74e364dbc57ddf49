#include "backend/terminal/term_keys.h"

#include "backend/terminal/term_screen.h"
#include "core/xmalloc.h"

#include <string.h>
#include <strings.h>
#include <vterm.h>

#define HELP                                                                                       \
    "valid keys: Enter (Return), Tab, Escape (Esc), Backspace, Delete (Del), Insert, Up, Down, "   \
    "Left, Right, Home, End, PageUp, PageDown, F1-F12, Space, or a single character; modifiers "   \
    "ctrl, alt (meta, option), shift joined with + (e.g. ctrl+c, shift+tab, ctrl+alt+Delete)"

static const struct {
    const char *name;
    enum term_named_key key;
} names[] = {
    {"enter", TERM_KEY_ENTER},
    {"return", TERM_KEY_ENTER},
    {"tab", TERM_KEY_TAB},
    {"escape", TERM_KEY_ESCAPE},
    {"esc", TERM_KEY_ESCAPE},
    {"backspace", TERM_KEY_BACKSPACE},
    {"delete", TERM_KEY_DELETE},
    {"del", TERM_KEY_DELETE},
    {"insert", TERM_KEY_INSERT},
    {"ins", TERM_KEY_INSERT},
    {"up", TERM_KEY_UP},
    {"down", TERM_KEY_DOWN},
    {"left", TERM_KEY_LEFT},
    {"right", TERM_KEY_RIGHT},
    {"arrowup", TERM_KEY_UP},
    {"arrowdown", TERM_KEY_DOWN},
    {"arrowleft", TERM_KEY_LEFT},
    {"arrowright", TERM_KEY_RIGHT},
    {"home", TERM_KEY_HOME},
    {"end", TERM_KEY_END},
    {"pageup", TERM_KEY_PAGEUP},
    {"pgup", TERM_KEY_PAGEUP},
    {"pagedown", TERM_KEY_PAGEDOWN},
    {"pgdn", TERM_KEY_PAGEDOWN},
};

static const struct {
    const char *name;
    unsigned mod;
} mod_names[] = {
    {"ctrl", TERM_MOD_CTRL}, {"control", TERM_MOD_CTRL}, {"alt", TERM_MOD_ALT},
    {"meta", TERM_MOD_ALT},  {"option", TERM_MOD_ALT},   {"shift", TERM_MOD_SHIFT},
};

/* The code point if s[0..n) is exactly one printable character. */
static bool one_char(const char *s, size_t n, uint32_t *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = p[0] < 0x80 ? 1 : p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
    if (!len || len != n || p[0] > 0xF4)
        return false;
    uint32_t c = len == 1 ? p[0] : p[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return false;
        c = c << 6 | (p[i] & 0x3F);
    }
    static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return false;
    if (c < 0x20 || (c >= 0x7F && c < 0xA0))
        return false; /* controls have names, or no business in a key spec */
    *cp = c;
    return true;
}

static bool parse_key(const char *s, size_t n, struct term_key *key)
{
    if (n == 1 && s[0] == ' ') {
        key->codepoint = ' ';
        return true;
    }
    while (n > 1 && *s == ' ')
        s++, n--;
    while (n > 1 && s[n - 1] == ' ')
        n--;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strlen(names[i].name) == n && !strncasecmp(s, names[i].name, n)) {
            key->named = names[i].key;
            return true;
        }
    }
    if (n == 5 && !strncasecmp(s, "space", 5)) {
        key->codepoint = ' ';
        return true;
    }
    if ((n == 2 || n == 3) && (s[0] == 'f' || s[0] == 'F') && s[1] >= '1' && s[1] <= '9') {
        int f = s[1] - '0';
        if (n == 3)
            f = s[2] >= '0' && s[2] <= '9' ? f * 10 + (s[2] - '0') : 0;
        if (f >= 1 && f <= 12) {
            key->named = TERM_KEY_F1 + (f - 1);
            return true;
        }
    }
    return one_char(s, n, &key->codepoint);
}

static bool parse_mod(const char *s, size_t n, unsigned *mods)
{
    while (n && *s == ' ')
        s++, n--;
    while (n && s[n - 1] == ' ')
        n--;
    for (size_t i = 0; i < sizeof mod_names / sizeof mod_names[0]; i++) {
        if (strlen(mod_names[i].name) == n && !strncasecmp(s, mod_names[i].name, n)) {
            *mods |= mod_names[i].mod;
            return true;
        }
    }
    return false;
}

bool term_keys_parse(const char *spec, struct term_key *key, char **err)
{
    *key = (struct term_key){.named = TERM_KEY_CHAR};
    const char *p = spec;
    /* Every '+' after the first byte ends a modifier, so "ctrl++" and "+"
     * name the plus key. */
    for (const char *plus; p[0] && (plus = strchr(p + 1, '+'));) {
        if (!parse_mod(p, (size_t)(plus - p), &key->mods)) {
            *err =
                xasprintf("unknown modifier \"%.*s\" in \"%s\"; " HELP, (int)(plus - p), p, spec);
            return false;
        }
        p = plus + 1;
    }
    if (!*p || !parse_key(p, strlen(p), key)) {
        *err = xasprintf("unknown key \"%s\"; " HELP, *p ? p : spec);
        return false;
    }
    return true;
}

static const VTermKey vterm_keys[] = {
    [TERM_KEY_ENTER] = VTERM_KEY_ENTER,   [TERM_KEY_TAB] = VTERM_KEY_TAB,
    [TERM_KEY_ESCAPE] = VTERM_KEY_ESCAPE, [TERM_KEY_BACKSPACE] = VTERM_KEY_BACKSPACE,
    [TERM_KEY_DELETE] = VTERM_KEY_DEL,    [TERM_KEY_INSERT] = VTERM_KEY_INS,
    [TERM_KEY_UP] = VTERM_KEY_UP,         [TERM_KEY_DOWN] = VTERM_KEY_DOWN,
    [TERM_KEY_LEFT] = VTERM_KEY_LEFT,     [TERM_KEY_RIGHT] = VTERM_KEY_RIGHT,
    [TERM_KEY_HOME] = VTERM_KEY_HOME,     [TERM_KEY_END] = VTERM_KEY_END,
    [TERM_KEY_PAGEUP] = VTERM_KEY_PAGEUP, [TERM_KEY_PAGEDOWN] = VTERM_KEY_PAGEDOWN,
};

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

/* Characters do not depend on terminal modes, and libvterm 0.1.4 encodes some
 * the way few programs read (ctrl+i as CSI 105;5u, alt+é as a cut byte), so
 * these follow xterm's defaults here. */
static void send_char(struct term_screen *s, uint32_t c, unsigned mods)
{
    if ((mods & TERM_MOD_SHIFT) && !(mods & TERM_MOD_CTRL) && c >= 'a' && c <= 'z')
        c -= 'a' - 'A';
    char b[8];
    size_t n = 0;
    if (mods & TERM_MOD_ALT)
        b[n++] = '\x1b';
    if (mods & TERM_MOD_CTRL) {
        int ctl = ctrl_byte(c);
        if (ctl < 0) {
            /* No C0 byte for it: libvterm's CSI u form is the best there is. */
            vterm_keyboard_unichar(term_screen_vterm(s), c,
                                   (VTermModifier)(mods & ~TERM_MOD_SHIFT));
            return;
        }
        b[n++] = (char)ctl;
    } else {
        n += put_utf8(b + n, c);
    }
    term_screen_send(s, b, n);
}

void term_keys_send(struct term_screen *s, const struct term_key *key)
{
    unsigned mods = key->mods;
    if (key->named == TERM_KEY_CHAR) {
        send_char(s, key->codepoint, mods);
        return;
    }
    /* Where xterm ignores a modifier, libvterm would send CSI u; drop it. */
    switch (key->named) {
    case TERM_KEY_ENTER:
    case TERM_KEY_ESCAPE:
        mods &= ~(unsigned)(TERM_MOD_SHIFT | TERM_MOD_CTRL);
        break;
    case TERM_KEY_TAB:
        mods &= ~(unsigned)TERM_MOD_CTRL;
        break;
    case TERM_KEY_BACKSPACE:
        if (mods & TERM_MOD_CTRL) {
            term_screen_send(s, mods & TERM_MOD_ALT ? "\x1b\x08" : "\x08",
                             mods & TERM_MOD_ALT ? 2 : 1);
            return;
        }
        mods &= ~(unsigned)TERM_MOD_SHIFT;
        break;
    default:
        break;
    }
    VTerm *vt = term_screen_vterm(s);
    VTermModifier vm = (VTermModifier)mods; /* the same bits */
    if (key->named >= TERM_KEY_F1 && key->named <= TERM_KEY_F12)
        vterm_keyboard_key(vt, VTERM_KEY_FUNCTION(1 + (key->named - TERM_KEY_F1)), vm);
    else
        vterm_keyboard_key(vt, vterm_keys[key->named], vm);
}

bool term_keys_press(struct term_screen *s, const char *spec, char **err)
{
    struct term_key key;
    if (!term_keys_parse(spec, &key, err))
        return false;
    term_keys_send(s, &key);
    return true;
}

static void paste(struct term_screen *s, const char *text, size_t len)
{
    if (!len)
        return;
    VTerm *vt = term_screen_vterm(s);
    vterm_keyboard_start_paste(vt);
    term_screen_send(s, text, len);
    vterm_keyboard_end_paste(vt);
}

void term_keys_type(struct term_screen *s, const char *text, size_t len)
{
    /* Each line is its own paste with Enter after it, so typed commands run:
     * inside a bracketed paste a newline is only inserted. */
    static const struct term_key enter = {.named = TERM_KEY_ENTER};
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
