/* A desktop session's life: Xvfb and its D-Bus session bus started (or an
 * existing display attached to), programs launched inside, everything
 * glovebox started ended and reaped on stop — and nothing it did not start
 * ever touched. */
#define LOG_MODULE "desktop"
#include "backend/desktop/desktop.h"

#include "backend/backend.h"
#include "backend/desktop/exit_wait.h"
#include "backend/desktop/input_queue.h"
#include "backend/desktop/internal.h"
#include "backend/desktop/leftovers.h"
#include "backend/desktop/output.h"
#include "backend/desktop/perceive/perceive.h"
#include "backend/desktop/typed_check.h"
#include "backend/desktop/xgrab.h"
#include "backend/desktop/xinput.h"
#include "core/app.h"
#include "core/args.h"
#include "core/child_env.h"
#include "core/children.h"
#include "core/locale_env.h"
#include "core/log.h"
#include "core/paths.h"
#include "core/pidns.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xcb/xcb.h>

/* After SIGTERM, the processes get this long before SIGKILL. */
#define KILL_AFTER_MS 2000

static const struct backend_impl desktop_impl;

bool desktop_is(const struct session *s)
{
    return s && s->impl == &desktop_impl;
}

struct desktop *desktop_of(struct session *s)
{
    return s->backend;
}

