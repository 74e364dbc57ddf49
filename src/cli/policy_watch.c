#define LOG_MODULE "policy"
#include "cli/policy_watch.h"

#include "cli/serve_policy.h"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/server.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>

/* Editors replace a file in several steps (write a copy, rename it over):
 * read once things have been quiet this long. */
#define SETTLE_MS 100
/* Without inotify, look this often. */
#define POLL_MS 2000

void policy_watch_reload(struct serve_policy *sp)
{
    struct policy *old = sp->policy;
    char *err = NULL;
    struct policy *p = policy_load(sp->file, &err);
    if (!p) {
        log_warn("policy not reloaded, the last good one stays in force: %s", err);
        policy_set_reload_error(old, err);
        free(err);
        return;
    }
    policy_carry_over(p, old);
    if (sp->have_mode)
        policy_set_mode(p, sp->mode);
    /* A mode the agent lowered with set_mode stays lowered, unless the person
     * changed the mode the file (or --mode) gives. */
    enum policy_mode now = policy_mode(old), loaded = policy_mode(p);
    if (now < sp->loaded_mode && loaded == sp->loaded_mode)
        policy_set_mode(p, now);
    sp->loaded_mode = loaded;
    char *visible_before = mcp_visible_tools(sp->app);
    sp->policy = p;
    sp->gate = policy_gate(p);
    sp->app->policy = p;
    policy_destroy(old);
    log_info("policy reloaded from %s (mode %s)", sp->file, policy_mode_name(policy_mode(p)));
    mcp_tools_notify_if_changed(sp->app, visible_before);
}

static void settled(uv_timer_t *t)
{
    policy_watch_reload(t->data);
}

static void changed(struct serve_policy *sp)
{
    uv_timer_start(&sp->settle, settled, SETTLE_MS, 0);
}

static void on_event(uv_fs_event_t *h, const char *name, int events, int status)
{
    (void)events;
    struct serve_policy *sp = h->data;
    char *copy = xstrdup(sp->file);
    /* The directory is watched: only our file's name matters (none given:
     * maybe it, so look). */
    if (status == 0 && (!name || strcmp(name, basename(copy)) == 0))
        changed(sp);
    free(copy);
}

static void on_poll(uv_fs_poll_t *h, int status, const uv_stat_t *prev, const uv_stat_t *curr)
{
    (void)status;
    (void)prev;
    (void)curr;
    changed(h->data);
}

void policy_watch_start(struct serve_policy *sp, struct app *app)
{
    sp->app = app;
    const char *source = policy_source(sp->policy);
    if (!source)
        return;
    sp->file = xstrdup(source);
    sp->loaded_mode = policy_mode(sp->policy);
    uv_timer_init(app->loop, &sp->settle);
    sp->settle.data = sp;
    uv_unref((uv_handle_t *)&sp->settle);
    char *copy = xstrdup(sp->file);
    const char *dir = dirname(copy);
    uv_fs_event_init(app->loop, &sp->event);
    sp->event.data = sp;
    int rc = uv_fs_event_start(&sp->event, on_event, dir, 0);
    uv_unref((uv_handle_t *)&sp->event);
    if (rc != 0) {
        log_info("cannot watch %s for changes (%s); checking it every %d ms", dir, uv_strerror(rc),
                 POLL_MS);
        uv_fs_poll_init(app->loop, &sp->poll);
        sp->poll.data = sp;
        uv_fs_poll_start(&sp->poll, on_poll, sp->file, POLL_MS);
        uv_unref((uv_handle_t *)&sp->poll);
    }
    free(copy);
}
