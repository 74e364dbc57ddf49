/* glovebox serve's audit log options (--audit-db, --no-audit,
 * --audit-retention-days) and starting and stopping the log. */
#pragma once
#include <stdbool.h>

struct app;
struct audit;

struct serve_audit {
    char *path; /* --audit-db, or NULL for <data dir>/audit.db */
    bool off;
    int retention_days;
    struct audit *audit;
};

#define SERVE_AUDIT_USAGE                                                                          \
    "  --audit-db PATH      the audit log of every tool call (default DATA_DIR/audit.db)\n"        \
    "  --audit-retention-days N   delete audit rows older than N days (default 90;\n"              \
    "                       0 keeps them forever)\n"                                               \
    "  --no-audit           keep no audit log\n"

void serve_audit_init(struct serve_audit *sa);
/* 0: not an audit option; 1: a flag; 2: an option that took v; -1: bad
 * value (already reported on stderr). */
int serve_audit_option(struct serve_audit *sa, const char *a, const char *v);
/* Start the log and install it in app (unless --no-audit). Never fails: a
 * database that cannot be written shows in status and is retried. */
void serve_audit_start(struct serve_audit *sa, struct app *app);
/* Flush what is queued (2 s at most) and stop. */
void serve_audit_finish(struct serve_audit *sa, struct app *app);
