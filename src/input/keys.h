/* Key names and chords, parsed once for every kind of screen: "ctrl+c",
 * "shift+Tab", "ctrl+super+t", "alt+F4", "é". The value is backend-neutral
 * (modifier bits and a named key or a character); each backend maps it to
 * what its screens receive and refuses what they cannot express. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Shift, alt and ctrl have the bits of xterm's modifier parameter (minus 1). */
enum input_mod {
    INPUT_MOD_SHIFT = 1 << 0,
    INPUT_MOD_ALT = 1 << 1,
    INPUT_MOD_CTRL = 1 << 2,
    INPUT_MOD_SUPER = 1 << 3,
    INPUT_MOD_META = 1 << 4,
    INPUT_MOD_HYPER = 1 << 5,
};

enum input_key_name {
    INPUT_KEY_CHAR, /* not a named key: the key's codepoint */
    INPUT_KEY_ENTER,
    INPUT_KEY_TAB,
    INPUT_KEY_ESCAPE,
    INPUT_KEY_BACKSPACE,
    INPUT_KEY_DELETE,
    INPUT_KEY_INSERT,
    INPUT_KEY_UP,
    INPUT_KEY_DOWN,
    INPUT_KEY_LEFT,
    INPUT_KEY_RIGHT,
    INPUT_KEY_HOME,
    INPUT_KEY_END,
    INPUT_KEY_PAGEUP,
    INPUT_KEY_PAGEDOWN,
    INPUT_KEY_F1, /* F1..F24 follow in order */
    INPUT_KEY_F24 = INPUT_KEY_F1 + 23,
};

struct input_key {
    enum input_key_name named;
    uint32_t codepoint; /* when named is INPUT_KEY_CHAR */
    unsigned mods;      /* enum input_mod bits */
};

/* What every key error ends with: the names, aliases and modifiers. */
#define INPUT_KEYS_HELP                                                                            \
    "valid keys: Enter (Return), Tab, Escape (Esc), Backspace, Delete (Del), Insert (Ins), Up, "   \
    "Down, Left, Right, Home, End, PageUp (PgUp), PageDown (PgDn), F1-F12 (F13-F24 on "            \
    "desktops), Space, or a single character; modifiers ctrl (control), alt (option), shift, "     \
    "super (win, cmd, command), meta, hyper joined with + (e.g. ctrl+c, shift+tab, "               \
    "ctrl+alt+Delete, super+l); X keysym names as xdotool writes them also work (BackSpace, "      \
    "Page_Down, KP_0, KP_Enter, minus, Super_L)"

/* Modifiers (any case) joined by '+', then a key name (any case) or one
 * character; a '+' right after a '+' or alone is the plus key. False with
 * *err (caller frees; may be NULL) naming field, the bad part and the valid
 * keys when spec is not one. */
bool input_keys_parse(const char *field, const char *spec, struct input_key *key, char **err);
/* Modifiers alone, joined by '+' ("shift", "ctrl+shift", "Super_L"): the
 * keys held during a click or hold_key. False with *err (caller frees; may
 * be NULL) naming field and the part that is not a modifier. */
bool input_keys_parse_mods(const char *field, const char *spec, unsigned *mods, char **err);
/* The modifier's canonical name ("super") for one bit. */
const char *input_keys_mod_name(unsigned mod);
