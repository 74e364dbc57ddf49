/* Approval cards: a confirmation the policy asks for (mcp/confirm.c) is
 * shown on every page; approve and control pages may answer it, watch
 * pages see it without buttons. The first answer wins, from a page or from
 * the client's elicitation; the confirmation's timeout declines. */
#define LOG_MODULE "viewer"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/confirm.h"
#include "viewer/internal.h"
#include "viewer/ws.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct card {
    char id[16];
    char *tool, *question, *why;
    json_t *target; /* where the call acts (card_target.c), or NULL */
    uint64_t expires_ms;
    void (*answer)(void *cf, bool yes, const char *by);
    void *cf;
    struct card *next;
};

/* Kept outside the viewer: a confirmation may be withdrawn after the
 * viewer is gone (the server shutting down). */
static struct card *cards;
static unsigned next_card = 1;

static json_t *card_json(const struct card *c, uint64_t now)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I}", "type", "card", "id", c->id, "tool",
                          c->tool, "question", c->question, "why", c->why, "expires_in_ms",
                          (json_int_t)(c->expires_ms > now ? c->expires_ms - now : 0));
    if (c->target)
        json_object_set(j, "target", c->target);
    return j;
}

static void broadcast(json_t *msg)
{
    struct viewer *v = viewer_the;
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    for (struct view_client *c = v ? v->clients : NULL; c; c = c->next)
        ws_send(c->ws, true, text, strlen(text));
    free(text);
}

static void card_free(struct card *c)
{
    free(c->tool);
    free(c->question);
    free(c->why);
    json_decref(c->target);
    free(c);
}

static struct card *unlink_card(const char *id)
{
    for (struct card **p = &cards; *p; p = &(*p)->next)
        if (strcmp((*p)->id, id) == 0) {
            struct card *c = *p;
            *p = c->next;
            broadcast(json_pack("{s:s, s:s}", "type", "card_gone", "id", c->id));
            return c;
        }
    return NULL;
}

static void *show(void *ud, const char *tool, const json_t *args, const char *caller,
                  const char *question, const char *why, uint64_t timeout_ms,
                  void (*answer)(void *cf, bool yes, const char *by), void *cf)
{
    struct viewer *v = ud;
    /* Nobody who may answer is watching: nothing to show. */
    bool answerable = false;
    for (struct view_client *c = v->clients; c; c = c->next)
        answerable |= c->grant.role >= VIEW_APPROVE && !ws_closing(c->ws);
    if (!answerable)
        return NULL;
    struct card *c = xcalloc(1, sizeof *c);
    snprintf(c->id, sizeof c->id, "c%u", next_card++);
    c->tool = xstrdup(tool);
    c->question = xstrdup(question);
    c->why = xstrdup(why);
    c->target = viewer_card_target(v, args, caller);
    uint64_t now = uv_now(v->app->loop);
    c->expires_ms = now + timeout_ms;
    c->answer = answer;
    c->cf = cf;
    c->next = cards;
    cards = c;
    broadcast(card_json(c, now));
    if (c->target && json_object_get(c->target, "ref"))
        viewer_card_target_resolve(v, c->id, c->target);
    return c;
}

static void withdraw(void *ud, void *handle)
{
    (void)ud;
    struct card *c = handle;
    /* Still listed: take it down. */
    for (struct card *k = cards; k; k = k->next)
        if (k == c) {
            card_free(unlink_card(c->id));
            return;
        }
}

void viewer_cards_send(struct view_client *c)
{
    uint64_t now = uv_now(c->v->app->loop);
    for (struct card *k = cards; k; k = k->next)
        viewer_client_send_json(c, card_json(k, now));
}

void viewer_card_answer(struct view_client *c, const char *id, bool yes)
{
    if (c->grant.role < VIEW_APPROVE) {
        viewer_client_send_json(c, json_pack("{s:s, s:s}", "type", "error", "message",
                                             "answer: this link may only watch"));
        return;
    }
    struct card *k = id ? unlink_card(id) : NULL;
    if (!k) {
        viewer_client_send_json(c, json_pack("{s:s, s:s}", "type", "error", "message",
                                             "answer: that question is no longer open"));
        return;
    }
    char by[96];
    snprintf(by, sizeof by, "viewer link %s (%s)", c->grant.link_id, view_role_name(c->grant.role));
    log_info("%s %s %s", by, yes ? "approved" : "declined", k->tool);
    void (*answer)(void *, bool, const char *) = k->answer;
    void *cf = k->cf;
    card_free(k);
    answer(cf, yes, by);
}

void viewer_card_located(const char *id, const json_t *bounds)
{
    struct card *k = cards;
    while (k && strcmp(k->id, id) != 0)
        k = k->next;
    /* Answered or withdrawn meanwhile. */
    if (!k || !k->target)
        return;
    if (bounds)
        json_object_update(k->target, (json_t *)bounds);
    else
        json_object_set_new(k->target, "found", json_false());
    broadcast(
        json_pack("{s:s, s:s, s:O}", "type", "card_target", "id", k->id, "target", k->target));
}

static struct confirm_hook hook = {.show = show, .withdraw = withdraw};

void viewer_cards_start(struct viewer *v)
{
    hook.ud = v;
    confirm_set_hook(&hook);
}

void viewer_cards_stop(void)
{
    confirm_set_hook(NULL);
}
