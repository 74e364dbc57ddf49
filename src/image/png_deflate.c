#include "image/png_deflate.h"

#include "core/xmalloc.h"
#include "image/frame.h"
#include "image/png_palette.h"

#include <assert.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
/* SSE2 (every x86-64) for the filters; other machines take plain loops. */
#if defined(__SSE2__) && defined(__x86_64__)
#define HAVE_SSE2 1
#include <emmintrin.h>
#endif

/* Scanline bytes a Huffman block covers: large enough that its header
 * (about 80 bytes) is lost in it, small enough for its codes to follow a
 * screen's changing parts. */
#define BLOCK        (256 * 1024)
#define MIN_MATCH    4 /* a 3-byte match rarely beats three literals */
#define MAX_MATCH    258
#define NICE_MATCH   32
#define WINDOW       32768
#define STORED_MAX   65535
#define LITLEN_SYMS  286
#define DIST_SYMS    30
#define CODELEN_SYMS 19
#define END_OF_BLOCK 256
/* 2^12 two-byte entries: 8 KiB, beside the rest in L1 (2^13 saved 0.5%
 * of the bytes on the terminal benchmark's screen, 2^10 cost 2.3%). */
#define HASH_BITS 12

enum { FILTER_NONE = 0, FILTER_SUB = 1, FILTER_UP = 2 };

/* `lits` literal bytes, then a match of `len` bytes `dist` back (len 0:
 * none, the block's last literals). */
struct token {
    uint32_t lits;
    uint16_t len;
    uint16_t dist;
};

struct bits {
    uint8_t *p;
    uint64_t buf;
    unsigned n; /* bits in buf, < 8 between calls */
};

static uint32_t load32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Deflate's bits go least significant first. Every call stores the whole
 * 64-bit buffer (the output has slack for it) and moves on by the bytes
 * completed: no branch, whose outcome would follow the code lengths. With
 * fewer than 8 bits left over, up to 56 can be added at once. */
static inline void put(struct bits *w, uint64_t v, unsigned len)
{
    w->buf |= v << w->n;
    w->n += len;
    memcpy(w->p, &w->buf, 8); /* little-endian hosts only, see the #error */
    unsigned bytes = w->n >> 3;
    w->p += bytes;
    w->buf >>= bytes * 8; /* at most 63 bits: bytes <= 7 */
    w->n &= 7;
}

