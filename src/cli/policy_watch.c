#define LOG_MODULE "policy"
#include "cli/policy_watch.h"

#include "cli/serve_policy.h"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/server.h"
#include "policy/audit.h"
#include "store/audit_db.h"

#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* Editors replace a file in several steps (write a copy, rename it over):
 * read once things have been quiet this long. */
#define SETTLE_MS 100
/* Without inotify, look this often. */
#define POLL_MS 2000

/* A row in the audit log for what happened to the policy: the person can
 * later see when permissions changed and who was waiting for whom. */
static void audit_event(struct serve_policy *sp, const char *decision, const char *outcome,
                        const char *why)
{
    if (!sp->app->audit)
        return;
    struct audit_row *row = xcalloc(1, sizeof *row);
    row->time_ms = audit_now_ms();
    row->text[AUDIT_TRANSPORT] = xstrdup("server");
    row->text[AUDIT_TOOL] = xstrdup("(policy reload)");
    row->text[AUDIT_DECISION] = xstrdup(decision);
    row->text[AUDIT_OUTCOME] = xstrdup(outcome);
    row->text[AUDIT_ERROR] = why ? xstrdup(why) : NULL;
    /* Every row has arguments (the table requires them): here, the files. */
    json_t *files = json_pack("{s:s?, s:s?}", "file", sp->file, "project", sp->project);
    row->text[AUDIT_ARGUMENTS] = json_dumps(files, JSON_COMPACT);
    json_decref(files);
    audit_add(sp->app->audit, row);
}

/* Why p is wider than the policy in force, malloc'd, or NULL. */
static char *widening(const struct policy *p, const struct policy *old)
{
    char *why = policy_widening(p, old);
    const struct policy *pn = policy_narrowed_by(p), *on = policy_narrowed_by(old);
    if (!why && on)
        why = pn ? policy_widening(pn, on) : xstrdup("the project policy no longer narrows it");
    return why;
}

static void install(struct serve_policy *sp, struct policy *p)
{
    struct policy *old = sp->policy;
    char *visible_before = mcp_visible_tools(sp->app);
    sp->policy = p;
    sp->gate = policy_gate(p);
    sp->app->policy = p;
    policy_destroy(old);
    log_info("policy reloaded from %s (mode %s)", sp->file ? sp->file : sp->project,
             policy_mode_name(policy_mode(p)));
    mcp_tools_notify_if_changed(sp->app, visible_before);
}

void policy_watch_reload(struct serve_policy *sp, bool confirmed)
{
    struct policy *old = sp->policy;
    char *err = NULL;
    struct policy *p = policy_load_layers(sp->file, sp->project, &err);
    if (!p) {
        log_warn("policy not reloaded, the last good one stays in force: %s", err);
        policy_set_reload_error(old, err);
        audit_event(sp, "kept", "error", err);
        free(err);
        return;
    }
    policy_carry_over(p, old);
    serve_policy_warn(p, stderr, "glovebox: warning: ");
    if (sp->have_mode)
        policy_set_mode(p, sp->mode);
    /* A mode the agent lowered with set_mode stays lowered, unless the person
     * changed the mode the file (or --mode) gives. */
    enum policy_mode now = policy_mode(old), loaded = policy_mode(p);
    if (now < sp->loaded_mode && loaded == sp->loaded_mode)
        policy_set_mode(p, now);
    char *why = confirmed ? NULL : widening(p, old);
    if (why) {
        /* The old policy stays; policy apply reads the files again. */
        log_warn("the policy files widen the permissions (%s): they apply after glovebox "
                 "policy apply or a restart",
                 why);
        policy_set_reload_error(old, NULL);
        policy_set_pending(old, why);
        policy_destroy(p);
        audit_event(sp, "pending", "ok", why);
        free(why);
        return;
    }
    sp->loaded_mode = loaded;
    install(sp, p);
    audit_event(sp, confirmed ? "applied" : "narrowed", "ok", NULL);
}

static void settled(uv_timer_t *t)
{
    policy_watch_reload(t->data, false);
}

static void on_apply(uv_signal_t *h, int signum)
{
    (void)signum;
    struct serve_policy *sp = h->data;
    log_info("glovebox policy apply: reading %s again and applying it",
             sp->file ? sp->file : sp->project);
    policy_watch_reload(sp, true);
}

static void changed(struct serve_policy *sp)
{
    uv_timer_start(&sp->settle, settled, SETTLE_MS, 0);
}

static void on_event(uv_fs_event_t *h, const char *name, int events, int status)
{
    (void)events;
    struct serve_policy *sp = h->data;
    const char *file = h == &sp->event[0] ? sp->file : sp->project;
    char *copy = xstrdup(file);
    /* The directory is watched: only our file's name matters (none given:
     * maybe it, so look). A file mounted from a Kubernetes ConfigMap or
     * Secret is a link through "..data", which the kubelet renames over to
     * update every file at once: that rename is a change of ours. */
    if (status == 0 && (!name || strcmp(name, basename(copy)) == 0 || strcmp(name, "..data") == 0))
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

static void watch(struct serve_policy *sp, int i, const char *file)
{
    char *copy = xstrdup(file);
    const char *dir = dirname(copy);
    uv_fs_event_init(sp->app->loop, &sp->event[i]);
    sp->event[i].data = sp;
    int rc = uv_fs_event_start(&sp->event[i], on_event, dir, 0);
    uv_unref((uv_handle_t *)&sp->event[i]);
    if (rc != 0) {
        log_info("cannot watch %s for changes (%s); checking it every %d ms", dir, uv_strerror(rc),
                 POLL_MS);
        uv_fs_poll_init(sp->app->loop, &sp->poll[i]);
        sp->poll[i].data = sp;
        uv_fs_poll_start(&sp->poll[i], on_poll, file, POLL_MS);
        uv_unref((uv_handle_t *)&sp->poll[i]);
    }
    free(copy);
}

void policy_watch_start(struct serve_policy *sp, struct app *app)
{
    sp->app = app;
    /* No file: the built-in policy, which never changes. A project file
     * alone narrows it, so it is watched as well. */
    if (!sp->file && !sp->project)
        return;
    sp->loaded_mode = policy_mode(sp->policy);
    uv_timer_init(app->loop, &sp->settle);
    sp->settle.data = sp;
    uv_unref((uv_handle_t *)&sp->settle);
    uv_signal_init(app->loop, &sp->apply);
    sp->apply.data = sp;
    uv_signal_start(&sp->apply, on_apply, SIGHUP);
    uv_unref((uv_handle_t *)&sp->apply);
    if (sp->file)
        watch(sp, 0, sp->file);
    if (sp->project)
        watch(sp, 1, sp->project);
}
