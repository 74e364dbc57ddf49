/* Colour -> palette index lookup for indexed rendering (GIF). The palette
 * array belongs to the caller; the map only makes repeated lookups cheap. */
#pragma once
#include <stdint.h>

#define PALETTE_MAX   256
#define PALETTE_SLOTS 1024 /* power of two, well above PALETTE_MAX */

struct palette_map {
    uint32_t *palette;            /* caller's, room for PALETTE_MAX entries */
    int *len;                     /* caller's, entries in use */
    int used;                     /* filled slots */
    uint32_t keys[PALETTE_SLOTS]; /* colour | PALETTE_USED, 0 = empty */
    uint8_t vals[PALETTE_SLOTS];
};

void palette_map_init(struct palette_map *m, uint32_t *palette, int *len);
/* Index of rgb (0xRRGGBB): the existing entry, else a new one appended while
 * there is room, else the nearest existing entry. */
uint8_t palette_map_index(struct palette_map *m, uint32_t rgb);
