#include "input/keys.h"

#include "core/xmalloc.h"

#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    enum input_key_name key;
} names[] = {
    {"enter", INPUT_KEY_ENTER},
    {"return", INPUT_KEY_ENTER},
    {"tab", INPUT_KEY_TAB},
    {"escape", INPUT_KEY_ESCAPE},
    {"esc", INPUT_KEY_ESCAPE},
    {"backspace", INPUT_KEY_BACKSPACE},
    {"delete", INPUT_KEY_DELETE},
    {"del", INPUT_KEY_DELETE},
    {"insert", INPUT_KEY_INSERT},
    {"ins", INPUT_KEY_INSERT},
    {"up", INPUT_KEY_UP},
    {"down", INPUT_KEY_DOWN},
    {"left", INPUT_KEY_LEFT},
    {"right", INPUT_KEY_RIGHT},
    {"arrowup", INPUT_KEY_UP},
    {"arrowdown", INPUT_KEY_DOWN},
    {"arrowleft", INPUT_KEY_LEFT},
    {"arrowright", INPUT_KEY_RIGHT},
    {"home", INPUT_KEY_HOME},
    {"end", INPUT_KEY_END},
    {"pageup", INPUT_KEY_PAGEUP},
    {"pgup", INPUT_KEY_PAGEUP},
    {"pagedown", INPUT_KEY_PAGEDOWN},
    {"pgdn", INPUT_KEY_PAGEDOWN},
    /* X keysym names, as xdotool (and models trained on it) write them. */
    {"page_up", INPUT_KEY_PAGEUP},
    {"prior", INPUT_KEY_PAGEUP},
    {"page_down", INPUT_KEY_PAGEDOWN},
    {"next", INPUT_KEY_PAGEDOWN},
    {"kp_enter", INPUT_KEY_ENTER},
    {"linefeed", INPUT_KEY_ENTER},
    {"iso_left_tab", INPUT_KEY_TAB},
    {"kp_up", INPUT_KEY_UP},
    {"kp_down", INPUT_KEY_DOWN},
    {"kp_left", INPUT_KEY_LEFT},
    {"kp_right", INPUT_KEY_RIGHT},
    {"kp_home", INPUT_KEY_HOME},
    {"kp_end", INPUT_KEY_END},
    {"kp_prior", INPUT_KEY_PAGEUP},
    {"kp_page_up", INPUT_KEY_PAGEUP},
    {"kp_next", INPUT_KEY_PAGEDOWN},
    {"kp_page_down", INPUT_KEY_PAGEDOWN},
    {"kp_insert", INPUT_KEY_INSERT},
    {"kp_delete", INPUT_KEY_DELETE},
};

/* X keysym names of characters (xdotool's "minus", "KP_0"): the character
 * they type. The keypad's digits and operators type what the main keys do. */
static const struct {
    const char *name;
    uint32_t cp;
} char_names[] = {
    {"minus", '-'},       {"plus", '+'},         {"equal", '='},       {"comma", ','},
    {"period", '.'},      {"slash", '/'},        {"backslash", '\\'},  {"semicolon", ';'},
    {"colon", ':'},       {"apostrophe", '\''},  {"quotedbl", '"'},    {"grave", '`'},
    {"asciitilde", '~'},  {"exclam", '!'},       {"at", '@'},          {"numbersign", '#'},
    {"dollar", '$'},      {"percent", '%'},      {"asciicircum", '^'}, {"ampersand", '&'},
    {"asterisk", '*'},    {"parenleft", '('},    {"parenright", ')'},  {"underscore", '_'},
    {"bracketleft", '['}, {"bracketright", ']'}, {"braceleft", '{'},   {"braceright", '}'},
    {"bar", '|'},         {"less", '<'},         {"greater", '>'},     {"question", '?'},
    {"kp_0", '0'},        {"kp_1", '1'},         {"kp_2", '2'},        {"kp_3", '3'},
    {"kp_4", '4'},        {"kp_5", '5'},         {"kp_6", '6'},        {"kp_7", '7'},
    {"kp_8", '8'},        {"kp_9", '9'},         {"kp_add", '+'},      {"kp_subtract", '-'},
    {"kp_multiply", '*'}, {"kp_divide", '/'},    {"kp_decimal", '.'},  {"kp_equal", '='},
    {"kp_space", ' '},
};

