/* glovebox audit: read the audit log serve writes (policy/audit.h), oldest
 * first, as lines for people or JSON lines for programs; --follow keeps
 * printing rows as they are written. The database is opened read-only. */
#include "cli/cli.h"
#include "core/paths.h"
#include "core/xmalloc.h"
#include "policy/policy.h"
#include "store/audit_db.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define FOLLOW_POLL_MS 250

struct audit_query {
    char *db;
    const char *tool; /* a policy_glob_match pattern, or NULL */
    int64_t since_ms; /* rows that arrived at or after this; 0: all */
    bool json, follow;
};

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void usage(FILE *to)
{
    fputs("Usage: glovebox audit [options]\n"
          "\n"
          "Prints the audit log of tool calls that glovebox serve keeps, oldest first.\n"
          "\n"
          "Options:\n"
          "  --since TIME       only calls from TIME on: 2026-11-22T10:00[:SS][Z] (UTC) or\n"
          "                     a time ago such as 30s, 10m, 2h, 3d\n"
          "  --tool PATTERN     only these tools; * matches any run of characters\n"
          "  --json             one JSON object per line\n"
          "  --follow           keep printing new calls until interrupted\n"
          "  --db PATH          the database (default DATA_DIR/audit.db)\n"
          "  --data-dir DIR     as for serve (default $XDG_DATA_HOME/glovebox)\n"
          "  -h, --help         show this help\n"
          "\n"
          "Exit status: 0 on success (also when --follow is interrupted), 1 when the log\n"
          "cannot be read or does not exist yet, 2 on a usage error.\n",
          to);
}

/* "10m" and friends, or an ISO 8601 date and time in UTC. */
static bool parse_since(const char *s, int64_t *out)
{
    char unit = 0, extra = 0;
    long long n;
    if (sscanf(s, "%lld%c%c", &n, &unit, &extra) == 2 && n >= 0 && n < 100000000LL) {
        int64_t mult = unit == 's'   ? 1000
                       : unit == 'm' ? 60000
                       : unit == 'h' ? 3600000
                       : unit == 'd' ? 86400000
                                     : 0;
        if (mult) {
            *out = audit_now_ms() - n * mult;
            return true;
        }
    }
    struct tm tm = {0};
    int used = 0;
    int len = (int)strlen(s);
    if (len > 0 && (s[len - 1] == 'Z' || s[len - 1] == 'z'))
        len--;
    /* Date alone, with minutes, or with seconds; T or a space between. */
    if (sscanf(s, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &used) != 3)
        return false;
    if (used < len && (s[used] == 'T' || s[used] == ' ')) {
        int more = 0;
        if (sscanf(s + used + 1, "%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &more) != 2)
            return false;
        used += 1 + more;
        if (used < len && s[used] == ':') {
            if (sscanf(s + used + 1, "%2d%n", &tm.tm_sec, &more) != 1)
                return false;
            used += 1 + more;
        }
    }
    if (used != len || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
        tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60 || tm.tm_year < 1970)
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    *out = (int64_t)timegm(&tm) * 1000;
    return true;
}

static int parse_args(struct audit_query *q, int argc, char **argv)
{
    char *data_dir = NULL;
    int rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            rc = -1;
        } else if (strcmp(a, "--json") == 0) {
            q->json = true;
        } else if (strcmp(a, "--follow") == 0 || strcmp(a, "-f") == 0) {
            q->follow = true;
        } else if (strcmp(a, "--since") == 0 && v) {
            if (!parse_since(v, &q->since_ms)) {
                fprintf(stderr,
                        "glovebox audit: --since expects a time such as 2026-11-22T10:00 (UTC) "
                        "or 10m, 2h, 3d; got \"%s\"\n",
                        v);
                rc = EXIT_USAGE;
            }
            i++;
        } else if (strcmp(a, "--tool") == 0 && v && v[0]) {
            q->tool = v;
            i++;
        } else if ((strcmp(a, "--db") == 0 || strcmp(a, "--data-dir") == 0) && v && v[0]) {
            char **dst = a[2] == 'd' && a[3] == 'b' ? &q->db : &data_dir;
            free(*dst);
            *dst = xstrdup(v);
            i++;
        } else if (strcmp(a, "--since") == 0 || strcmp(a, "--tool") == 0 ||
                   strcmp(a, "--db") == 0 || strcmp(a, "--data-dir") == 0) {
            fprintf(stderr, "glovebox audit: %s needs a value\n", a);
            rc = EXIT_USAGE;
        } else {
            fprintf(stderr, "glovebox audit: unknown option \"%s\" (try --help)\n", a);
            rc = EXIT_USAGE;
        }
    }
    if (rc == 0 && !q->db) {
        char *dir = data_dir ? xstrdup(data_dir) : paths_default_data_dir();
        q->db = xasprintf("%s/audit.db", dir);
        free(dir);
    }
    free(data_dir);
    return rc;
}

