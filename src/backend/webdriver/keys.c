/* Glovebox key names (input/keys.h) as WebDriver keys: the W3C
 * specification gives each named key a code point in U+E000…U+E05D. */
#include "backend/webdriver/internal.h"

#include "core/xmalloc.h"
#include "input/keys.h"

#include <stdint.h>
#include <stdio.h>

const char *wd_key_for(int named)
{
    switch (named) {
    case INPUT_KEY_ENTER:
        return "\xee\x80\x87"; /* U+E007 */
    case INPUT_KEY_TAB:
        return "\xee\x80\x84";
    case INPUT_KEY_ESCAPE:
        return "\xee\x80\x8c";
    case INPUT_KEY_BACKSPACE:
        return "\xee\x80\x83";
    case INPUT_KEY_DELETE:
        return "\xee\x80\x97";
    case INPUT_KEY_INSERT:
        return "\xee\x80\x96";
    case INPUT_KEY_UP:
        return "\xee\x80\x93";
    case INPUT_KEY_DOWN:
        return "\xee\x80\x95";
    case INPUT_KEY_LEFT:
        return "\xee\x80\x92";
    case INPUT_KEY_RIGHT:
        return "\xee\x80\x94";
    case INPUT_KEY_HOME:
        return "\xee\x80\x91";
    case INPUT_KEY_END:
        return "\xee\x80\x90";
    case INPUT_KEY_PAGEUP:
        return "\xee\x80\x8e";
    case INPUT_KEY_PAGEDOWN:
        return "\xee\x80\x8f";
    default:
        break;
    }
    /* F1..F12 are U+E031..U+E03C. */
    static const char *const f[] = {
        "\xee\x80\xb1", "\xee\x80\xb2", "\xee\x80\xb3", "\xee\x80\xb4",
        "\xee\x80\xb5", "\xee\x80\xb6", "\xee\x80\xb7", "\xee\x80\xb8",
        "\xee\x80\xb9", "\xee\x80\xba", "\xee\x80\xbb", "\xee\x80\xbc",
    };
    if (named >= INPUT_KEY_F1 && named < INPUT_KEY_F1 + 12)
        return f[named - INPUT_KEY_F1];
    return NULL;
}

static const struct {
    unsigned mod;
    const char *key;
} mods[] = {
    {INPUT_MOD_CTRL, "\xee\x80\x89"},  /* U+E009 Control */
    {INPUT_MOD_SHIFT, "\xee\x80\x88"}, /* U+E008 Shift */
    {INPUT_MOD_ALT, "\xee\x80\x8a"},   /* U+E00A Alt */
    {INPUT_MOD_SUPER, "\xee\x80\xbd"}, /* U+E03D Meta */
    {INPUT_MOD_META, "\xee\x80\xbd"},
};

static size_t encode(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

static void key(json_t *list, const char *type, const char *value)
{
    json_array_append_new(list, json_pack("{s:s, s:s}", "type", type, "value", value));
}

bool wd_key_actions(const char *spec, int repeat, json_t **actions, char **err)
{
    struct input_key k;
    if (!input_keys_parse("key", spec, &k, err))
        return false;
    if (k.mods & INPUT_MOD_HYPER) {
        *err = xstrdup("argument \"key\": webdriver sessions have no hyper modifier (ctrl, "
                       "shift, alt, super and meta work)");
        return false;
    }
    char ch[8];
    const char *value;
    if (k.named == INPUT_KEY_CHAR) {
        size_t n = encode(k.codepoint, ch);
        ch[n] = '\0';
        value = ch;
    } else if (!(value = wd_key_for(k.named))) {
        *err = xasprintf("argument \"key\": \"%s\" has no WebDriver key (F13-F24 exist on "
                         "desktops only)",
                         spec);
        return false;
    }
    json_t *list = json_array();
    for (int r = 0; r < repeat; r++) {
        for (size_t i = 0; i < sizeof mods / sizeof *mods; i++)
            if (k.mods & mods[i].mod)
                key(list, "keyDown", mods[i].key);
        key(list, "keyDown", value);
        key(list, "keyUp", value);
        for (size_t i = sizeof mods / sizeof *mods; i-- > 0;)
            if (k.mods & mods[i].mod)
                key(list, "keyUp", mods[i].key);
    }
    *actions = list;
    return true;
}

bool wd_key_hold_actions(const char *spec, bool down, json_t **actions, char **err)
{
    struct input_key k = {0};
    bool mods_only = input_keys_parse_mods("key", spec, &k.mods, NULL);
    if (!mods_only && !input_keys_parse("key", spec, &k, err))
        return false;
    if (k.mods & INPUT_MOD_HYPER) {
        *err = xstrdup("argument \"key\": webdriver sessions have no hyper modifier (ctrl, "
                       "shift, alt, super and meta work)");
        return false;
    }
    char ch[8];
    const char *value = NULL;
    if (!mods_only && k.named == INPUT_KEY_CHAR) {
        ch[encode(k.codepoint, ch)] = '\0';
        value = ch;
    } else if (!mods_only && !(value = wd_key_for(k.named))) {
        *err = xasprintf("argument \"key\": \"%s\" has no WebDriver key", spec);
        return false;
    }
    json_t *list = json_array();
    const char *type = down ? "keyDown" : "keyUp";
    size_t n = sizeof mods / sizeof *mods;
    if (!down && value)
        key(list, type, value);
    for (size_t i = 0; i < n; i++) {
        size_t m = down ? i : n - 1 - i;
        if (k.mods & mods[m].mod)
            key(list, type, mods[m].key);
    }
    if (down && value)
        key(list, type, value);
    *actions = list;
    return true;
}
