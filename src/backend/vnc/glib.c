/* The module's GLib thread: it runs GLib's default main context, where
 * every connection's socket to its process (conn.c), its reconnect timers
 * and the idles other threads post live. Nothing else in glovebox runs the
 * default context (AT-SPI uses contexts of its own). */
#include "backend/vnc/internal.h"

#include "core/xmalloc.h"

static GThread *thread;
static GMainLoop *gloop;

static gpointer run(gpointer data)
{
    (void)data;
    g_main_loop_run(gloop);
    return NULL;
}

bool vnc_glib_start(char **err)
{
    if (thread)
        return true;
    gloop = g_main_loop_new(NULL, FALSE);
    GError *gerr = NULL;
    thread = g_thread_try_new("glovebox-vnc", run, NULL, &gerr);
    if (!thread) {
        *err = xasprintf("cannot start the VNC thread: %s", gerr ? gerr->message : "unknown");
        g_clear_error(&gerr);
        g_main_loop_unref(gloop);
        gloop = NULL;
        return false;
    }
    return true;
}

void vnc_glib_post(gboolean (*fn)(gpointer), void *data)
{
    /* Always queued (g_main_context_invoke could run fn here and now):
     * idles of one priority run in the order they were attached. */
    GSource *src = g_idle_source_new();
    g_source_set_priority(src, G_PRIORITY_DEFAULT);
    g_source_set_callback(src, fn, data, NULL);
    g_source_attach(src, NULL);
    g_source_unref(src);
}

static gboolean quit(gpointer data)
{
    (void)data;
    g_main_loop_quit(gloop);
    return G_SOURCE_REMOVE;
}

void vnc_glib_finish(void)
{
    if (!thread)
        return;
    /* Every session has ended: their last idles run before this one. */
    vnc_glib_post(quit, NULL);
    g_thread_join(thread);
    thread = NULL;
    g_main_loop_unref(gloop);
    gloop = NULL;
}
