/* Key encoding as xterm does it, by the modes the program set on the screen:
 * cursor keys in application mode (DECCKM) send SS3, Enter sends CR LF in
 * newline mode (LNM), and modifiers go into the sequence's second parameter
 * (1 + shift 1, alt 2, ctrl 4). */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "input/keys.h"

struct vt_screen;

#define VT_KEYS_MAX 32 /* bytes of the longest encoding */

/* The bytes for a named key (not INPUT_KEY_CHAR) with mods (shift, alt and
 * ctrl bits only) into buf (VT_KEYS_MAX); returns their length, 0 for a
 * key with no encoding. */
size_t vt_keys_named(const struct vt_screen *s, enum input_key_name key, unsigned mods, char *buf);
/* A character with modifiers that have no byte of their own (ctrl+é): the
 * CSI u form "CSI code ; 1+mods u". */
size_t vt_keys_csi_u(uint32_t cp, unsigned mods, char *buf);
