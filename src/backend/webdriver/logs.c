/* browser_logs on webdriver sessions: the browser log chromedriver keeps
 * (its legacy endpoint POST /session/{id}/se/log, type "browser"), which
 * holds console calls, uncaught page errors and the requests that failed
 * (source "network"), and empties as it is read. glovebox's own Chromium
 * is started with goog:loggingPrefs {browser: ALL} so nothing is
 * filtered; other endpoints that lack the endpoint say not_supported. */
#include "backend/webdriver/internal.h"

#include "core/args.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <string.h>
#include <time.h>

/* Entries returned at most; the rest are counted. */
#define MAX_ENTRIES 500
/* A message longer than this is cut. */
#define MAX_MESSAGE 2000

static int rank(const char *level)
{
    if (!strcmp(level, "SEVERE") || !strcmp(level, "error"))
        return 3;
    if (!strcmp(level, "WARNING") || !strcmp(level, "warning"))
        return 2;
    if (!strcmp(level, "INFO") || !strcmp(level, "info"))
        return 1;
    return 0;
}

static const char *level_name(const char *level)
{
    static const char *const names[] = {"debug", "info", "warning", "error"};
    return names[rank(level)];
}

static void got_log(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    struct backend_call *bc = ud;
    if (err) {
        if (code == ERROR_NOT_SUPPORTED || code == ERROR_NOT_FOUND)
            backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                                   "cannot read the browser's logs: this endpoint keeps none "
                                   "(chromedriver does; %s)",
                                   err);
        else
            backend_call_fail_code(bc, code, "cannot read the browser's logs: %s", err);
        return;
    }
    int least = rank(args_string(bc->args, "level", "all"));
    if (!strcmp(args_string(bc->args, "level", "all"), "all"))
        least = 0;
    json_t *entries = json_array();
    struct strbuf sb;
    strbuf_init(&sb);
    size_t i, skipped = 0, failed = 0;
    json_t *e;
    json_array_foreach(value, i, e)
    {
        const char *level = json_string_value(json_object_get(e, "level"));
        const char *source = json_string_value(json_object_get(e, "source"));
        const char *message = json_string_value(json_object_get(e, "message"));
        if (!level || !message || rank(level) < least)
            continue;
        if (source && !strcmp(source, "network"))
            failed++;
        if (json_array_size(entries) >= MAX_ENTRIES) {
            skipped++;
            continue;
        }
        char when[32] = "";
        json_int_t ms = json_integer_value(json_object_get(e, "timestamp"));
        time_t secs = (time_t)(ms / 1000);
        struct tm tm;
        if (ms > 0 && gmtime_r(&secs, &tm))
            snprintf(when + strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm), sizeof when - 19,
                     ".%03dZ", (int)(ms % 1000));
        json_array_append_new(
            entries,
            json_pack("{s:s, s:s, s:s, s:s%}", "time", when, "level", level_name(level), "source",
                      source ? source : "", "message", message,
                      strlen(message) < MAX_MESSAGE ? strlen(message) : (size_t)MAX_MESSAGE));
        strbuf_printf(&sb, "[%s] %s: %.*s\n", level_name(level), source ? source : "",
                      (int)(strlen(message) < 300 ? strlen(message) : 300), message);
    }
    size_t n = json_array_size(entries);
    json_t *data =
        json_pack("{s:s, s:I, s:I, s:o}", "session", bc->session->id, "count", (json_int_t)n,
                  "failed_requests", (json_int_t)failed, "entries", entries);
    if (skipped)
        json_object_set_new(data, "skipped", json_integer((json_int_t)skipped));
    backend_call_done(bc, data, "%zu entr%s since the last call%s\n%s", n, n == 1 ? "y" : "ies",
                      skipped ? " (more were cut)" : "", sb.data ? sb.data : "");
    strbuf_finish(&sb);
}

void wd_browser_logs_op(struct backend_call *bc)
{
    wd_command(wd_of(bc->session), "POST", "/se/log", json_pack("{s:s}", "type", "browser"),
               got_log, bc);
}