static void align(struct bits *w)
{
    while (w->n > 0) {
        *w->p++ = (uint8_t)w->buf;
        w->buf >>= 8;
        w->n = w->n > 8 ? w->n - 8 : 0;
    }
    w->buf = 0;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "png_deflate writes its bit buffer as little-endian words"
#endif

/* Length 3..258 -> symbol 257..285 and its extra bits (RFC 1951 3.2.5). */
static unsigned len_sym(unsigned len, unsigned *eb, unsigned *ev)
{
    if (len <= 10) {
        *eb = *ev = 0;
        return 257 + len - 3;
    }
    if (len == 258) {
        *eb = *ev = 0;
        return 285;
    }
    unsigned v = len - 3, hb = 31 - (unsigned)__builtin_clz(v);
    *eb = hb - 2;
    *ev = v & ((1u << *eb) - 1);
    return 257 + 4 * (hb - 1) + ((v >> (hb - 2)) & 3);
}

/* Distance 1..32768 -> symbol 0..29 and its extra bits. */
static unsigned dist_sym(unsigned dist, unsigned *eb, unsigned *ev)
{
    if (dist <= 4) {
        *eb = *ev = 0;
        return dist - 1;
    }
    unsigned v = dist - 1, hb = 31 - (unsigned)__builtin_clz(v);
    *eb = hb - 1;
    *ev = v & ((1u << *eb) - 1);
    return 2 * hb + ((v >> (hb - 1)) & 1);
}

/* Shell sort (Ciura's gaps): at most 286 keys, and no qsort callback for
 * each comparison. */
static void sort_u64(uint64_t *a, int n)
{
    static const int gaps[] = {132, 57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof gaps / sizeof *gaps; g++) {
        int gap = gaps[g];
        for (int i = gap; i < n; i++) {
            uint64_t v = a[i];
            int j = i;
            for (; j >= gap && a[j - gap] > v; j -= gap)
                a[j] = a[j - gap];
            a[j] = v;
        }
    }
}

/* Huffman code lengths for n symbols of the counts freq, none over
 * `limit` bits; unused symbols get 0. At least two symbols get a code
 * (inflaters refuse a code of one), so an unused one may be given one. */
static void huff_lengths(const uint32_t *freq, int n, unsigned limit, uint8_t *len)
{
    uint64_t key[LITLEN_SYMS];
    int m = 0;
    for (int i = 0; i < n; i++) {
        len[i] = 0;
        if (freq[i])
            key[m++] = (uint64_t)freq[i] << 16 | (unsigned)i;
    }
    for (int i = 0; m < 2; i++) {
        bool used = false;
        for (int k = 0; k < m; k++)
            used = used || (int)(key[k] & 0xffff) == i;
        if (!used)
            key[m++] = (uint64_t)i; /* count 0: sorts first, longest code */
    }
    sort_u64(key, m);
    /* Two queues: the leaves in order of count, and the inner nodes, which
     * are made in order of count too; a node's parent always comes after it. */
    uint64_t w[2 * LITLEN_SYMS];
    int parent[2 * LITLEN_SYMS];
    unsigned depth[2 * LITLEN_SYMS];
    for (int i = 0; i < m; i++)
        w[i] = key[i] >> 16;
    int li = 0, ii = m, nc = m;
    for (int k = 0; k < m - 1; k++) {
        int pick[2];
        for (int j = 0; j < 2; j++)
            pick[j] = li < m && (ii >= nc || w[li] <= w[ii]) ? li++ : ii++;
        w[nc] = w[pick[0]] + w[pick[1]];
        parent[pick[0]] = parent[pick[1]] = nc;
        nc++;
    }
    depth[nc - 1] = 0;
    for (int i = nc - 2; i >= 0; i--)
        depth[i] = depth[parent[i]] + 1;
    /* Lengths over the limit are cut to it, then leaves are pushed down
     * from shorter lengths until the code is complete again. */
    unsigned bl[16] = {0};
    for (int i = 0; i < m; i++)
        bl[depth[i] > limit ? limit : depth[i]]++;
    uint32_t total = 0;
    for (unsigned l = 1; l <= limit; l++)
        total += bl[l] << (limit - l);
    while (total > (1u << limit)) {
        bl[limit]--;
        for (unsigned l = limit - 1; l > 0; l--)
            if (bl[l]) {
                bl[l]--;
                bl[l + 1] += 2;
                break;
            }
        total--;
    }
    /* The rarest symbols get the longest codes. */
    int k = 0;
    for (unsigned l = limit; l >= 1; l--)
        for (unsigned c = bl[l]; c > 0; c--)
            len[key[k++] & 0xffff] = (uint8_t)l;
}

/* Canonical codes for the lengths, bit-reversed for LSB-first output. */
static void huff_codes(const uint8_t *len, int n, uint16_t *code)
{
    unsigned bl[16] = {0}, next[16];
    for (int i = 0; i < n; i++)
        bl[len[i]]++;
    bl[0] = 0;
    unsigned c = 0;
    for (int b = 1; b < 16; b++) {
        c = (c + bl[b - 1]) << 1;
        next[b] = c;
    }
    for (int i = 0; i < n; i++) {
        if (!len[i])
            continue;
        uint32_t v = next[len[i]]++;
        v = (v & 0x5555) << 1 | (v >> 1 & 0x5555);
        v = (v & 0x3333) << 2 | (v >> 2 & 0x3333);
        v = (v & 0x0f0f) << 4 | (v >> 4 & 0x0f0f);
        v = (v & 0x00ff) << 8 | (v >> 8 & 0x00ff);
        code[i] = (uint16_t)(v >> (16 - len[i]));
    }
}

struct block {
    uint16_t ht[1 << HASH_BITS]; /* where each 4-byte hash was last seen: piece offset mod 2^16 */
    uint32_t lit[LITLEN_SYMS];
    uint32_t dist[DIST_SYMS];
    struct token *tok;
    size_t ntok;
};

/* The block's code lengths, run-length coded (symbols 16, 17, 18). */
struct header {
    uint8_t lens[LITLEN_SYMS + DIST_SYMS];
    unsigned hlit, hdist, hclen;
    uint8_t item[LITLEN_SYMS + DIST_SYMS];  /* code-length symbols */
    uint8_t extra[LITLEN_SYMS + DIST_SYMS]; /* their repeat counts */
    int nitems;
    uint8_t cl_len[CODELEN_SYMS];
    uint16_t cl_code[CODELEN_SYMS];
};

static const uint8_t cl_order[CODELEN_SYMS] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                               11, 4,  12, 3, 13, 2, 14, 1, 15};
static const uint8_t cl_extra_bits[CODELEN_SYMS] = {[16] = 2, [17] = 3, [18] = 7};

