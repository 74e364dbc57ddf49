/* How many columns a terminal gives a code point: 0 for combining marks and
 * format characters (they join the character before them), 2 for East Asian
 * wide and fullwidth characters and most emoji, 1 otherwise. */
#pragma once
#include <stdint.h>

int vt_width(uint32_t cp);