pid_t desktop_spawn(const struct desktop *d, const char *const *argv, const char *const *env_extra,
                    int fd_keep, char **err)
{
    if (d->stopping && !d->ns && pidns_mode() != PIDNS_NONE) {
        /* Its namespace is gone: nothing may start uncontained instead. */
        *err = xstrdup("the session has ended");
        return -1;
    }
    int output = d->output ? desktop_output_fd(d->output) : -1;
    int report[2];
    if (pipe2(report, O_CLOEXEC) < 0) {
        *err = xasprintf("pipe: %s", strerror(errno));
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = pidns_fork(d->ns);
    if (pid < 0) {
        *err = xasprintf("fork: %s",
                         errno == ESRCH ? "the session's PID namespace is gone" : strerror(errno));
        close(report[0]);
        close(report[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        /* If glovebox dies without stopping the session, so does this (in
         * a namespace its init's death sees to it; getppid() is 0 there). */
        if (!d->ns) {
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (getppid() != parent)
                _exit(127);
        }
        child_env_scrub(environ); /* glovebox's own secrets stay here */
        for (const char *const *e = env_extra; e && *e; e += 2)
            setenv(e[0], e[1], 1);
        /* A UTF-8 locale unless one is chosen (core/locale_env.h says why). */
        if (!locale_env_chosen(environ))
            setenv(LOCALE_ENV_DEFAULT_NAME, LOCALE_ENV_DEFAULT_VALUE, 1);
        if (fd_keep >= 0)
            fcntl(fd_keep, F_SETFD, 0);
        int devnull = open("/dev/null", O_RDWR);
        int out = output >= 0 ? output : devnull;
        if (devnull >= 0)
            dup2(devnull, STDIN_FILENO);
        if (out >= 0) {
            if (fd_keep != STDOUT_FILENO)
                dup2(out, STDOUT_FILENO);
            dup2(out, STDERR_FILENO);
        }
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execvp(argv[0], (char *const *)argv);
        int e = errno;
        (void)!write(report[1], &e, sizeof e);
        _exit(127);
    }
    close(report[1]);
    int child_errno = 0;
    ssize_t n = read(report[0], &child_errno, sizeof child_errno);
    close(report[0]);
    if (n == (ssize_t)sizeof child_errno) {
        *err = xasprintf("cannot run %s: %s", argv[0], strerror(child_errno));
        waitpid(pid, NULL, 0);
        return -1;
    }
    return pid;
}

static void child_exited(pid_t pid, int status, void *ud);

/* Programs that have exited give their places back, so the bound is on
 * programs running now, not on all a desktop ever started. */
static void forget_exited(struct desktop *d)
{
    int kept = 0;
    for (int i = 0; i < d->n_children; i++)
        if (d->children[i].alive)
            d->children[kept++] = d->children[i];
    d->n_children = kept;
}

void desktop_watch(struct desktop *d, pid_t pid, enum desktop_child_kind kind)
{
    if (d->stopping) {
        /* Started after the stop was sent (a launch racing it): end it too. */
        kill(-pid, SIGTERM);
        kill(-pid, SIGCONT);
    }
    forget_exited(d);
    if (d->n_children == DESKTOP_MAX_CHILDREN + 1) {
        /* Not tracked: end it rather than leave it unowned (desktop_launch
         * refuses before this can happen to a program a client asked for). */
        kill(-pid, SIGKILL);
        return;
    }
    d->children[d->n_children++] =
        (struct desktop_child){pid, kind, true, d->output ? desktop_output_sync(d->output) : 0};
    children_watch(pid, child_exited, d);
    leftovers_record(d);
}

static int live_children(const struct desktop *d)
{
    int n = 0;
    for (int i = 0; i < d->n_children; i++)
        n += d->children[i].alive;
    return n;
}

/* The private runtime folder and what programs left in it. */
static void remove_runtime_dir(struct desktop *d)
{
    if (!d->runtime_dir)
        return;
    paths_remove_tree(d->runtime_dir);
    free(d->runtime_dir);
    d->runtime_dir = NULL;
}

static void free_desktop(struct desktop *d)
{
    remove_runtime_dir(d);
    /* Its thread asks perception. */
    typed_check_destroy(d);
    perceive_destroy(d->perceive);
    /* The thread first: it may be using the connection. */
    input_queue_destroy(d->input_queue);
    xinput_destroy(d->input);
    xgrab_destroy(d->grab);
    free(d->bus);
    free(d->wm_note);
    free(d);
}

static void timer_closed(uv_handle_t *h)
{
    struct desktop *d = h->data;
    d->kill_timer_open = false;
    if (d->destroyed)
        free_desktop(d);
}

/* Everything glovebox started is gone: the session has ended. */
static void end_session(struct desktop *d)
{
    desktop_exit_waits_end(d);
    leftovers_forget(d);
    if (!d->owned)
        xinput_restore(d->input);
    /* Its thread ends once the calls in flight are answered; it then frees
     * itself. */
    input_queue_close(d->input_queue);
    d->input_queue = NULL;
    typed_check_close(d);
    desktop_watch_close(d);
    desktop_damage_close(d);
    desktop_record_end(d);
    remove_runtime_dir(d);
    desktop_output_close(d->output);
    d->output = NULL;
    if (d->kill_timer_open && !uv_is_closing((uv_handle_t *)&d->kill_timer)) {
        uv_timer_stop(&d->kill_timer);
        uv_close((uv_handle_t *)&d->kill_timer, timer_closed);
    }
    /* What the programs left behind (double forks, daemons) goes too. */
    pidns_destroy(d->ns);
    d->ns = NULL;
    session_ended(d->session, d->session->end_reason ? d->session->end_reason : "stopped");
}

static void finish_if_done(struct desktop *d)
{
    if (d->stopping && !live_children(d))
        end_session(d);
}

static void child_exited(pid_t pid, int status, void *ud)
{
    struct desktop *d = ud;
    for (int i = 0; i < d->n_children; i++) {
        if (d->children[i].pid != pid)
            continue;
        d->children[i].alive = false;
        if (d->children[i].kind == CHILD_APP && pid == d->wm_pid) {
            d->wm_pid = 0;
        } else if (d->children[i].kind == CHILD_APP) {
            desktop_exit_note(d, pid, status);
            json_t *detail = json_pack("{s:i}", "pid", (int)pid);
            json_object_set_new(detail, "exit_status",
                                WIFEXITED(status) ? json_integer(WEXITSTATUS(status))
                                                  : json_null());
            if (WIFSIGNALED(status)) {
                const char *name = sigabbrev_np(WTERMSIG(status));
                json_object_set_new(detail, "signal", json_sprintf("SIG%s", name ? name : "?"));
            }
            session_event(d->session, "program_exited", detail);
        }
        if (d->children[i].kind == CHILD_XVFB && !d->stopping) {
            log_warn("%s: Xvfb exited (status %d); ending the session", d->session->id, status);
            session_stop(d->session, "its X server (Xvfb) exited");
        }
    }
    finish_if_done(d);
}

static void signal_all(struct desktop *d, int sig)
{
    /* Programs first, then the bus, then the X server they draw on. */
    for (int kind = CHILD_APP; kind >= CHILD_XVFB; kind--)
        for (int i = 0; i < d->n_children; i++)
            if (d->children[i].alive && (int)d->children[i].kind == kind)
                kill(-d->children[i].pid, sig);
}

static void kill_now(uv_timer_t *t)
{
    struct desktop *d = t->data;
    log_info("%s: processes still running %d ms after SIGTERM; killing them", d->session->id,
             KILL_AFTER_MS);
    signal_all(d, SIGKILL);
}

static void desktop_stop(struct session *s)
{
    struct desktop *d = desktop_of(s);
    d->stopping = true;
    desktop_start_stopping(d);
    /* Before the X server is told to go, so waiting calls hear why. */
    desktop_clipboard_close(d);
    desktop_watch_close(d);
    desktop_damage_close(d);
    if (!live_children(d)) {
        end_session(d);
        return;
    }
    signal_all(d, SIGTERM);
    signal_all(d, SIGCONT);
    uv_timer_start(&d->kill_timer, kill_now, KILL_AFTER_MS, 0);
}

static void desktop_destroy(struct session *s)
{
    struct desktop *d = desktop_of(s);
    if (!d)
        return;
    desktop_start_abandon(d);
    desktop_record_end(d);
    desktop_clipboard_close(d);
    desktop_watch_close(d);
    desktop_damage_close(d);
    desktop_output_close(d->output);
    d->output = NULL;
    for (int i = 0; i < d->n_children; i++) {
        if (d->children[i].alive) {
            /* Only at exit after a failed shutdown: never leave them running. */
            children_forget(d->children[i].pid);
            kill(-d->children[i].pid, SIGKILL);
        }
    }
    pidns_destroy(d->ns);
    d->ns = NULL;
    s->backend = NULL;
    /* The timer's close callback may still be to come; it frees then. */
    if (d->kill_timer_open)
        d->destroyed = true;
    else
        free_desktop(d);
}

static json_t *desktop_describe(struct session *s)
{
    struct desktop *d = desktop_of(s);
    json_t *o = json_pack("{s:s, s:i, s:i, s:b}", "display", d->display, "width", d->width,
                          "height", d->height, "private", d->owned);
    if (d->output)
        json_object_set_new(o, "log", json_string(desktop_output_path(d->output)));
    for (int i = 0; i < d->n_children; i++)
        if (d->children[i].alive && d->children[i].kind != CHILD_APP)
            json_object_set_new(o, d->children[i].kind == CHILD_XVFB ? "xvfb_pid" : "bus_pid",
                                json_integer(d->children[i].pid));
    json_t *pids = json_array();
    for (int i = 0; i < d->n_children; i++)
        if (d->children[i].alive && d->children[i].kind == CHILD_APP &&
            d->children[i].pid != d->wm_pid)
            json_array_append_new(pids, json_integer(d->children[i].pid));
    json_object_set_new(o, "app_pids", pids);
    /* The window manager is the desktop's, not one of the programs. */
    if (d->wm_pid)
        json_object_set_new(o, "window_manager",
                            json_pack("{s:s, s:i}", "program", "openbox", "pid", (int)d->wm_pid));
    else if (d->wm_note)
        json_object_set_new(o, "window_manager_note", json_string(d->wm_note));
    return o;
}

int desktop_launch(struct session *s, const char *const *argv, char **err)
{
    struct desktop *d = desktop_of(s);
    const char *bus = d->bus                               ? d->bus
                      : getenv("DBUS_SESSION_BUS_ADDRESS") ? getenv("DBUS_SESSION_BUS_ADDRESS")
                                                           : "";
    const char *const env[] = {"DISPLAY", d->display, "DBUS_SESSION_BUS_ADDRESS", bus,
                               "NO_AT_BRIDGE", "0", "GTK_A11Y", "atspi",
                               /* A private desktop's own runtime folder (last:
                                * absent when attached). */
                               d->runtime_dir ? "XDG_RUNTIME_DIR" : NULL, d->runtime_dir, NULL};
    forget_exited(d);
    /* The window manager is the desktop's own, not one of the programs. */
    if (d->n_children == DESKTOP_MAX_CHILDREN + (d->wm_pid ? 1 : 0)) {
        *err = xasprintf("this desktop already runs %d programs (with its X server and bus); "
                         "end some before starting more",
                         DESKTOP_MAX_CHILDREN);
        return -1;
    }
    pid_t pid = desktop_spawn(d, argv, env, -1, err);
    if (pid < 0)
        return -1;
    desktop_watch(d, pid, CHILD_APP);
    d->last_app_pid = pid;
    log_info("%s: started %s (pid %d)", s->id, argv[0], (int)pid);
    return pid;
}

struct desktop *desktop_create(struct app *app, const char *name,
                               const struct session_client *client)
{
    struct desktop *d = xcalloc(1, sizeof *d);
    d->app = app;
    uv_timer_init(app->loop, &d->kill_timer);
    d->kill_timer.data = d;
    d->kill_timer_open = true;
    d->session = session_add(app->sessions, &desktop_impl, name, client);
    d->session->backend = d;
    char *err = NULL;
    d->output = desktop_output_open(app->loop, app->data_dir, d->session->id, &err);
    if (!d->output) {
        log_warn("%s: the programs' output goes nowhere: %s", d->session->id, err);
        free(err);
    }
    return d;
}

/* scope is the browsers' (a part of a page); a desktop narrows by app and
 * window instead. */
static bool scope_refused(struct backend_call *bc, const char *what)
{
    if (!json_object_get(bc->args, "scope"))
        return false;
    backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                           "cannot %s: \"scope\" is for browser sessions; on a desktop narrow "
                           "with \"app\" or \"window\"",
                           what);
    return true;
}

static void snapshot_op(struct backend_call *bc)
{
    if (!scope_refused(bc, "take a snapshot"))
        perceive_snapshot(desktop_of(bc->session)->perceive, bc);
}

static void find_op(struct backend_call *bc)
{
    if (!scope_refused(bc, "find elements"))
        perceive_find(desktop_of(bc->session)->perceive, bc);
}

static void read_text_op(struct backend_call *bc)
{
    perceive_read_text(desktop_of(bc->session)->perceive, bc);
}

static void wait_for_op(struct backend_call *bc)
{
    if (args_bool(bc->args, "exit", false)) {
        desktop_wait_exit_op(bc);
        return;
    }
    perceive_wait_for(desktop_of(bc->session)->perceive, bc);
}

static void element_at_op(struct backend_call *bc)
{
    perceive_element_at(desktop_of(bc->session)->perceive, bc);
}

static void inspect_op(struct backend_call *bc)
{
    perceive_inspect(desktop_of(bc->session)->perceive, bc);
}

static void set_value_op(struct backend_call *bc)
{
    perceive_set_value(desktop_of(bc->session)->perceive, bc);
}

static const struct backend_impl desktop_impl = {
    .kind = "desktop",
    .stop = desktop_stop,
    .destroy = desktop_destroy,
    .describe = desktop_describe,
    .snapshot = snapshot_op,
    .find = find_op,
    .element_at = element_at_op,
    .inspect = inspect_op,
    .set_value = set_value_op,
    .read_text = read_text_op,
    .wait_for = wait_for_op,
    .screenshot = desktop_screenshot_op,
    .click = desktop_click_op,
    .drag = desktop_drag_op,
    .scroll = desktop_scroll_op,
    .scroll_to = desktop_scroll_to_op,
    .hover = desktop_hover_op,
    .pointer = desktop_pointer_op,
    .key_hold = desktop_key_hold_op,
    .window_list = desktop_window_list_op,
    .window_manage = desktop_fenced_window_manage_op,
    .type_text = desktop_type_op,
    .press_key = desktop_press_key_op,
    .capture = desktop_screenshot_op,
    .watch_changes = desktop_watch_changes,
    .reports_changes = true,
    .view_frames = desktop_view_frames,
    .view_event = desktop_view_event,
    .input_control = desktop_input_control,
    .clipboard_get = desktop_clipboard_get_op,
    .clipboard_set = desktop_clipboard_set_op,
    .record_start = desktop_record_start_op,
    .record_stop = desktop_record_stop_op,
};