/* Fills h from the lit/len and distance lengths; returns its size in bits. */
static size_t header_build(struct header *h, const uint8_t *llen, const uint8_t *dlen)
{
    h->hlit = LITLEN_SYMS;
    while (h->hlit > 257 && !llen[h->hlit - 1])
        h->hlit--;
    h->hdist = DIST_SYMS;
    while (h->hdist > 1 && !dlen[h->hdist - 1])
        h->hdist--;
    memcpy(h->lens, llen, h->hlit);
    memcpy(h->lens + h->hlit, dlen, h->hdist);
    unsigned total = h->hlit + h->hdist;
    uint32_t freq[CODELEN_SYMS] = {0};
    h->nitems = 0;
#define ITEM(s, x)                                                                                 \
    do {                                                                                           \
        h->item[h->nitems] = (uint8_t)(s);                                                         \
        h->extra[h->nitems++] = (uint8_t)(x);                                                      \
        freq[s]++;                                                                                 \
    } while (0)
    for (unsigned i = 0; i < total;) {
        uint8_t v = h->lens[i];
        unsigned run = 1;
        while (i + run < total && h->lens[i + run] == v)
            run++;
        i += run;
        if (v == 0) {
            while (run >= 11) {
                unsigned r = run < 138 ? run : 138;
                ITEM(18, r - 11);
                run -= r;
            }
            if (run >= 3) {
                ITEM(17, run - 3);
                run = 0;
            }
        } else {
            ITEM(v, 0);
            run--;
            while (run >= 3) {
                unsigned r = run < 6 ? run : 6;
                ITEM(16, r - 3);
                run -= r;
            }
        }
        while (run-- > 0)
            ITEM(v, 0);
    }
#undef ITEM
    huff_lengths(freq, CODELEN_SYMS, 7, h->cl_len);
    huff_codes(h->cl_len, CODELEN_SYMS, h->cl_code);
    h->hclen = CODELEN_SYMS;
    while (h->hclen > 4 && !h->cl_len[cl_order[h->hclen - 1]])
        h->hclen--;
    size_t bits = 3 + 5 + 5 + 4 + 3 * (size_t)h->hclen;
    for (int s = 0; s < CODELEN_SYMS; s++)
        bits += (size_t)freq[s] * (h->cl_len[s] + cl_extra_bits[s]);
    return bits;
}

static void header_write(struct bits *w, const struct header *h, bool final)
{
    put(w, final, 1);
    put(w, 2, 2); /* dynamic Huffman */
    put(w, h->hlit - 257, 5);
    put(w, h->hdist - 1, 5);
    put(w, h->hclen - 4, 4);
    for (unsigned i = 0; i < h->hclen; i++)
        put(w, h->cl_len[cl_order[i]], 3);
    for (int i = 0; i < h->nitems; i++) {
        unsigned s = h->item[i];
        put(w, h->cl_code[s], h->cl_len[s]);
        if (cl_extra_bits[s])
            put(w, h->extra[i], cl_extra_bits[s]);
    }
}

