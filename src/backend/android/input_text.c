/* Text and keys as the device's `input` command takes them.
 *
 * The command line goes through the device's sh (mksh), so every character
 * of the text is inside single quotes, where sh interprets nothing; a quote
 * itself is written '\''. `input text` then turns "%s" into a space, so a
 * space is sent as %s (older releases split on spaces) and a '%' the user
 * typed right before an 's' ends one `input text` and the 's' starts the
 * next: no "%s" of the user's ever reaches it. `input text` can only type
 * what the virtual keyboard's key map has: printable ASCII, tab, newline. */
#include "backend/android/internal.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "input/keys.h"

#include <stdio.h>
#include <string.h>

static bool typeable(unsigned char ch)
{
    return (ch >= 0x20 && ch <= 0x7e) || ch == '\t' || ch == '\n';
}

char *android_input_text_command(const char *text, char **err)
{
    size_t chars = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if ((*p & 0xc0) != 0x80)
            chars++;
        if (!typeable(*p)) {
            uint32_t cp = *p;
            if (*p >= 0x80) {
                /* Decode for the message only. */
                int n = (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : 3;
                cp = *p & (0x3f >> n);
                for (int i = 1; i <= n && (p[i] & 0xc0) == 0x80; i++)
                    cp = cp << 6 | (p[i] & 0x3f);
            }
            *err = xasprintf("text: character %zu (U+%04X) cannot be typed through `input "
                             "text`, which only types printable ASCII, tab and newline; other "
                             "text needs the ADBKeyBoard input method selected on the device",
                             chars, cp);
            return NULL;
        }
    }
    struct strbuf sb = {0};
    strbuf_puts(&sb, "input text '");
    for (const char *p = text; *p; p++) {
        if (*p == '%' && p[1] == 's') {
            strbuf_puts(&sb, "%' && input text 's");
            p++;
            continue;
        }
        if (*p == ' ')
            strbuf_puts(&sb, "%s");
        else if (*p == '\'')
            strbuf_puts(&sb, "'\\''");
        else
            strbuf_putc(&sb, *p);
    }
    strbuf_putc(&sb, '\'');
    return strbuf_steal(&sb);
}

/* Android's KEYCODE_* numbers for the named keys (KeyEvent.java). */
static int named_keycode(enum input_key_name k)
{
    switch (k) {
    case INPUT_KEY_ENTER:
        return 66;
    case INPUT_KEY_TAB:
        return 61;
    case INPUT_KEY_ESCAPE:
        return 111;
    case INPUT_KEY_BACKSPACE:
        return 67; /* KEYCODE_DEL deletes backwards */
    case INPUT_KEY_DELETE:
        return 112; /* KEYCODE_FORWARD_DEL */
    case INPUT_KEY_INSERT:
        return 124;
    case INPUT_KEY_UP:
        return 19;
    case INPUT_KEY_DOWN:
        return 20;
    case INPUT_KEY_LEFT:
        return 21;
    case INPUT_KEY_RIGHT:
        return 22;
    case INPUT_KEY_HOME:
        return 122; /* KEYCODE_MOVE_HOME: the start of the line, not the launcher */
    case INPUT_KEY_END:
        return 123;
    case INPUT_KEY_PAGEUP:
        return 92;
    case INPUT_KEY_PAGEDOWN:
        return 93;
    default:
        if (k >= INPUT_KEY_F1 && k <= INPUT_KEY_F1 + 11)
            return 131 + (int)(k - INPUT_KEY_F1);
        return -1;
    }
}

static int char_keycode(uint32_t cp)
{
    if (cp >= 'a' && cp <= 'z')
        return 29 + (int)(cp - 'a');
    if (cp >= 'A' && cp <= 'Z')
        return 29 + (int)(cp - 'A');
    if (cp >= '0' && cp <= '9')
        return 7 + (int)(cp - '0');
    static const struct {
        char ch;
        int code;
    } keys[] = {{' ', 62}, {',', 55}, {'.', 56}, {'\t', 61}, {'`', 68}, {'-', 69},
                {'=', 70}, {'[', 71}, {']', 72}, {'\\', 73}, {';', 74}, {'\'', 75},
                {'/', 76}, {'@', 77}, {'+', 81}, {'*', 17},  {'#', 18}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if ((uint32_t)(unsigned char)keys[i].ch == cp)
            return keys[i].code;
    return -1;
}

bool android_keycode(const char *spec, int *keycode, enum error_code *code, char **err)
{
    struct input_key key;
    if (!input_keys_parse("key", spec, &key, err)) {
        *code = ERROR_INVALID_ARGUMENT;
        return false;
    }
    if (key.mods) {
        *code = ERROR_NOT_SUPPORTED;
        *err = xasprintf("key: \"%s\": android sessions send single keys through `input keyevent`, "
                         "without modifiers (chords are not supported yet)",
                         spec);
        return false;
    }
    int k = key.named == INPUT_KEY_CHAR ? char_keycode(key.codepoint) : named_keycode(key.named);
    if (k < 0) {
        *code = ERROR_NOT_SUPPORTED;
        *err = xasprintf("key: \"%s\" has no Android key code; use type_text for characters", spec);
        return false;
    }
    *keycode = k;
    return true;
}
