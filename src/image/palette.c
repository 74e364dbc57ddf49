#include "image/palette.h"

/* Distinguishes colour 0x000000 from an empty slot. */
#define PALETTE_USED (1u << 24)

static uint32_t slot_of(uint32_t rgb)
{
    return (rgb * 2654435761u) >> 22; /* top 10 bits: PALETTE_SLOTS == 1024 */
}

/* Returns the slot holding rgb, or the empty slot where it belongs. */
static uint32_t find(const struct palette_map *m, uint32_t rgb)
{
    uint32_t s = slot_of(rgb);
    while (m->keys[s] && m->keys[s] != (rgb | PALETTE_USED))
        s = (s + 1) & (PALETTE_SLOTS - 1);
    return s;
}

static void remember(struct palette_map *m, uint32_t slot, uint32_t rgb, uint8_t index)
{
    /* Keep the table sparse so probing stays short; past that we recompute. */
    if (m->used >= PALETTE_SLOTS / 2)
        return;
    m->keys[slot] = rgb | PALETTE_USED;
    m->vals[slot] = index;
    m->used++;
}

void palette_map_init(struct palette_map *m, uint32_t *palette, int *len)
{
    m->palette = palette;
    m->len = len;
    m->used = 0;
    for (int i = 0; i < PALETTE_SLOTS; i++)
        m->keys[i] = 0;
    for (int i = 0; i < *len && i < PALETTE_MAX; i++) {
        uint32_t rgb = palette[i] & 0xffffff;
        uint32_t s = find(m, rgb);
        if (!m->keys[s])
            remember(m, s, rgb, (uint8_t)i);
    }
}

static uint8_t nearest(const struct palette_map *m, uint32_t rgb)
{
    int best = 0;
    long best_d = -1;
    for (int i = 0; i < *m->len; i++) {
        long dr = (long)((m->palette[i] >> 16) & 0xff) - (long)((rgb >> 16) & 0xff);
        long dg = (long)((m->palette[i] >> 8) & 0xff) - (long)((rgb >> 8) & 0xff);
        long db = (long)(m->palette[i] & 0xff) - (long)(rgb & 0xff);
        long d = dr * dr + dg * dg + db * db;
        if (best_d < 0 || d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return (uint8_t)best;
}

uint8_t palette_map_index(struct palette_map *m, uint32_t rgb)
{
    rgb &= 0xffffff;
    uint32_t s = find(m, rgb);
    if (m->keys[s])
        return m->vals[s];
    uint8_t index;
    if (*m->len < PALETTE_MAX) {
        index = (uint8_t)*m->len;
        m->palette[(*m->len)++] = rgb;
    } else {
        index = nearest(m, rgb);
    }
    remember(m, s, rgb, index);
    return index;
}
