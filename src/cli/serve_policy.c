/* Which policy glovebox serve runs under, and telling the person about it. */
#define LOG_MODULE "policy"
#include "cli/serve_policy.h"

#include "cli/policy_watch.h"

#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int serve_policy_option(struct serve_policy *sp, const char *a, const char *v)
{
    if (strcmp(a, "--allow-all") == 0) {
        sp->allow_all = true;
        return 1;
    }
    if (strcmp(a, "--policy") == 0 && v) {
        free(sp->path);
        sp->path = xstrdup(v);
        return 2;
    }
    if (strcmp(a, "--mode") == 0 && v) {
        if (!policy_mode_parse(v, &sp->mode)) {
            fprintf(stderr,
                    "glovebox serve: --mode expects passive, assist or autopilot, got \"%s\"\n", v);
            return -1;
        }
        sp->have_mode = true;
        return 2;
    }
    return 0;
}

/* Without a policy of the person's own the server is read-only; a project
 * file only narrows that, so say where the person's own file goes. */
static void no_user_policy(const char *project)
{
    char *user = policy_user_path();
    const char *where = user ? user : "$XDG_CONFIG_HOME/glovebox/policy.json";
    if (project)
        fprintf(stderr,
                "glovebox: no policy of your own, so this server is read-only; the project's "
                "policy %s can only narrow that, never allow more. To allow tools that change "
                "things, write your own policy to %s (glovebox policy init) or pass --policy "
                "PATH (--allow-all for sandboxes).\n",
                project, where);
    else
        fprintf(stderr,
                "glovebox: no policy file, so this server is read-only: tools that change "
                "anything are denied. Write your own policy to %s, e.g. {\"allow\": "
                "[\"terminal_*\"]} (glovebox policy init writes a starter; see "
                "docs/policy.md), or pass --policy PATH (--allow-all for sandboxes).\n",
                where);
    free(user);
}

void serve_policy_warn(const struct policy *p, FILE *to, const char *prefix)
{
    json_t *warnings = policy_warnings(p);
    size_t i;
    json_t *w;
    json_array_foreach(warnings, i, w) fprintf(to, "%s%s\n", prefix, json_string_value(w));
    json_decref(warnings);
}

static void warn_unknown_tools(const struct policy *p)
{
    serve_policy_warn(p, stderr, "glovebox: warning: ");
}

bool serve_policy_start(struct serve_policy *sp, struct app *app)
{
    const char *env = getenv("GLOVEBOX_ALLOW_ALL");
    if (env && strcmp(env, "1") == 0)
        sp->allow_all = true;
    if (sp->allow_all) {
        sp->policy = policy_create_allow_all();
        fputs("glovebox: WARNING: --allow-all: every tool is allowed without a policy; use this "
              "only for development and sandboxes\n",
              stderr);
    } else {
        char *user = NULL, *project = NULL;
        if (sp->path)
            user = xstrdup(sp->path);
        else
            policy_find_files(&user, &project);
        if (user || project) {
            char *err = NULL;
            sp->policy = policy_load_layers(user, project, &err);
            if (!sp->policy) {
                fprintf(stderr, "glovebox serve: cannot use the policy: %s\n", err);
                free(err);
                free(user);
                free(project);
                return false;
            }
            warn_unknown_tools(sp->policy);
            if (user && project)
                log_info("policy: %s, narrowed by the project's %s", user, project);
            else if (user)
                log_info("policy: %s", user);
            else
                no_user_policy(project);
            sp->file = user;
            sp->project = project;
        } else {
            sp->policy = policy_create_default();
            no_user_policy(NULL);
        }
    }
    if (sp->have_mode)
        policy_set_mode(sp->policy, sp->mode);
    sp->gate = policy_gate(sp->policy);
    app->policy = sp->policy;
    pause_gate_init(&sp->pause, app, &sp->gate);
    app->gate = &sp->pause.gate;
    if (!sp->allow_all)
        policy_watch_start(sp, app);
    return true;
}

void serve_policy_finish(struct serve_policy *sp)
{
    policy_destroy(sp->policy);
    sp->policy = NULL;
    free(sp->path);
    sp->path = NULL;
    free(sp->file);
    sp->file = NULL;
    free(sp->project);
    sp->project = NULL;
}
