/* The audit log as glovebox serve runs it. */
#define LOG_MODULE "audit"
#include "cli/serve_audit.h"

#include "cli/options.h"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "policy/audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void serve_audit_init(struct serve_audit *sa)
{
    *sa = (struct serve_audit){.retention_days = 90};
}

int serve_audit_option(struct serve_audit *sa, const char *a, const char *v)
{
    if (strcmp(a, "--no-audit") == 0) {
        sa->off = true;
        return 1;
    }
    if (strcmp(a, "--audit-db") == 0 && v) {
        if (!v[0]) {
            fputs("glovebox serve: --audit-db needs a file path\n", stderr);
            return -1;
        }
        free(sa->path);
        sa->path = xstrdup(v);
        return 2;
    }
    if (strcmp(a, "--audit-retention-days") == 0 && v) {
        long n;
        if (!options_parse_int(v, 0, 36500, &n)) {
            fprintf(stderr,
                    "glovebox serve: --audit-retention-days expects days (0..36500, 0 keeps "
                    "everything), got \"%s\"\n",
                    v);
            return -1;
        }
        sa->retention_days = (int)n;
        return 2;
    }
    return 0;
}

void serve_audit_start(struct serve_audit *sa, struct app *app)
{
    if (sa->off) {
        log_info("no audit log (--no-audit)");
        return;
    }
    char *path = sa->path ? xstrdup(sa->path) : xasprintf("%s/audit.db", app->data_dir);
    struct audit_options o = {.path = path, .retention_days = sa->retention_days};
    sa->audit = audit_create(&o);
    log_info("audit log: %s", path);
    free(path);
    app->audit = sa->audit;
    app->call_observer = audit_observer(sa->audit);
}

void serve_audit_finish(struct serve_audit *sa, struct app *app)
{
    app->call_observer = NULL;
    app->audit = NULL;
    audit_destroy(sa->audit);
    sa->audit = NULL;
    free(sa->path);
    sa->path = NULL;
}
