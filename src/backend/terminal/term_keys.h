/* Keys and typed text for a terminal program: parse chords such as "ctrl+c",
 * "shift+Tab", "alt+x", "F5", "é", and encode them as xterm would, through
 * libvterm where the program's modes (application cursor keys, keypad,
 * newline) change the bytes. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct term_screen;

enum term_mod {
    TERM_MOD_SHIFT = 1 << 0,
    TERM_MOD_ALT = 1 << 1,
    TERM_MOD_CTRL = 1 << 2,
};

enum term_named_key {
    TERM_KEY_CHAR, /* not a named key: the key's codepoint */
    TERM_KEY_ENTER,
    TERM_KEY_TAB,
    TERM_KEY_ESCAPE,
    TERM_KEY_BACKSPACE,
    TERM_KEY_DELETE,
    TERM_KEY_INSERT,
    TERM_KEY_UP,
    TERM_KEY_DOWN,
    TERM_KEY_LEFT,
    TERM_KEY_RIGHT,
    TERM_KEY_HOME,
    TERM_KEY_END,
    TERM_KEY_PAGEUP,
    TERM_KEY_PAGEDOWN,
    TERM_KEY_F1, /* F1..F12 follow in order */
    TERM_KEY_F12 = TERM_KEY_F1 + 11,
};

struct term_key {
    enum term_named_key named;
    uint32_t codepoint; /* when named is TERM_KEY_CHAR */
    unsigned mods;      /* enum term_mod bits */
};

/* Modifiers (ctrl/control, alt/meta/option, shift; any case) joined by '+',
 * then a key name (any case) or one character. False with *err (caller
 * frees) naming the valid keys when spec is not one. */
bool term_keys_parse(const char *spec, struct term_key *key, char **err);
/* Send the key's bytes to the program (the screen's output callback). */
void term_keys_send(struct term_screen *s, const struct term_key *key);
/* Parse then send. */
bool term_keys_press(struct term_screen *s, const char *spec, char **err);
/* Send UTF-8 text as typed: newlines become Enter (CR), and the whole is
 * bracketed as a paste (ESC[200~ … ESC[201~) when the program asked for it. */
void term_keys_type(struct term_screen *s, const char *text, size_t len);