static void write_stored(struct bits *w, const uint8_t *data, size_t len, bool final)
{
    do {
        size_t n = len < STORED_MAX ? len : STORED_MAX;
        put(w, final && n == len, 1);
        put(w, 0, 2);
        align(w);
        w->p[0] = (uint8_t)n;
        w->p[1] = (uint8_t)(n >> 8);
        w->p[2] = (uint8_t)~n;
        w->p[3] = (uint8_t)(~n >> 8);
        memcpy(w->p + 4, data, n);
        w->p += 4 + n;
        data += n;
        len -= n;
    } while (len > 0);
}

/* The block's symbols. The bit buffer is a local copy, so it stays in
 * registers. */
static void emit_tokens(struct bits *out, const struct block *b, const uint8_t *data,
                        const uint8_t *llen, const uint16_t *lcode, const uint8_t *dlen,
                        const uint16_t *dcode)
{
    /* Code and length of each literal in one word: one load a byte. */
    uint32_t lit[256];
    for (int i = 0; i < 256; i++)
        lit[i] = lcode[i] | (uint32_t)llen[i] << 16;
    struct bits w = *out;
    const uint8_t *q = data;
    for (size_t t = 0; t < b->ntok; t++) {
        const struct token *k = &b->tok[t];
        const uint8_t *end = q + k->lits;
        /* Three literals (up to 45 bits) a store. */
        for (; q + 3 <= end; q += 3) {
            uint32_t a = lit[q[0]], c = lit[q[1]], e = lit[q[2]];
            unsigned la = a >> 16, lc = c >> 16;
            put(&w,
                (a & 0xffff) | (uint64_t)(c & 0xffff) << la | (uint64_t)(e & 0xffff) << (la + lc),
                la + lc + (e >> 16));
        }
        for (; q < end; q++)
            put(&w, lit[*q] & 0xffff, lit[*q] >> 16);
        if (!k->len)
            continue;
        /* Length and distance with their extra bits: at most 48 bits. */
        unsigned eb, ev, s = len_sym(k->len, &eb, &ev);
        uint64_t v = lcode[s] | (uint64_t)ev << llen[s];
        unsigned n = llen[s] + eb;
        s = dist_sym(k->dist, &eb, &ev);
        put(&w, v | (uint64_t)(dcode[s] | (uint64_t)ev << dlen[s]) << n, n + dlen[s] + eb);
        q += k->len;
    }
    *out = w;
}

/* Writes the block's tokens over data[0..len): dynamic Huffman, or stored
 * when that is no larger (noise). */
static void write_block(struct bits *w, struct block *b, const uint8_t *data, size_t len,
                        bool final)
{
    b->lit[END_OF_BLOCK] = 1;
    uint8_t llen[LITLEN_SYMS], dlen[DIST_SYMS];
    uint16_t lcode[LITLEN_SYMS], dcode[DIST_SYMS];
    huff_lengths(b->lit, LITLEN_SYMS, 15, llen);
    huff_lengths(b->dist, DIST_SYMS, 15, dlen);
    struct header h;
    size_t bits = header_build(&h, llen, dlen);
    for (int s = 0; s < LITLEN_SYMS; s++)
        bits += (size_t)b->lit[s] * llen[s];
    for (int s = 265; s < 285; s++)
        bits += (size_t)b->lit[s] * ((s - 261) / 4);
    for (int s = 0; s < DIST_SYMS; s++)
        bits += (size_t)b->dist[s] * (dlen[s] + (s < 4 ? 0 : s / 2 - 1));
    size_t stored_bits = (len + (len / STORED_MAX + 1) * 5) * 8 + 7;
    if (bits >= stored_bits) {
        write_stored(w, data, len, final);
        return;
    }
    huff_codes(llen, LITLEN_SYMS, lcode);
    huff_codes(dlen, DIST_SYMS, dcode);
    header_write(w, &h, final);
    emit_tokens(w, b, data, llen, lcode, dlen, dcode);
    put(w, lcode[END_OF_BLOCK], llen[END_OF_BLOCK]);
}

/* How many bytes at a equal those at b, from the 4 known to, up to max. */
static unsigned extend(const uint8_t *a, const uint8_t *b, unsigned max)
{
    unsigned k = MIN_MATCH;
    for (; k + 8 <= max; k += 8) {
        uint64_t x = load64(a + k) ^ load64(b + k);
        if (x)
            return k + (unsigned)__builtin_ctzll(x) / 8;
    }
    while (k < max && a[k] == b[k])
        k++;
    return k;
}

