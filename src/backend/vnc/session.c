/* A vnc session's life on the loop: connect (post the open to the GLib
 * thread, wait for "initialized" or "gone" through uv_async, bounded by the
 * connect's time limit), describe, and the end (post the shutdown, wait for
 * "gone", then end the session). */
#define LOG_MODULE "vnc"
#include "backend/vnc/internal.h"

#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <string.h>
#include <sys/mman.h>

static const struct backend_impl vnc_impl;

struct vnc *vnc_of(struct session *s)
{
    return s->backend;
}

static void answer_connect(struct vnc *v, struct session *s, enum error_code code, const char *err)
{
    vnc_connected_fn fn = v->connected;
    v->connected = NULL;
    if (fn)
        fn(v->connected_ud, s, code, err);
}

static bool is_gone(struct vnc *v)
{
    pthread_mutex_lock(&v->mu);
    bool gone = v->gone;
    pthread_mutex_unlock(&v->mu);
    return gone;
}

static void ended(void *ud);

/* The connection is gone and the session stopping: a recording under way
 * is written (its last frame may still be on the worker pool, reading v),
 * then a connect still waiting hears why, and the session ends. */
void vnc_finish_end(struct vnc *v)
{
    if (v->finishing)
        return;
    if (v->finding) {
        /* The window's search reads v on the pool: its end calls again. */
        v->end_waits = true;
        return;
    }
    v->finishing = true;
    frame_recording_end(&v->rec, ended, v);
}

static void ended(void *ud)
{
    struct vnc *v = ud;
    struct session *s = v->session;
    if (v->connected) {
        pthread_mutex_lock(&v->mu);
        enum error_code code = v->close_reason ? v->close_code : ERROR_DEVICE_UNAVAILABLE;
        char *msg = xstrdup(v->close_reason ? v->close_reason
                            : s->end_reason ? s->end_reason
                                            : "stopped");
        pthread_mutex_unlock(&v->mu);
        answer_connect(v, NULL, code, msg);
        free(msg);
    }
    session_ended(s, s->end_reason ? s->end_reason : "stopped");
}

static void vnc_stop(struct session *s)
{
    struct vnc *v = vnc_of(s);
    v->stopping = true;
    atomic_store(&v->find_stop, true);
    uv_timer_stop(&v->timer);
    if (v->connected) {
        /* A connect still waiting hears this, unless the connection had
         * failed (or timed out) first. */
        pthread_mutex_lock(&v->mu);
        if (!v->close_reason) {
            v->close_reason = xasprintf("session %s was stopped before it was ready: %s", s->id,
                                        s->end_reason ? s->end_reason : "stopped");
            v->close_code = ERROR_SESSION_EXPIRED;
        }
        pthread_mutex_unlock(&v->mu);
    }
    if (is_gone(v)) {
        vnc_finish_end(v);
        return;
    }
    /* "gone" follows; on_wake ends the session then. */
    vnc_glib_post(vnc_conn_shutdown, v);
}

/* The viewport lies on the screen the server announced; else the connect
 * fails naming it, and the session ends. */
static bool viewport_fits(struct vnc *v)
{
    pthread_mutex_lock(&v->mu);
    int w = v->width, h = v->height;
    pthread_mutex_unlock(&v->mu);
    if (!v->vp_w || (v->vp_x + v->vp_w <= w && v->vp_y + v->vp_h <= h))
        return true;
    char *msg = xasprintf("argument \"viewport\": %d,%d %dx%d does not lie within the server's "
                          "%dx%d screen",
                          v->vp_x, v->vp_y, v->vp_w, v->vp_h, w, h);
    pthread_mutex_lock(&v->mu);
    if (!v->close_reason) {
        v->close_reason = xstrdup(msg);
        v->close_code = ERROR_INVALID_ARGUMENT;
    }
    pthread_mutex_unlock(&v->mu);
    session_stop(v->session, msg);
    free(msg);
    return false;
}

