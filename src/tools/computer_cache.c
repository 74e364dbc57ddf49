/* The last screenshot computer made of each session, answered again while
 * the screen has not changed since it was taken (docs/computer.md
 * "Settling"): a mouse_move over a still screen, a click on nothing, or two
 * screenshots in a row then cost no capture and no PNG encoding.
 *
 * Validity rests on the backend's change listener (watch_changes), added
 * before the capture began and kept until the session ends: any change it
 * hears of afterwards marks the copy stale. The copy is the same bytes the
 * client was sent for the same request and the same redaction rules, so it
 * shows nothing that was not shown before. One copy per session. */
#include "backend/backend.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "session/session.h"
#include "tools/computer.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct computer_cache {
    struct session *s; /* NULL once the session has ended */
    struct backend_change_watch watch;
    bool stale; /* a change since the copy's capture began */
    char *key;  /* what was asked for; NULL: no copy */
    uint8_t *bytes;
    size_t len;
    const char *mime;
    json_t *data;
    struct computer_cache *next;
};

static struct computer_cache *caches;

static void drop_copy(struct computer_cache *c)
{
    free(c->key);
    free(c->bytes);
    json_decref(c->data);
    c->key = NULL;
    c->bytes = NULL;
    c->data = NULL;
}

static void changed(struct backend_change_watch *w)
{
    struct computer_cache *c =
        (struct computer_cache *)((char *)w - offsetof(struct computer_cache, watch));
    c->stale = true;
}

static void session_gone(struct session *s, void *ud)
{
    struct computer_cache *c = ud;
    s->impl->watch_changes(s, &c->watch, false);
    for (struct computer_cache **p = &caches; *p; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            break;
        }
    }
    drop_copy(c);
    free(c);
}

struct computer_cache *computer_cache_of(struct session *s)
{
    if (!s->impl->watch_changes)
        return NULL;
    for (struct computer_cache *c = caches; c; c = c->next)
        if (c->s == s)
            return c;
    struct computer_cache *c = xcalloc(1, sizeof *c);
    c->s = s;
    c->watch.changed = changed;
    if (!s->impl->watch_changes(s, &c->watch, true)) {
        free(c);
        return NULL;
    }
    c->stale = true;
    c->next = caches;
    caches = c;
    session_when_ended(s, session_gone, c);
    return c;
}

char *computer_cache_key(const json_t *shot_args, int width, int height,
                         const struct screen_guard *g)
{
    char *args = json_dumps(shot_args, JSON_SORT_KEYS | JSON_COMPACT);
    struct strbuf b;
    strbuf_init(&b);
    /* A resized screen is another picture even where the arguments match. */
    strbuf_printf(&b, "%dx%d;%s", width, height, args ? args : "");
    free(args);
    for (size_t i = 0; g && i < g->n_redact; i++)
        strbuf_printf(&b, ";%d,%d,%d,%d", g->redact[i].x, g->redact[i].y, g->redact[i].width,
                      g->redact[i].height);
    return strbuf_steal(&b);
}

bool computer_cache_take(struct computer_cache *c, const char *key, uint8_t **bytes, size_t *len,
                         const char **mime, json_t **data)
{
    /* Changes that came in but were not read yet count too. */
    if (!c || !c->key || !c->s->impl->watch_changes(c->s, &c->watch, true) || c->stale ||
        strcmp(c->key, key))
        return false;
    *bytes = xmalloc(c->len);
    memcpy(*bytes, c->bytes, c->len);
    *len = c->len;
    *mime = c->mime;
    *data = json_incref(c->data);
    return true;
}

void computer_cache_begin(struct computer_cache *c)
{
    if (!c)
        return;
    drop_copy(c);
    c->stale = !c->s->impl->watch_changes(c->s, &c->watch, true);
}

void computer_cache_store(struct computer_cache *c, const char *key, const uint8_t *bytes,
                          size_t len, const char *mime, json_t *data)
{
    if (!c || c->stale)
        return;
    drop_copy(c);
    c->key = xstrdup(key);
    c->bytes = xmalloc(len);
    memcpy(c->bytes, bytes, len);
    c->len = len;
    c->mime = mime;
    c->data = json_incref(data);
}
