/* Keys and typed text for a terminal program: chords parsed by src/input
 * ("ctrl+c", "shift+Tab", "alt+x", "F5", "é") encoded as xterm would, by
 * the program's modes (application cursor keys, newline) where those change
 * the bytes (vt_keys). */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input/keys.h"

struct term_screen;

/* Parse spec (src/input) as the argument field; false with *err (caller
 * frees) when it is not a key, or is one a terminal program cannot receive
 * (super, hyper, F13-F24): those are refused, never silently dropped. */
bool term_keys_parse(const char *field, const char *spec, struct input_key *key, char **err);
/* Send the key's bytes to the program (the screen's output callback). */
void term_keys_send(struct term_screen *s, const struct input_key *key);
/* Parse (as the argument "key") then send. */
bool term_keys_press(struct term_screen *s, const char *spec, char **err);
/* Send UTF-8 text as typed: newlines become Enter (CR), and the whole is
 * bracketed as a paste (ESC[200~ … ESC[201~) when the program asked for it. */
void term_keys_type(struct term_screen *s, const char *text, size_t len);