static void on_wake(uv_async_t *a)
{
    struct vnc *v = a->data;
    struct session *s = v->session;
    /* The GLib thread waits for its connection's process. */
    vnc_proc_spawn_pending(v);
    if (!s || s->state == SESSION_ENDED)
        return;
    pthread_mutex_lock(&v->mu);
    bool gone = v->gone, ready = v->initialized;
    uint64_t serial = v->serial;
    char *why = xstrdup(v->close_reason ? v->close_reason : "the VNC server closed the connection");
    pthread_mutex_unlock(&v->mu);
    if (serial != v->told_serial) {
        v->told_serial = serial;
        backend_changes_notify(v->change_watchers);
    }
    if (gone && v->stopping) {
        vnc_finish_end(v);
    } else if (gone) {
        if (v->connected)
            log_info("%s: cannot connect to %s:%d: %s", s->id, v->host, v->port, why);
        else
            log_warn("%s: %s; ending the session", s->id, why);
        session_stop(s, why);
    } else if (ready && v->connected && !v->stopping && !v->finding) {
        uv_timer_stop(&v->timer);
        if (v->vp_window && !v->vp_w)
            vnc_window_find(v);
        else
            vnc_go_live(v);
    }
    free(why);
}

void vnc_go_live(struct vnc *v)
{
    struct session *s = v->session;
    if (!viewport_fits(v))
        return;
    session_set_live(s);
    log_info("%s: connected to %s:%d (%dx%d, security %s)", s->id, v->host, v->port, v->width,
             v->height, v->security ? v->security : "?");
    answer_connect(v, s, 0, NULL);
}

static bool watch_changes(struct session *s, struct backend_change_watch *w, bool on)
{
    struct vnc *v = vnc_of(s);
    if (!v)
        return !on;
    if (!on) {
        backend_changes_remove(&v->change_watchers, w);
        pthread_mutex_lock(&v->mu);
        v->serial_watched = v->change_watchers != NULL;
        pthread_mutex_unlock(&v->mu);
        return true;
    }
    pthread_mutex_lock(&v->mu);
    /* Set first: an update from now on wakes the loop. */
    v->serial_watched = true;
    uint64_t serial = v->serial;
    pthread_mutex_unlock(&v->mu);
    /* Those listening already hear of the updates not yet told; for a new
     * listener they are from before it. */
    if (serial != v->told_serial) {
        v->told_serial = serial;
        backend_changes_notify(v->change_watchers);
    }
    if (!backend_changes_has(v->change_watchers, w))
        backend_changes_add(&v->change_watchers, w);
    return true;
}

static void connect_timed_out(uv_timer_t *t)
{
    struct vnc *v = t->data;
    if (!v->connected || v->stopping)
        return;
    char *msg = xasprintf("the VNC server %s:%d did not complete the handshake within %d ms",
                          v->host, v->port, v->timeout_ms);
    pthread_mutex_lock(&v->mu);
    if (!v->close_reason) {
        v->close_reason = xstrdup(msg);
        v->close_code = ERROR_TIMEOUT;
    }
    pthread_mutex_unlock(&v->mu);
    session_stop(v->session, msg);
    free(msg);
}

gboolean vnc_free_later(gpointer ud)
{
    struct vnc *v = ud;
    pthread_mutex_destroy(&v->mu);
    pthread_cond_destroy(&v->changed);
    pthread_cond_destroy(&v->spawned);
    if (v->pixels)
        munmap(v->pixels, v->pixels_len);
    free(v->host);
    free(v->username);
    free(v->ca_file);
    free(v->vp_window);
    free(v->paste_keys);
    free(v->server_name);
    free(v->cut_text);
    free(v->cursor_argb);
    free(v->close_reason);
    free(v);
    return G_SOURCE_REMOVE;
}

static void handle_closed(uv_handle_t *h)
{
    struct vnc *v = h->data;
    if (--v->handles_open == 0)
        /* Idles posted for v before now run first: then nothing refers to it. */
        vnc_glib_post(vnc_free_later, v);
}

static void vnc_destroy(struct session *s)
{
    struct vnc *v = vnc_of(s);
    if (!v)
        return;
    s->backend = NULL;
    v->session = NULL;
    vnc_view_detach(v);
    /* At exit the server has closed every handle already. */
    if (uv_is_closing((uv_handle_t *)&v->wake)) {
        vnc_glib_post(vnc_free_later, v);
        return;
    }
    uv_close((uv_handle_t *)&v->wake, handle_closed);
    uv_close((uv_handle_t *)&v->timer, handle_closed);
}