static const struct {
    const char *name;
    unsigned mod;
} mod_names[] = {
    /* Canonical names first: input_keys_mod_name answers with them. */
    {"shift", INPUT_MOD_SHIFT},
    {"alt", INPUT_MOD_ALT},
    {"ctrl", INPUT_MOD_CTRL},
    {"super", INPUT_MOD_SUPER},
    {"meta", INPUT_MOD_META},
    {"hyper", INPUT_MOD_HYPER},
    {"control", INPUT_MOD_CTRL},
    {"option", INPUT_MOD_ALT},
    {"opt", INPUT_MOD_ALT},
    {"win", INPUT_MOD_SUPER},
    {"windows", INPUT_MOD_SUPER},
    {"cmd", INPUT_MOD_SUPER},
    {"command", INPUT_MOD_SUPER},
    /* The keys' X keysym names (xdotool key super_l, shift_r). */
    {"shift_l", INPUT_MOD_SHIFT},
    {"shift_r", INPUT_MOD_SHIFT},
    {"control_l", INPUT_MOD_CTRL},
    {"control_r", INPUT_MOD_CTRL},
    {"ctrl_l", INPUT_MOD_CTRL},
    {"ctrl_r", INPUT_MOD_CTRL},
    {"alt_l", INPUT_MOD_ALT},
    {"alt_r", INPUT_MOD_ALT},
    {"super_l", INPUT_MOD_SUPER},
    {"super_r", INPUT_MOD_SUPER},
    {"meta_l", INPUT_MOD_META},
    {"meta_r", INPUT_MOD_META},
    {"hyper_l", INPUT_MOD_HYPER},
    {"hyper_r", INPUT_MOD_HYPER},
};

const char *input_keys_mod_name(unsigned mod)
{
    for (size_t i = 0; i < sizeof mod_names / sizeof *mod_names; i++)
        if (mod_names[i].mod == mod)
            return mod_names[i].name;
    return "?";
}

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

/* s[0..n) without spaces around it; a lone space stays. */
static void trim(const char **s, size_t *n)
{
    while (*n > 1 && **s == ' ')
        (*s)++, (*n)--;
    while (*n > 1 && (*s)[*n - 1] == ' ')
        (*n)--;
}

static bool parse_key(const char *s, size_t n, struct input_key *key)
{
    trim(&s, &n);
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
    for (size_t i = 0; i < sizeof char_names / sizeof char_names[0]; i++) {
        if (strlen(char_names[i].name) == n && !strncasecmp(s, char_names[i].name, n)) {
            key->codepoint = char_names[i].cp;
            return true;
        }
    }
    if ((n == 2 || n == 3) && (s[0] == 'f' || s[0] == 'F') && s[1] >= '1' && s[1] <= '9') {
        int f = s[1] - '0';
        if (n == 3)
            f = s[2] >= '0' && s[2] <= '9' ? f * 10 + (s[2] - '0') : 0;
        if (f >= 1 && f <= 24) {
            key->named = INPUT_KEY_F1 + (f - 1);
            return true;
        }
    }
    return one_char(s, n, &key->codepoint);
}

static bool parse_mod(const char *s, size_t n, unsigned *mods)
{
    trim(&s, &n);
    for (size_t i = 0; i < sizeof mod_names / sizeof mod_names[0]; i++) {
        if (strlen(mod_names[i].name) == n && !strncasecmp(s, mod_names[i].name, n)) {
            *mods |= mod_names[i].mod;
            return true;
        }
    }
    return false;
}

bool input_keys_parse(const char *field, const char *spec, struct input_key *key, char **err)
{
    *key = (struct input_key){.named = INPUT_KEY_CHAR};
    const char *p = spec;
    /* Every '+' after the first byte ends a modifier, so "ctrl++" and "+"
     * name the plus key. */
    for (const char *plus; p[0] && (plus = strchr(p + 1, '+'));) {
        if (!parse_mod(p, (size_t)(plus - p), &key->mods)) {
            if (err)
                *err = xasprintf(
                    "argument \"%s\": unknown modifier \"%.*s\" in \"%s\"; " INPUT_KEYS_HELP, field,
                    (int)(plus - p), p, spec);
            return false;
        }
        p = plus + 1;
    }
    if (!*p) {
        if (err)
            *err = xasprintf("argument \"%s\": no key in \"%s\"; " INPUT_KEYS_HELP, field, spec);
        return false;
    }
    if (!parse_key(p, strlen(p), key)) {
        if (err)
            *err = xasprintf("argument \"%s\": unknown key \"%s\" in \"%s\"; " INPUT_KEYS_HELP,
                             field, p, spec);
        return false;
    }
    return true;
}

bool input_keys_parse_mods(const char *field, const char *spec, unsigned *mods, char **err)
{
    *mods = 0;
    const char *p = spec;
    for (;;) {
        const char *plus = strchr(p, '+');
        size_t n = plus ? (size_t)(plus - p) : strlen(p);
        if (n == 0 || !parse_mod(p, n, mods)) {
            if (err)
                *err = xasprintf("argument \"%s\": \"%.*s\" in \"%s\" is not a modifier; "
                                 "modifiers: shift, ctrl (control), alt (option), super (win, "
                                 "cmd), meta, hyper, joined with +",
                                 field, (int)n, p, spec);
            return false;
        }
        if (!plus)
            return true;
        p = plus + 1;
    }
}
