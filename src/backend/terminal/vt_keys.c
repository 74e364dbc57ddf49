#include "backend/terminal/vt_keys.h"

#include "backend/terminal/vt_screen.h"

#include <stdio.h>
#include <string.h>

static size_t put(char *buf, const char *s)
{
    size_t n = strlen(s);
    memcpy(buf, s, n);
    return n;
}

/* A one-byte key (Enter, Tab, Escape, Backspace): alt puts ESC before it. */
static size_t literal(char *buf, const char *bytes, unsigned mods)
{
    size_t n = 0;
    if (mods & INPUT_MOD_ALT)
        buf[n++] = '\x1b';
    return n + put(buf + n, bytes);
}

/* Cursor keys, Home and End: CSI X, SS3 X in application mode, or
 * CSI 1 ; m X with modifiers. */
static size_t cursor(const struct vt_screen *s, char final, unsigned mods, char *buf)
{
    if (mods)
        return (size_t)snprintf(buf, VT_KEYS_MAX, "\x1b[1;%u%c", 1 + mods, final);
    return (size_t)snprintf(buf, VT_KEYS_MAX, "\x1b%c%c", s->app_cursor ? 'O' : '[', final);
}

/* Insert, Delete, PageUp, PageDown, F5-F12: CSI n ~ or CSI n ; m ~. */
static size_t tilde(int n, unsigned mods, char *buf)
{
    if (mods)
        return (size_t)snprintf(buf, VT_KEYS_MAX, "\x1b[%d;%u~", n, 1 + mods);
    return (size_t)snprintf(buf, VT_KEYS_MAX, "\x1b[%d~", n);
}

size_t vt_keys_named(const struct vt_screen *s, enum input_key_name key, unsigned mods, char *buf)
{
    mods &= INPUT_MOD_SHIFT | INPUT_MOD_ALT | INPUT_MOD_CTRL;
    switch (key) {
    case INPUT_KEY_ENTER:
        return literal(buf, s->newline ? "\r\n" : "\r", mods);
    case INPUT_KEY_TAB:
        if (mods == INPUT_MOD_SHIFT)
            return put(buf, "\x1b[Z");
        if (mods & INPUT_MOD_SHIFT)
            return (size_t)snprintf(buf, VT_KEYS_MAX, "\x1b[1;%uZ", 1 + mods);
        return literal(buf, "\t", mods);
    case INPUT_KEY_ESCAPE:
        return literal(buf, "\x1b", mods);
    case INPUT_KEY_BACKSPACE:
        return literal(buf, "\x7f", mods);
    case INPUT_KEY_UP:
        return cursor(s, 'A', mods, buf);
    case INPUT_KEY_DOWN:
        return cursor(s, 'B', mods, buf);
    case INPUT_KEY_RIGHT:
        return cursor(s, 'C', mods, buf);
    case INPUT_KEY_LEFT:
        return cursor(s, 'D', mods, buf);
    case INPUT_KEY_HOME:
        return cursor(s, 'H', mods, buf);
    case INPUT_KEY_END:
        return cursor(s, 'F', mods, buf);
    case INPUT_KEY_INSERT:
        return tilde(2, mods, buf);
    case INPUT_KEY_DELETE:
        return tilde(3, mods, buf);
    case INPUT_KEY_PAGEUP:
        return tilde(5, mods, buf);
    case INPUT_KEY_PAGEDOWN:
        return tilde(6, mods, buf);
    default:
        break;
    }
    if (key >= INPUT_KEY_F1 && key <= INPUT_KEY_F1 + 3) {
        char final = (char)('P' + (key - INPUT_KEY_F1));
        if (mods)
            return (size_t)snprintf(buf, VT_KEYS_MAX, "\x1b[1;%u%c", 1 + mods, final);
        return (size_t)snprintf(buf, VT_KEYS_MAX, "\x1bO%c", final);
    }
    if (key >= INPUT_KEY_F1 + 4 && key <= INPUT_KEY_F1 + 11) {
        static const int code[8] = {15, 17, 18, 19, 20, 21, 23, 24};
        return tilde(code[key - INPUT_KEY_F1 - 4], mods, buf);
    }
    return 0;
}

size_t vt_keys_csi_u(uint32_t cp, unsigned mods, char *buf)
{
    mods &= INPUT_MOD_SHIFT | INPUT_MOD_ALT | INPUT_MOD_CTRL;
    return (size_t)snprintf(buf, VT_KEYS_MAX, "\x1b[%u;%uu", (unsigned)cp, 1 + mods);
}
