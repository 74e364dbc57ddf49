#include "core/base64.h"

#include "core/xmalloc.h"

#include <pthread.h>
#include <string.h>

static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/* Two output characters for every 12 bits: half the lookups of one a
 * character (a screenshot's 270 KB is encoded on the loop thread). */
static char pairs[4096][2];
static pthread_once_t pairs_once = PTHREAD_ONCE_INIT;

static void fill_pairs(void)
{
    for (int i = 0; i < 4096; i++) {
        pairs[i][0] = table[i >> 6];
        pairs[i][1] = table[i & 63];
    }
}

char *base64_encode(const uint8_t *data, size_t len)
{
    pthread_once(&pairs_once, fill_pairs);
    size_t out_len = 4 * ((len + 2) / 3);
    char *out = xmalloc(out_len + 1);
    size_t o = 0, i = 0;
    for (; i + 2 < len; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8 | data[i + 2];
        memcpy(out + o, pairs[v >> 12], 2);
        memcpy(out + o + 2, pairs[v & 4095], 2);
        o += 4;
    }
    if (i < len) {
        uint32_t v = (uint32_t)data[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)data[i + 1] << 8;
        out[o++] = table[v >> 18 & 63];
        out[o++] = table[v >> 12 & 63];
        out[o++] = i + 1 < len ? table[v >> 6 & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
    return out;
}

static int decode_char(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

char *base64_decode(const char *text, size_t len, size_t *out_len)
{
    if (len % 4)
        return NULL;
    char *out = xmalloc(len / 4 * 3 + 1);
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            char c = text[i + k];
            if (c == '=' && i + 4 == len && k >= 2) {
                v[k] = 0;
                pad++;
            } else if (pad || (v[k] = decode_char(c)) < 0) {
                free(out);
                return NULL;
            }
        }
        uint32_t w =
            (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        out[o++] = (char)(w >> 16);
        if (pad < 2)
            out[o++] = (char)(w >> 8 & 0xff);
        if (pad < 1)
            out[o++] = (char)(w & 0xff);
    }
    out[o] = '\0';
    *out_len = o;
    return out;
}
