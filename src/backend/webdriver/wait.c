/* wait_for on webdriver sessions: text or regex on a line of the page's
 * text, a ref's element showing, or either gone. The page does the
 * watching: an asynchronous script answers as soon as what it watches
 * changes (looked at every 50 ms in the page), or after at most LOOK_MS,
 * and glovebox decides on the answer and asks again until the condition
 * holds or the time runs out. No timer and no poll traffic while the page
 * is still; a navigation ends the script, and the next look starts on the
 * new page. */
#include "backend/webdriver/internal.h"

#include "core/args.h"
#include "core/clock.h"
#include "core/pattern.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uv.h>

/* The longest one script waits in the page (the endpoint's script time
 * limit is 30 s by default). */
#define LOOK_MS 5000

/* arguments: ref (or null), the state last seen (or null), how long to
 * wait for it to change; the callback. The state is the page's text, or
 * "1"/"0" for a ref. */
static const char WATCH_SCRIPT[] =
    "var ref=arguments[0],last=arguments[1],wait=arguments[2],done=arguments[3];"
    "function state(){if(ref){var m=window.__glovebox_refs,e=m&&m.get(ref);"
    "return e&&e.isConnected&&e.getClientRects().length>0?'1':'0';}"
    "return document.body?document.body.innerText:'';}"
    "var s=state();if(s!==last||wait<=0){done(s);return;}"
    "var t0=Date.now(),iv=setInterval(function(){var n=state();"
    "if(n!==last||Date.now()-t0>=wait){clearInterval(iv);done(n);}},50);";

struct wait {
    struct backend_call *bc; /* NULL once answered (cancelled) */
    char *ref, *text;
    struct pattern *re;
    bool gone;
    uint64_t start_ms;
    int timeout_ms;
    char *last; /* the state last seen */
};

static void wait_free(struct wait *wt)
{
    free(wt->ref);
    free(wt->text);
    free(wt->last);
    pattern_destroy(wt->re);
    free(wt);
}

static void answer(struct wait *wt, bool matched, const char *line, const char *reason)
{
    struct backend_call *bc = wt->bc;
    wt->bc = NULL;
    bc->cancel = NULL;
    backend_call_done_wait(bc, matched, clock_now_ms() - wt->start_ms, "page", line, reason);
}

static void look(struct wait *wt);

static void looked(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    struct wait *wt = ud;
    if (!wt->bc) {
        /* Cancelled while the page watched: answered already. */
        wait_free(wt);
        return;
    }
    if (err && (code == ERROR_DEVICE_UNAVAILABLE || code == ERROR_SESSION_EXPIRED ||
                wt->bc->session->state != SESSION_LIVE)) {
        struct backend_call *bc = wt->bc;
        bc->cancel = NULL;
        backend_call_fail_code(bc, code ? code : ERROR_SESSION_EXPIRED, "cannot wait: %s", err);
        wait_free(wt);
        return;
    }
    bool matched = false;
    char *line = NULL;
    if (!err && json_is_string(value)) {
        /* Otherwise the page went (a navigation ended the script): look
         * again, on the page that came. */
        free(wt->last);
        wt->last = xstrdup(json_string_value(value));
        if (wt->ref)
            matched = (strcmp(wt->last, "1") == 0) != wt->gone;
        else {
            line = pattern_first_line(wt->last, wt->text, wt->re, 0, NULL);
            matched = (line != NULL) != wt->gone;
        }
    }
    if (matched) {
        answer(wt, true, wt->gone ? NULL : line, NULL);
        free(line);
        wait_free(wt);
        return;
    }
    free(line);
    if (clock_now_ms() - wt->start_ms >= (uint64_t)wt->timeout_ms) {
        answer(wt, false, NULL, "timed out");
        wait_free(wt);
        return;
    }
    look(wt);
}

/* A ref in a cross-origin frame: looked at in there (frames.c). A frame
 * that left the page took the element with it: gone for good. */
static void looked_in_frame(struct wd *w, void *ud, json_t *value, int dx, int dy,
                            enum error_code code, const char *err)
{
    (void)dx, (void)dy;
    struct wait *wt = ud;
    if (err && code == ERROR_NOT_FOUND && wt->bc && !wt->gone) {
        /* It cannot come back: waiting on would only ask again. */
        struct backend_call *bc = wt->bc;
        bc->cancel = NULL;
        backend_call_fail_code(bc, ERROR_NOT_FOUND,
                               "cannot wait: ref %s is gone: its frame left the page (take a new "
                               "snapshot or find)",
                               wt->ref);
        wait_free(wt);
        return;
    }
    if (err && code == ERROR_NOT_FOUND) {
        json_t *absent = json_string("0");
        looked(w, ud, absent, 0, NULL);
        json_decref(absent);
        return;
    }
    looked(w, ud, value, code, err);
}

static void look(struct wait *wt)
{
    uint64_t spent = clock_now_ms() - wt->start_ms;
    long left = wt->timeout_ms > (long)spent ? wt->timeout_ms - (long)spent : 0;
    long wait = left < LOOK_MS ? left : LOOK_MS;
    struct wd *w = wd_of(wt->bc->session);
    json_t *args = json_pack("[s?, s?, I]", wt->ref, wt->last, (json_int_t)wait);
    json_t *body = json_pack("{s:s, s:o}", "script", WATCH_SCRIPT, "args", args);
    /* The HTTP request outlives the page's wait by the endpoint's own
     * latency; the session's time limit is the floor. */
    int frame = wt->ref ? wd_ref_frame(wt->ref) : 0;
    if (frame > 0)
        wd_frame_command(w, frame, "POST", "/execute/async", body, wait + w->timeout_ms,
                         looked_in_frame, wt);
    else
        wd_command_within(w, "POST", "/execute/async", body, wait + w->timeout_ms, looked, wt);
}

static void cancel(struct backend_call *bc)
{
    struct wait *wt = bc->backend_data;
    /* The script in the page ends on its own within LOOK_MS; its answer
     * then frees wt. */
    answer(wt, false, NULL, "cancelled");
}

void wd_wait_for_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"stable_ms", "exit", "lang", NULL};
    for (const char *const *f = unsupported; *f; f++)
        if (json_object_get(bc->args, *f)) {
            backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                                   "cannot wait: argument \"%s\" is not supported on webdriver "
                                   "sessions",
                                   *f);
            return;
        }
    const char *text = args_string(bc->args, "text", NULL);
    const char *regex = args_string(bc->args, "regex", NULL);
    const char *ref = args_string(bc->args, "ref", NULL);
    if ((text != NULL) + (regex != NULL) + (ref != NULL) != 1) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "cannot wait: give exactly one of \"text\", \"regex\" or \"ref\" "
                               "on webdriver sessions");
        return;
    }
    struct pattern *re;
    if (!backend_wait_regex(bc, regex, &re))
        return;
    if (wd_of(bc->session)->native) {
        wd_native_wait(bc, text, re, ref, args_bool(bc->args, "gone", false),
                       (int)args_int(bc->args, "timeout_ms", 10000));
        return;
    }
    struct wait *wt = xcalloc(1, sizeof *wt);
    wt->bc = bc;
    wt->text = text ? xstrdup(text) : NULL;
    wt->ref = ref ? xstrdup(ref) : NULL;
    wt->re = re;
    wt->gone = args_bool(bc->args, "gone", false);
    wt->timeout_ms = (int)args_int(bc->args, "timeout_ms", 10000);
    wt->start_ms = clock_now_ms();
    bc->cancel = cancel;
    bc->backend_data = wt;
    look(wt);
}