enum { COL_ID, COL_TIME_MS, COL_TIME, COL_DURATION, COL_TEXT0 };

static const char *col(sqlite3_stmt *st, enum audit_col c)
{
    return (const char *)sqlite3_column_text(st, COL_TEXT0 + (int)c);
}

/* Writes s for a terminal: what the log holds came from agents, and an
 * escape sequence in it must not reach the reader's terminal. */
static void put_clean(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        if (*p == '\n') {
            fputs("\\n", stdout);
        } else if (*p < 0x20 || *p == 0x7f) {
            printf("\\x%02x", *p);
        } else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            /* C1 controls (U+0080..U+009F: CSI, OSC, …) in UTF-8 */
            printf("\\u%04x", p[1]);
            p++;
        } else {
            putchar(*p);
        }
    }
}

static void print_line(sqlite3_stmt *st)
{
    const char *v;
    put_clean((const char *)sqlite3_column_text(st, COL_TIME));
    fputs("  ", stdout);
    put_clean(col(st, AUDIT_TOOL));
    fputs("  ", stdout);
    put_clean(col(st, AUDIT_DECISION) ? col(st, AUDIT_DECISION) : "-");
    if ((v = col(st, AUDIT_CONFIRMATION))) {
        fputs(" (confirmation: ", stdout);
        put_clean(v);
        putchar(')');
    }
    fputs("  ", stdout);
    put_clean(col(st, AUDIT_OUTCOME));
    printf("  %lld ms", (long long)sqlite3_column_int64(st, COL_DURATION));
    if ((v = col(st, AUDIT_SESSION))) {
        fputs("  session=", stdout);
        put_clean(v);
    }
    fputs("  client=", stdout);
    put_clean(col(st, AUDIT_CLIENT_NAME) ? col(st, AUDIT_CLIENT_NAME) : "?");
    if ((v = col(st, AUDIT_CLIENT_VERSION))) {
        putchar('/');
        put_clean(v);
    }
    fputs(" via ", stdout);
    put_clean(col(st, AUDIT_TRANSPORT));
    if ((v = col(st, AUDIT_REMOTE))) {
        fputs(" from ", stdout);
        put_clean(v);
    }
    /* A REST call's correlation id (docs/rest.md) ties the row to the
     * orchestrator's job. */
    json_t *notes = (v = col(st, AUDIT_NOTES)) ? json_loads(v, 0, NULL) : NULL;
    const char *cid = json_string_value(json_object_get(notes, "correlation_id"));
    if (cid) {
        fputs("  correlation_id=", stdout);
        put_clean(cid);
    }
    json_decref(notes);
    fputs("  ", stdout);
    put_clean(col(st, AUDIT_ARGUMENTS));
    if ((v = col(st, AUDIT_ERROR))) {
        fputs("  error: ", stdout);
        put_clean(v);
    }
    putchar('\n');
}

/* A column that holds a JSON object or array, parsed; anything else (a
 * confirmation note that was a plain string) stays a string. */
static json_t *json_col(const char *text)
{
    if (!text)
        return json_null();
    json_t *v = text[0] == '{' || text[0] == '[' ? json_loads(text, 0, NULL) : NULL;
    return v ? v : json_string(text);
}

static json_t *str_col(const char *text)
{
    json_t *v = text ? json_string(text) : NULL;
    return v ? v : json_null();
}

