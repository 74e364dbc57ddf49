#include "mcp/request_state.h"

#include "core/base64.h"
#include "core/xmalloc.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define VERSION   1
#define NONCE_LEN 16
#define MAC_LEN   32
#define RAW_LEN   (1 + 8 + NONCE_LEN + MAC_LEN)
/* Redeemed states remembered at once; more than this many confirmations
 * within one timeout evict the soonest to expire. */
#define REDEEMED_MAX 1024

static uint8_t key[32];
static bool have_key;

struct redeemed {
    uint8_t nonce[NONCE_LEN];
    uint64_t expires_ms;
};
static struct redeemed redeemed[REDEEMED_MAX];
static size_t n_redeemed;

static void fill_random(uint8_t *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = getrandom(buf + got, len - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            abort(); /* no randomness: nothing safe to do */
        got += (size_t)n;
    }
}

static void ensure_key(void)
{
    if (!have_key) {
        fill_random(key, sizeof key);
        have_key = true;
    }
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

/* MAC over a domain label, the tool, the canonical arguments (sorted keys,
 * compact, ASCII) and the expiry and nonce (raw[0..25)). */
static void mac(const char *tool, const json_t *args, const uint8_t *head, uint8_t *out)
{
    ensure_key();
    char *canon = json_dumps(args ? args : json_object(),
                             JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
    static const char label[] = "glovebox requestState v1";
    EVP_MAC *m = EVP_MAC_fetch(NULL, "HMAC", NULL);
    EVP_MAC_CTX *c = m ? EVP_MAC_CTX_new(m) : NULL;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", (char *)"SHA256", 0),
                           OSSL_PARAM_construct_end()};
    size_t outlen = 0;
    if (!c || !EVP_MAC_init(c, key, sizeof key, params) ||
        !EVP_MAC_update(c, (const uint8_t *)label, sizeof label) ||
        !EVP_MAC_update(c, (const uint8_t *)tool, strlen(tool) + 1) ||
        !EVP_MAC_update(c, (const uint8_t *)canon, strlen(canon) + 1) ||
        !EVP_MAC_update(c, head, 1 + 8 + NONCE_LEN) || !EVP_MAC_final(c, out, &outlen, MAC_LEN) ||
        outlen != MAC_LEN)
        abort();
    EVP_MAC_CTX_free(c);
    EVP_MAC_free(m);
    free(canon);
}

char *request_state_issue(const char *tool, const json_t *args, uint64_t expires_ms)
{
    uint8_t raw[RAW_LEN];
    raw[0] = VERSION;
    put_u64(raw + 1, expires_ms);
    fill_random(raw + 9, NONCE_LEN);
    mac(tool, args, raw, raw + 9 + NONCE_LEN);
    return base64_encode(raw, sizeof raw);
}

static bool was_redeemed(const uint8_t *nonce, uint64_t now_ms)
{
    /* Forget what has expired: an expired state fails on its own. */
    size_t j = 0;
    for (size_t i = 0; i < n_redeemed; i++)
        if (redeemed[i].expires_ms > now_ms)
            redeemed[j++] = redeemed[i];
    n_redeemed = j;
    for (size_t i = 0; i < n_redeemed; i++)
        if (CRYPTO_memcmp(redeemed[i].nonce, nonce, NONCE_LEN) == 0)
            return true;
    return false;
}

static void redeem(const uint8_t *nonce, uint64_t expires_ms)
{
    size_t slot = n_redeemed;
    if (n_redeemed == REDEEMED_MAX) {
        slot = 0;
        for (size_t i = 1; i < n_redeemed; i++)
            if (redeemed[i].expires_ms < redeemed[slot].expires_ms)
                slot = i;
    } else {
        n_redeemed++;
    }
    memcpy(redeemed[slot].nonce, nonce, NONCE_LEN);
    redeemed[slot].expires_ms = expires_ms;
}

enum request_state_check request_state_verify(const char *state, const char *tool,
                                              const json_t *args, uint64_t now_ms, bool redeem_it)
{
    size_t len = state ? strlen(state) : 0;
    /* base64 of RAW_LEN bytes, nothing more: no need to decode anything long. */
    if (len != (RAW_LEN + 2) / 3 * 4)
        return REQUEST_STATE_MALFORMED;
    size_t n = 0;
    uint8_t *raw = (uint8_t *)base64_decode(state, len, &n);
    if (!raw || n != RAW_LEN || raw[0] != VERSION) {
        free(raw);
        return REQUEST_STATE_MALFORMED;
    }
    uint8_t want[MAC_LEN];
    mac(tool, args, raw, want);
    enum request_state_check r = REQUEST_STATE_OK;
    uint64_t expires = get_u64(raw + 1);
    if (CRYPTO_memcmp(want, raw + 9 + NONCE_LEN, MAC_LEN) != 0)
        r = REQUEST_STATE_MISMATCH;
    else if (now_ms >= expires)
        r = REQUEST_STATE_EXPIRED;
    else if (was_redeemed(raw + 9, now_ms))
        r = REQUEST_STATE_REUSED;
    else if (redeem_it)
        redeem(raw + 9, expires);
    free(raw);
    return r;
}

const char *request_state_check_text(enum request_state_check c)
{
    switch (c) {
    case REQUEST_STATE_OK:
        return "it is valid";
    case REQUEST_STATE_MALFORMED:
        return "it is not a requestState this server issued";
    case REQUEST_STATE_MISMATCH:
        return "it was altered, was issued for another tool or other arguments, or comes from "
               "an earlier run of the server";
    case REQUEST_STATE_EXPIRED:
        return "it has expired";
    case REQUEST_STATE_REUSED:
        return "it was already used once";
    }
    return "it is invalid";
}