/* Finds the matches in buf[start..end) (buf[0..start) is history the
 * matches may reach back into; buf[0] is byte `base` of the piece) and
 * counts the symbols. Every candidate is tested first without a branch:
 * in a stretch of literals (text, photos) the one branch taken is then
 * predictable. */
static void find_matches(struct block *b, const uint8_t *buf, size_t base, size_t start, size_t end,
                         size_t row_len)
{
    uint16_t *ht = b->ht;
    memset(b->lit, 0, sizeof b->lit);
    memset(b->dist, 0, sizeof b->dist);
    b->ntok = 0;
    const size_t row = row_len <= WINDOW ? row_len : 0;
    size_t i = start, lits_from = start;
    while (i + MIN_MATCH <= end) {
        const uint8_t *p = buf + i;
        uint32_t cur = load32(p);
        uint32_t h = (cur * 2654435761u) >> (32 - HASH_BITS);
        /* The distance back to where this hash was last seen, modulo
         * 2^16: an old or aliased place is caught by the comparison. */
        size_t back = (uint16_t)(base + i - ht[h]);
        ht[h] = (uint16_t)(base + i);
        size_t hat = i - back;
        bool ok1 = i >= 1, okr = row && i >= row;
        bool okh = back - 1 < WINDOW && back <= i;
        bool m1 = ok1 & (load32(ok1 ? p - 1 : p) == cur);
        bool mr = okr & (load32(okr ? p - row : p) == cur);
        bool mh = okh & (load32(okh ? buf + hat : p) == cur);
        if (__builtin_expect(!(m1 | mr | mh), 1)) {
            b->lit[*p]++;
            i++;
            continue;
        }
        unsigned max = end - i < MAX_MATCH ? (unsigned)(end - i) : MAX_MATCH;
        unsigned best = 0, dist = 0;
        if (m1) {
            best = extend(p, p - 1, max);
            dist = 1;
        }
        /* A match this long is taken without trying the others (zlib's
         * "nice length"): fewer unpredictable branches a match. */
        const unsigned nice = max < NICE_MATCH ? max : NICE_MATCH;
        if (mr && best < nice) {
            unsigned l = extend(p, p - row, max);
            if (l > best) {
                best = l;
                dist = (unsigned)row;
            }
        }
        if (mh && best < nice && i - hat != 1 && i - hat != row) {
            unsigned l = extend(p, buf + hat, max);
            if (l > best) {
                best = l;
                dist = (unsigned)(i - hat);
            }
        }
        b->tok[b->ntok++] = (struct token){
            .lits = (uint32_t)(i - lits_from), .len = (uint16_t)best, .dist = (uint16_t)dist};
        unsigned eb, ev;
        b->lit[len_sym(best, &eb, &ev)]++;
        b->dist[dist_sym(dist, &eb, &ev)]++;
        i += best;
        lits_from = i;
    }
    for (; i < end; i++)
        b->lit[buf[i]]++;
    b->tok[b->ntok++] = (struct token){.lits = (uint32_t)(end - lits_from)};
}

/* |v| of v as a signed byte: min(v, -v) unsigned, which vectorises. */
static inline unsigned mag(uint8_t v)
{
    uint8_t n = (uint8_t)-v;
    return v < n ? v : n;
}

/* Bytewise a - b of four bytes at once, no borrow between them. */
static inline uint32_t sub_bytes(uint32_t a, uint32_t b)
{
    return ((a | 0x80808080u) - (b & 0x7f7f7f7fu)) ^ ((a ^ ~b) & 0x80808080u);
}

/* The three filters' scores for the RGBA row cur (prev: the row above):
 * the sums of the filtered bytes as signed magnitudes (libpng's
 * heuristic). Alpha, 255 everywhere, adds 1 a pixel to None's score and
 * nothing to the others'. */
