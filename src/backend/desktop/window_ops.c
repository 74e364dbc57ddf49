/* window_list and window_manage on desktops: the requests of windows.c made
 * on the desktop's input thread (input_queue.h), over its input connection,
 * in turn with the input actions that share it. */
#include "backend/desktop/input_queue.h"
#include "backend/desktop/internal.h"
#include "backend/desktop/windows.h"
#include "backend/desktop/xinput.h"
#include "core/app.h"
#include "core/args.h"
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

static void manage(struct window_job *j, struct xinput *xi)
{
    const json_t *a = j->bc->args;
    const char *action = args_string(a, "action", "focus");
    uint32_t win;
    if (!windows_find(xi, args_string(a, "window", ""), &win, &j->err))
        return;
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
    if (strcmp(action, "focus") == 0)
        windows_focus(xi, win);
    else
        windows_configure(xi, win, (int)args_int(a, "x", -1), (int)args_int(a, "y", -1),
                          (int)args_int(a, "width", 0), (int)args_int(a, "height", 0));
    if (!xinput_sync(xi, &j->err))
        return;
    json_t *list = windows_list(xi);
    json_t *now = find_id(list, win);
    json_decref(list);
    j->data = json_pack("{s:s, s:s, s:o}", "session", j->bc->session->id, "action", action,
                        "window", now ? now : json_null());
    j->text = xasprintf("%s window 0x%x", strcmp(action, "focus") == 0 ? "focused" : "moved",
                        (unsigned)win);
}

static void run(struct input_job *job)
{
    struct window_job *j = (struct window_job *)job;
    struct xinput *xi = j->d->input;
    if (!xinput_lock(xi, &j->err))
        return;
    if (j->manage) {
        manage(j, xi);
    } else {
        json_t *list = windows_list(xi);
        j->text = xasprintf("%zu windows", json_array_size(list));
        j->data = json_pack("{s:s, s:i, s:o}", "session", j->bc->session->id, "count",
                            (int)json_array_size(list), "windows", list);
    }
    xinput_unlock(xi);
}

static void done(struct input_job *job, bool dropped)
{
    struct window_job *j = (struct window_job *)job;
    if (dropped)
        backend_call_fail(j->bc, "the session ended");
    else if (j->err)
        backend_call_fail(j->bc, "%s", j->err);
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