static void print_json(sqlite3_stmt *st)
{
    json_t *client = json_object();
    json_object_set_new(client, "name", str_col(col(st, AUDIT_CLIENT_NAME)));
    json_object_set_new(client, "version", str_col(col(st, AUDIT_CLIENT_VERSION)));
    json_object_set_new(client, "transport", str_col(col(st, AUDIT_TRANSPORT)));
    json_object_set_new(client, "remote", str_col(col(st, AUDIT_REMOTE)));
    json_object_set_new(client, "mcp_session", str_col(col(st, AUDIT_MCP_SESSION)));
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer(sqlite3_column_int64(st, COL_ID)));
    json_object_set_new(o, "time", str_col((const char *)sqlite3_column_text(st, COL_TIME)));
    json_object_set_new(o, "time_ms", json_integer(sqlite3_column_int64(st, COL_TIME_MS)));
    json_object_set_new(o, "tool", str_col(col(st, AUDIT_TOOL)));
    json_object_set_new(o, "session", str_col(col(st, AUDIT_SESSION)));
    json_object_set_new(o, "client", client);
    json_object_set_new(o, "arguments", json_col(col(st, AUDIT_ARGUMENTS)));
    json_object_set_new(o, "decision", str_col(col(st, AUDIT_DECISION)));
    json_object_set_new(o, "confirmation", json_col(col(st, AUDIT_CONFIRMATION)));
    json_object_set_new(o, "outcome", str_col(col(st, AUDIT_OUTCOME)));
    json_object_set_new(o, "error", str_col(col(st, AUDIT_ERROR)));
    json_object_set_new(o, "duration_ms", json_integer(sqlite3_column_int64(st, COL_DURATION)));
    json_object_set_new(o, "notes", json_col(col(st, AUDIT_NOTES)));
    char *s = json_dumps(o, JSON_COMPACT);
    puts(s);
    free(s);
    json_decref(o);
}

static char *select_sql(void)
{
    char cols[512] = "";
    for (int i = 0; i < AUDIT_TEXT_COUNT; i++) {
        strcat(cols, ", ");
        strcat(cols, audit_db_columns[i]);
    }
    return xasprintf("SELECT id, time_ms, time, duration_ms%s FROM calls "
                     "WHERE id > ? AND time_ms >= ? ORDER BY id",
                     cols);
}

/* Prints rows after *last_id; 0 on success, else SQLite's result code. */
static int print_new(sqlite3_stmt *st, const struct audit_query *q, int64_t *last_id)
{
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, *last_id);
    sqlite3_bind_int64(st, 2, q->since_ms);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        *last_id = sqlite3_column_int64(st, COL_ID);
        const char *tool = col(st, AUDIT_TOOL);
        if (q->tool && !(tool && policy_glob_match(q->tool, tool)))
            continue;
        if (q->json)
            print_json(st);
        else
            print_line(st);
    }
    return rc == SQLITE_DONE ? 0 : rc;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static int run(const struct audit_query *q)
{
    struct stat sb;
    if (stat(q->db, &sb) != 0) {
        fprintf(stderr, "glovebox audit: no audit log yet at %s\n", q->db);
        return EXIT_FAILURE_RUNTIME;
    }
    char *err = NULL;
    sqlite3 *db = audit_db_open_read(q->db, &err);
    if (!db) {
        fprintf(stderr, "glovebox audit: %s\n", err);
        free(err);
        return EXIT_FAILURE_RUNTIME;
    }
    char *sql = select_sql();
    sqlite3_stmt *st = NULL;
    int rc = EXIT_OK;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        if (strstr(sqlite3_errmsg(db), "no such table"))
            fprintf(stderr, "glovebox audit: no audit log yet at %s\n", q->db);
        else
            fprintf(stderr, "glovebox audit: %s: %s\n", q->db, sqlite3_errmsg(db));
        rc = EXIT_FAILURE_RUNTIME;
    }
    free(sql);
    if (q->follow) {
        struct sigaction sa = {.sa_handler = on_stop};
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
    }
    int64_t last_id = 0;
    while (rc == EXIT_OK) {
        int src = print_new(st, q, &last_id);
        /* Another process holding the lock is a reason to wait, not to stop. */
        bool busy = src == SQLITE_BUSY || src == SQLITE_LOCKED;
        if (src && !(busy && q->follow)) {
            fprintf(stderr, "glovebox audit: %s: %s\n", q->db, sqlite3_errstr(src));
            rc = EXIT_FAILURE_RUNTIME;
        }
        if (fflush(stdout) != 0 || ferror(stdout)) {
            /* A reader that went away (| head) is not an error. */
            if (errno != EPIPE) {
                fprintf(stderr, "glovebox audit: cannot write: %s\n", strerror(errno));
                rc = EXIT_FAILURE_RUNTIME;
            }
            break;
        }
        if (!q->follow || stop_requested)
            break;
        sleep_ms(FOLLOW_POLL_MS);
        if (stop_requested)
            break;
    }
    sqlite3_finalize(st);
    audit_db_close(db);
    return rc;
}

int cli_audit(int argc, char **argv)
{
    struct audit_query q = {0};
    int rc = parse_args(&q, argc, argv);
    if (rc == 0)
        rc = run(&q);
    free(q.db);
    return rc < 0 ? EXIT_OK : rc;
}