static void score_row(const uint8_t *restrict cur, const uint8_t *restrict prev, size_t n,
                      unsigned score[3])
{
    size_t i = 0;
    unsigned none = 0, sub = 0, up = 0;
#ifdef HAVE_SSE2
    /* Sixteen bytes a step: min(v, -v) is the magnitude, psadbw sums it. */
    if (n >= 32) {
        const __m128i z = _mm_setzero_si128();
        __m128i sn = z, ss = z, su = z;
        for (i = 4; i + 16 <= n; i += 16) {
            __m128i c = _mm_loadu_si128((const __m128i *)(cur + i));
            __m128i l = _mm_loadu_si128((const __m128i *)(cur + i - 4));
            __m128i u = _mm_loadu_si128((const __m128i *)(prev + i));
            __m128i ds = _mm_sub_epi8(c, l), du = _mm_sub_epi8(c, u);
            sn = _mm_add_epi64(sn, _mm_sad_epu8(_mm_min_epu8(c, _mm_sub_epi8(z, c)), z));
            ss = _mm_add_epi64(ss, _mm_sad_epu8(_mm_min_epu8(ds, _mm_sub_epi8(z, ds)), z));
            su = _mm_add_epi64(su, _mm_sad_epu8(_mm_min_epu8(du, _mm_sub_epi8(z, du)), z));
        }
        none = (unsigned)(_mm_cvtsi128_si32(sn) + _mm_cvtsi128_si32(_mm_srli_si128(sn, 8)));
        sub = (unsigned)(_mm_cvtsi128_si32(ss) + _mm_cvtsi128_si32(_mm_srli_si128(ss, 8)));
        up = (unsigned)(_mm_cvtsi128_si32(su) + _mm_cvtsi128_si32(_mm_srli_si128(su, 8)));
        for (size_t k = 0; k < 4; k++) {
            none += mag(cur[k]);
            sub += mag(cur[k]);
            up += mag((uint8_t)(cur[k] - prev[k]));
        }
    }
#endif
    for (; i < n; i++) {
        none += mag(cur[i]);
        sub += mag((uint8_t)(cur[i] - (i >= 4 ? cur[i - 4] : 0)));
        up += mag((uint8_t)(cur[i] - prev[i]));
    }
    score[FILTER_NONE] = none - (unsigned)(n / 4);
    score[FILTER_SUB] = sub;
    score[FILTER_UP] = up;
}

/* The RGBA row cur as a filtered RGB scanline in out, with the filter of
 * the lowest score. Each pixel is written as a four-byte store, the fourth
 * byte overwritten by the next pixel (the last byte by byte, so nothing is
 * written past the row). */
static void filter_row(const uint8_t *restrict cur, const uint8_t *restrict prev, uint32_t width,
                       uint8_t *restrict out)
{
    unsigned sc[3];
    score_row(cur, prev, (size_t)width * 4, sc);
    int filter = sc[FILTER_UP] <= sc[FILTER_SUB] && sc[FILTER_UP] < sc[FILTER_NONE] ? FILTER_UP
                 : sc[FILTER_SUB] < sc[FILTER_NONE]                                 ? FILTER_SUB
                                                                                    : FILTER_NONE;
    out[0] = (uint8_t)filter;
    uint8_t *d = out + 1;
    uint32_t x = 0;
#ifdef HAVE_SSE2
    /* Four pixels a step: subtracted as vectors, then RGBA -> RGB two
     * pixels a word, stored 8 bytes at a time (the 2 past the 6 written
     * land in the next pixels, or the slack after the buffer). */
    for (; x + 4 <= width; x += 4) {
        __m128i c = _mm_loadu_si128((const __m128i *)(cur + 4 * x));
        __m128i r = _mm_setzero_si128();
        if (filter == FILTER_UP)
            r = _mm_loadu_si128((const __m128i *)(prev + 4 * x));
        else if (filter == FILTER_SUB)
            r = x ? _mm_loadu_si128((const __m128i *)(cur + 4 * x - 4)) : _mm_slli_si128(c, 4);
        __m128i fv = _mm_sub_epi8(c, r);
        uint64_t px[2] = {(uint64_t)_mm_cvtsi128_si64(fv),
                          (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(fv, fv))};
        for (int k = 0; k < 2; k++) {
            uint64_t v = (px[k] & 0xffffffu) | (px[k] >> 8 & 0xffffff000000u);
            memcpy(d + 3 * x + 6 * k, &v, 8);
        }
    }
#endif
    uint32_t last = 0;
    if (x && filter == FILTER_SUB)
        memcpy(&last, cur + 4 * x - 4, 4);
    for (; x < width; x++) {
        uint32_t v, r = 0;
        memcpy(&v, cur + 4 * x, 4);
        if (filter == FILTER_UP)
            memcpy(&r, prev + 4 * x, 4);
        else if (filter == FILTER_SUB)
            r = last;
        last = v;
        uint32_t o = sub_bytes(v, r);
        if (x + 1 < width) {
            memcpy(d + 3 * x, &o, 4);
        } else {
            d[3 * x] = (uint8_t)o;
            d[3 * x + 1] = (uint8_t)(o >> 8);
            d[3 * x + 2] = (uint8_t)(o >> 16);
        }
    }
}