static json_t *vnc_describe(struct session *s)
{
    struct vnc *v = vnc_of(s);
    pthread_mutex_lock(&v->mu);
    json_t *o = json_pack("{s:s, s:i, s:i, s:i}", "host", v->host, "port", v->port, "width",
                          v->vp_w ? v->vp_w : v->width, "height", v->vp_w ? v->vp_h : v->height);
    if (v->vp_w) {
        json_t *vp = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}", "x", v->vp_x, "y", v->vp_y,
                               "width", v->vp_w, "height", v->vp_h, "screen_width", v->width,
                               "screen_height", v->height);
        if (v->vp_window)
            json_object_set_new(vp, "window", json_string(v->vp_window));
        json_object_set_new(o, "viewport", vp);
    }
    if (v->server_name)
        json_object_set_new(o, "server_name", json_string(v->server_name));
    if (v->security)
        json_object_set_new(o, "security_type", json_string(v->security));
    if (v->iphone_mirroring)
        json_object_set_new(o, "iphone_mirroring", json_true());
    if (v->paste_keys)
        json_object_set_new(o, "paste_keys", json_string(v->paste_keys));
    if (v->reconnecting)
        json_object_set_new(o, "reconnecting", json_true());
    pthread_mutex_unlock(&v->mu);
    return o;
}

void vnc_connect(struct app *app, const struct vnc_options *o, vnc_connected_fn done, void *ud)
{
    char *err = NULL;
    if (!vnc_glib_start(&err)) {
        done(ud, NULL, ERROR_DEVICE_UNAVAILABLE, err);
        free(err);
        return;
    }
    struct vnc *v = xcalloc(1, sizeof *v);
    v->app = app;
    v->host = xstrdup(o->host);
    v->port = o->port;
    v->password = o->password ? xstrdup(o->password) : NULL;
    v->username = o->username ? xstrdup(o->username) : NULL;
    v->timeout_ms = o->timeout_ms;
    v->reconnect_ms = o->reconnect_s * 1000;
    v->tls_verify = o->tls_verify;
    v->ca_file = o->ca_file ? xstrdup(o->ca_file) : NULL;
    v->iphone_mirroring = o->iphone_mirroring;
    v->paste_keys = o->paste_keys ? xstrdup(o->paste_keys) : NULL;
    v->vp_x = o->vp_x;
    v->vp_y = o->vp_y;
    v->vp_w = o->vp_w;
    v->vp_h = o->vp_h;
    v->vp_window = o->vp_window ? xstrdup(o->vp_window) : NULL;
    v->connected = done;
    v->connected_ud = ud;
    pthread_mutex_init(&v->mu, NULL);
    pthread_cond_init(&v->changed, NULL);
    pthread_cond_init(&v->spawned, NULL);
    uv_async_init(app->loop, &v->wake, on_wake);
    v->wake.data = v;
    uv_timer_init(app->loop, &v->timer);
    v->timer.data = v;
    v->handles_open = 2;
    v->session = session_add(app->sessions, &vnc_impl, o->name, o->client);
    v->session->backend = v;
    uv_timer_start(&v->timer, connect_timed_out, (uint64_t)o->timeout_ms, 0);
    vnc_glib_post(vnc_conn_open, v);
}

static const struct backend_impl vnc_impl = {
    .kind = "vnc",
    .stop = vnc_stop,
    .destroy = vnc_destroy,
    .describe = vnc_describe,
    .screenshot = vnc_screenshot_op,
    .capture = vnc_screenshot_op,
    .click = vnc_click_op,
    .drag = vnc_drag_op,
    .scroll = vnc_scroll_op,
    .type_text = vnc_type_text_op,
    .press_key = vnc_press_key_op,
    .record_start = vnc_record_start_op,
    .record_stop = vnc_record_stop_op,
    .pointer = vnc_pointer_op,
    .key_hold = vnc_key_hold_op,
    .watch_changes = watch_changes,
    .read_text = vnc_read_text_op,
    .wait_for = vnc_wait_for_op,
    .find = vnc_find_op,
    .press_button = vnc_press_button_op,
    .app_launch = vnc_app_launch_op,
    .clipboard_get = vnc_clipboard_get_op,
    .clipboard_set = vnc_clipboard_set_op,
    .view_frames = vnc_view_frames,
    .view_event = vnc_view_event,
    .input_control = vnc_input_control,
};
