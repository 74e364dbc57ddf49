#include "core/children.h"

#define LOG_MODULE "children"
#include "core/log.h"
#include "core/xmalloc.h"

#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

struct watch {
    pid_t pid;
    void (*exited)(pid_t pid, int status, void *ud);
    void *ud;
    struct watch *next;
};

static uv_signal_t sigchld;
static bool installed;
static struct watch *watches;

static void reap(uv_signal_t *h, int signum)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0)
            return;
        struct watch **pp = &watches;
        while (*pp && (*pp)->pid != pid)
            pp = &(*pp)->next;
        if (!*pp) {
            log_debug("reaped orphan %d", (int)pid);
            continue;
        }
        struct watch *w = *pp;
        *pp = w->next;
        w->exited(pid, status, w->ud);
        free(w);
    }
}

void children_init(uv_loop_t *loop)
{
    if (installed)
        return;
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        log_warn("cannot become a child subreaper: orphaned processes go to init");
    uv_signal_init(loop, &sigchld);
    uv_signal_start(&sigchld, reap, SIGCHLD);
    /* The watcher alone must not keep the loop running. */
    uv_unref((uv_handle_t *)&sigchld);
    installed = true;
}

void children_finish(void)
{
    if (!installed)
        return;
    reap(&sigchld, SIGCHLD);
    if (!uv_is_closing((uv_handle_t *)&sigchld))
        uv_close((uv_handle_t *)&sigchld, NULL);
    while (watches) {
        struct watch *next = watches->next;
        free(watches);
        watches = next;
    }
    installed = false;
}

void children_watch(pid_t pid, void (*exited)(pid_t pid, int status, void *ud), void *ud)
{
    struct watch *w = xcalloc(1, sizeof *w);
    w->pid = pid;
    w->exited = exited;
    w->ud = ud;
    w->next = watches;
    watches = w;
    /* It may have exited before we were watching. */
    if (installed)
        reap(&sigchld, SIGCHLD);
}

void children_forget(pid_t pid)
{
    for (struct watch **pp = &watches; *pp; pp = &(*pp)->next) {
        if ((*pp)->pid == pid) {
            struct watch *w = *pp;
            *pp = w->next;
            free(w);
            return;
        }
    }
}

int children_count(void)
{
    int n = 0;
    for (struct watch *w = watches; w; w = w->next)
        n++;
    return n;
}
