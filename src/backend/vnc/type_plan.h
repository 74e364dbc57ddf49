/* How type_text's text reaches a vnc server: each character as a key press
 * (a keysym), or pasted (RFB cut text, then the paste chord). */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* type_text's "via". */
enum vnc_via { VNC_VIA_AUTO, VNC_VIA_KEYS, VNC_VIA_PASTE };

/* One character to send and how. */
struct vnc_typed {
    uint32_t cp;
    bool paste;
};

/* "auto", "keys" or "paste"; false for anything else. */
bool vnc_via_parse(const char *s, enum vnc_via *out);

/* The characters of text (UTF-8) and how each goes, in order. apple: the
 * server types only what its keyboard layout has (macOS Screen Sharing),
 * so "auto" pastes Latin-1 beyond ASCII there; elsewhere (Xvnc, x11vnc map
 * any keysym to a key) "auto" types everything. Typed, CR LF is one Enter.
 * *out is malloc'd (*n entries, *n_paste of them pasted); false with *err
 * (malloc'd, naming "text" and "via") when a character can go neither way
 * the call allows. */
bool vnc_type_plan(const char *text, enum vnc_via via, bool apple, struct vnc_typed **out,
                   size_t *n, size_t *n_paste, char **err);