void png_deflate_rows(const struct frame *f, const struct png_palette *pal, uint32_t y0,
                      uint32_t y1, bool final, struct png_deflate_piece *out)
{
    assert(y0 < y1 && y1 <= f->height);
    const unsigned bpp = pal ? 1 : 3;
    const size_t row_len = 1 + (size_t)f->width * bpp;
    const size_t raw_len = row_len * (y1 - y0);
    /* History kept before each block: one row, for the row-above matches. */
    const size_t hist = row_len <= WINDOW ? row_len : 0;
    const size_t block_cap = row_len > BLOCK ? row_len : BLOCK;
    uint8_t *buf = xmalloc(hist + block_cap + 16); /* 16: filter_row's stores */
    struct block b;
    memset(b.ht, 0, sizeof b.ht);
    size_t base = 0; /* piece offset of buf[0] */
    b.tok = xmalloc((block_cap / MIN_MATCH + 2) * sizeof *b.tok);
    /* Stored blocks bound the output: 5 bytes each 65535, plus the bit
     * writer's slack and the closing empty block. */
    size_t cap = raw_len + (raw_len / STORED_MAX + 2 * (raw_len / BLOCK + 1)) * 5 + 64;
    out->data = xmalloc(cap);
    out->raw_len = raw_len;
    out->adler = 1;
    struct bits w = {.p = out->data};
    const size_t row_bytes = (size_t)f->width * 4;
    /* Row 0's row above, for the filters: zeros. */
    uint8_t *zeros = pal || y0 > 0 ? NULL : xcalloc(1, row_bytes);
    size_t kept = 0; /* history bytes at the front of buf */
    uint32_t y = y0;
    while (y < y1) {
        size_t at = kept;
        do {
            uint8_t *row = buf + at;
            if (pal) {
                row[0] = FILTER_NONE;
                memcpy(row + 1, pal->index + (size_t)y * f->width, f->width);
            } else {
                const uint8_t *src = f->rgba + (size_t)y * f->stride;
                const uint8_t *above = y > 0 ? src - f->stride : zeros;
                /* A row like the one above is Up: all zeros, found as runs. */
                if (y > 0 && memcmp(src, above, row_bytes) == 0) {
                    row[0] = FILTER_UP;
                    memset(row + 1, 0, row_len - 1);
                } else {
                    filter_row(src, above, f->width, row);
                }
            }
            at += row_len;
            y++;
        } while (y < y1 && at - kept + row_len <= block_cap);
        out->adler = libdeflate_adler32(out->adler, buf + kept, at - kept);
        find_matches(&b, buf, base, kept, at, row_len);
        write_block(&w, &b, buf + kept, at - kept, final && y == y1);
        kept = hist;
        memmove(buf, buf + at - hist, hist);
        base += at - hist;
    }
    if (!final) {
        /* An empty stored block: the piece ends on a byte boundary. */
        put(&w, 0, 3);
        align(&w);
        memcpy(w.p, "\0\0\xff\xff", 4);
        w.p += 4;
    } else {
        align(&w);
    }
    out->len = (size_t)(w.p - out->data);
    assert(out->len + 8 <= cap);
    free(zeros);
    free(b.tok);
    free(buf);
}
