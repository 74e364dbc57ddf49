/* window_list and window_manage on desktops: the requests of windows.c made
 * on the desktop's input thread (input_queue.h), over its input connection,
 * in turn with the input actions that share it. */
#include "backend/desktop/input_queue.h"
#include "backend/desktop/internal.h"
#include "backend/desktop/windows.h"
#include "backend/desktop/xinput.h"
#include "backend/mirror.h"
#include "core/app.h"
#include "core/args.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct window_job {
    struct input_job job; /* first */
    struct backend_call *bc;
    struct desktop *d;
    bool manage;
    json_t *data;
    char *text;
    char *err;
    enum error_code code; /* of err */
};

static json_t *find_id(json_t *list, uint32_t win)
{
    char id[24];
    snprintf(id, sizeof id, "0x%x", (unsigned)win);
    size_t i;
    json_t *w;
    json_array_foreach(list, i, w)
    {
        if (strcmp(json_string_value(json_object_get(w, "id")), id) == 0)
            return json_incref(w);
    }
    return NULL;
}

/* A program may answer a new size with another (its smallest, a whole
 * number of cells) and a window manager may place it elsewhere: the answer
 * waits until the geometry has stayed the same for SETTLED_MS, at most
 * SETTLE_MAX_MS, so it reports what the window has, not what was asked. */
#define SETTLE_POLL_MS 20
#define SETTLED_MS     200
#define SETTLE_MAX_MS  1500

static void settle(struct xinput *xi, uint32_t win)
{
    int last[4] = {0}, now[4];
    int still_ms = 0;
    bool have = false;
    for (int waited = 0; waited < SETTLE_MAX_MS && still_ms < SETTLED_MS;
         waited += SETTLE_POLL_MS) {
        uv_sleep(SETTLE_POLL_MS);
        if (!windows_geometry(xi, win, &now[0], &now[1], &now[2], &now[3]))
            return; /* gone: the listing says so */
        if (have && memcmp(now, last, sizeof now) == 0) {
            still_ms += SETTLE_POLL_MS;
        } else {
            still_ms = 0;
            memcpy(last, now, sizeof now);
            have = true;
        }
    }
}

/* "the window kept 1366x768 (asked for 1270x768)" when the window's bounds
 * are not what was asked (want: x, y, width, height; <0 or 0: not asked),
 * else NULL. */
static char *differs_from(const json_t *bounds, const int want[4])
{
    if (!bounds)
        return xstrdup("the window is gone");
    static const char *const keys[] = {"x", "y", "width", "height"};
    int got[4];
    bool differ = false;
    for (int i = 0; i < 4; i++) {
        got[i] = (int)json_integer_value(json_object_get(bounds, keys[i]));
        bool asked = i < 2 ? want[i] >= 0 : want[i] > 0;
        differ = differ || (asked && got[i] != want[i]);
    }
    if (!differ)
        return NULL;
    char asked[96] = "";
    size_t len = 0;
    for (int i = 0; i < 4; i++)
        if (i < 2 ? want[i] >= 0 : want[i] > 0)
            len += (size_t)snprintf(asked + len, sizeof asked - len, "%s%s %d", len ? ", " : "",
                                    keys[i], want[i]);
    return xasprintf("the window took %d,%d %dx%d, not what was asked (%s): its program or the "
                     "window manager chose otherwise",
                     got[0], got[1], got[2], got[3], asked);
}

static void manage(struct window_job *j, struct xinput *xi)
{
    const json_t *a = j->bc->args;
    const char *action = args_string(a, "action", "focus");
    uint32_t win;
    if (!windows_find(xi, args_string(a, "window", ""), &win, &j->err)) {
        j->code = ERROR_NOT_FOUND;
        return;
    }
    if (strcmp(action, "close") == 0) {
        if (windows_close(xi, win, args_bool(a, "force", false), &j->err)) {
            char id[24];
            snprintf(id, sizeof id, "0x%x", (unsigned)win);
            j->data = json_pack("{s:s, s:s, s:{s:s}}", "session", j->bc->session->id, "action",
                                action, "window", "id", id);
            j->text = xasprintf("asked window 0x%x to close", (unsigned)win);
        }
        return;
    }
    bool focus = strcmp(action, "focus") == 0;
    int want[4] = {(int)args_int(a, "x", -1), (int)args_int(a, "y", -1),
                   (int)args_int(a, "width", 0), (int)args_int(a, "height", 0)};
    if (focus)
        windows_focus(xi, win);
    else
        windows_configure(xi, win, want[0], want[1], want[2], want[3]);
    if (!xinput_sync(xi, &j->err)) {
        j->code = ERROR_DEVICE_UNAVAILABLE;
        return;
    }
    if (!focus)
        settle(xi, win);
    json_t *list = windows_list(xi);
    json_t *now = find_id(list, win);
    json_decref(list);
    j->data = json_pack("{s:s, s:s, s:o}", "session", j->bc->session->id, "action", action,
                        "window", now ? now : json_null());
    char *differs = focus ? NULL : differs_from(json_object_get(now, "bounds"), want);
    if (differs)
        json_object_set_new(j->data, "note", json_string(differs));
    j->text = xasprintf("%s window 0x%x%s%s", focus ? "focused" : "moved", (unsigned)win,
                        differs ? "; " : "", differs ? differs : "");
    free(differs);
}

static void run(struct input_job *job)
{
    struct window_job *j = (struct window_job *)job;
    struct xinput *xi = j->d->input;
    if (!xinput_lock(xi, &j->err)) {
        j->code = ERROR_DEVICE_UNAVAILABLE;
        return;
    }
    if (j->manage) {
        manage(j, xi);
    } else {
        json_t *list = windows_list(xi);
        static const char *const lead[] = {"id", "title", NULL};
        struct strbuf sb;
        strbuf_init(&sb);
        strbuf_printf(&sb, "%zu window%s, top-most first", json_array_size(list),
                      json_array_size(list) == 1 ? "" : "s");
        size_t i;
        json_t *w;
        json_array_foreach(list, i, w)
        {
            strbuf_putc(&sb, '\n');
            mirror_item(&sb, w, lead, NULL);
        }
        j->text = strbuf_steal(&sb);
        j->data = json_pack("{s:s, s:i, s:o}", "session", j->bc->session->id, "count",
                            (int)json_array_size(list), "windows", list);
    }
    xinput_unlock(xi);
}

static void done(struct input_job *job, bool dropped)
{
    struct window_job *j = (struct window_job *)job;
    if (dropped)
        backend_call_fail_code(j->bc, ERROR_SESSION_EXPIRED, "the session ended");
    else if (j->err)
        backend_call_fail_code(j->bc, j->code, "%s", j->err);
    else
        backend_call_done(j->bc, j->data, "%s", j->text);
    free(j->text);
    free(j->err);
    free(j);
}

static void start(struct backend_call *bc, bool is_manage)
{
    struct window_job *j = xcalloc(1, sizeof *j);
    j->bc = bc;
    j->d = desktop_of(bc->session);
    j->manage = is_manage;
    desktop_input_ensure(j->d);
    j->job.run = run;
    j->job.done = done;
    input_queue_push(j->d->input_queue, &j->job);
}

void desktop_window_list_op(struct backend_call *bc)
{
    start(bc, false);
}

void desktop_window_manage_op(struct backend_call *bc)
{
    start(bc, true);
}
