/* Whether typed text went into a password field, found out after typing
 * (typed_check.h). */
#define LOG_MODULE "desktop"
#include "backend/desktop/typed_check.h"

#include "backend/desktop/input_queue.h"
#include "backend/desktop/internal.h"
#include "backend/desktop/perceive/perceive.h"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>

/* A record waiting for the focus to be asked about. */
struct open_record {
    struct backend_hold *h;
    struct open_record *next;
};

/* A call that waits its turn. */
struct deferred {
    struct backend_call *bc;
    backend_op op;
    enum typed_fence kind;
    struct deferred *next;
};

/* A call moving the focus outside the input thread, until it is answered. */
struct elsewhere {
    struct backend_call *bc;
    void (*finish)(struct backend_call *bc, struct backend_result *r); /* the caller's */
    struct elsewhere *next;
};

struct check_job {
    struct input_job job; /* first: the job is the check */
    struct typed_check *tc;
    struct perceive *p;
    int settle_ms;
    bool secret;                 /* the answer (check thread) */
    struct open_record *records; /* what it answers for */
};

struct typed_check {
    struct desktop *d;
    struct input_queue *q;       /* the thread checks run on; from the first */
    int typing;                  /* type_text jobs queued and not done */
    struct open_record *waiting; /* typed, the next check answers for them */
    int waiting_settle_ms;       /* the longest settle they asked for */
    struct check_job *running;   /* the check under way, or NULL */
    struct elsewhere *elsewhere; /* FENCE_MOVE_ELSEWHERE calls in flight */
    struct deferred *deferred, **deferred_tail;
    bool draining, drain_again;
    bool closed;     /* the session ended */
    bool destroying; /* typed_check_destroy: the session is going away */
};

static struct typed_check *of(struct desktop *d)
{
    if (!d->typed) {
        struct typed_check *tc = xcalloc(1, sizeof *tc);
        tc->d = d;
        tc->deferred_tail = &tc->deferred;
        d->typed = tc;
    }
    return d->typed;
}

static json_t *verdict_notes(bool secret)
{
    return secret ? json_pack("{s:b}", "redacted", 1) : NULL;
}

static void release_all(struct open_record *r, bool secret)
{
    while (r) {
        struct open_record *next = r->next;
        backend_hold_release(r->h, verdict_notes(secret));
        free(r);
        r = next;
    }
}

/* What must be done before a call of this kind may start. */
static bool must_wait(const struct typed_check *tc, enum typed_fence kind)
{
    if (tc->closed)
        return false;
    if (kind == FENCE_TYPE)
        return tc->elsewhere != NULL;
    return tc->typing > 0 || tc->waiting || tc->running;
}

static void elsewhere_finish(struct backend_call *bc, struct backend_result *r);
static void drain(struct typed_check *tc);

static void start(struct typed_check *tc, struct backend_call *bc, backend_op op,
                  enum typed_fence kind)
{
    bc->cancel = NULL;
    bc->backend_data = NULL;
    if (kind == FENCE_MOVE_ELSEWHERE && !tc->closed) {
        struct elsewhere *e = xcalloc(1, sizeof *e);
        e->bc = bc;
        e->finish = bc->finish;
        e->next = tc->elsewhere;
        tc->elsewhere = e;
        bc->finish = elsewhere_finish;
    }
    op(bc);
}

static void elsewhere_finish(struct backend_call *bc, struct backend_result *r)
{
    struct typed_check *tc = desktop_of(bc->session)->typed;
    struct elsewhere **pp = &tc->elsewhere;
    while ((*pp)->bc != bc)
        pp = &(*pp)->next;
    struct elsewhere *e = *pp;
    *pp = e->next;
    void (*finish)(struct backend_call *, struct backend_result *) = e->finish;
    free(e);
    finish(bc, r); /* frees bc */
    drain(tc);
}

/* Starts the calls that waited, in order, while their turn has come. */
static void drain(struct typed_check *tc)
{
    /* A call started here may answer at once and drain again. */
    if (tc->draining) {
        tc->drain_again = true;
        return;
    }
    tc->draining = true;
    do {
        tc->drain_again = false;
        while (tc->deferred && !must_wait(tc, tc->deferred->kind)) {
            struct deferred *w = tc->deferred;
            tc->deferred = w->next;
            if (!tc->deferred)
                tc->deferred_tail = &tc->deferred;
            struct backend_call *bc = w->bc;
            backend_op op = w->op;
            enum typed_fence kind = w->kind;
            free(w);
            start(tc, bc, op, kind);
        }
    } while (tc->drain_again);
    tc->draining = false;
}

/* Cancelled (or paused) while it waited: nothing was done. */
static void deferred_cancel(struct backend_call *bc)
{
    struct typed_check *tc = desktop_of(bc->session)->typed;
    struct deferred **pp = &tc->deferred, *w;
    while ((w = *pp) && w->bc != bc)
        pp = &w->next;
    if (!w)
        return;
    *pp = w->next;
    if (!tc->deferred)
        tc->deferred_tail = &tc->deferred;
    else if (tc->deferred_tail == &w->next)
        tc->deferred_tail = pp;
    free(w);
    bc->cancel = NULL;
    bc->backend_data = NULL;
    backend_call_fail(bc, "stopped before it was done: nothing was done");
    drain(tc);
}

void typed_check_run(struct desktop *d, struct backend_call *bc, backend_op op,
                     enum typed_fence kind)
{
    struct typed_check *tc = of(d);
    if (!tc->deferred && !must_wait(tc, kind)) {
        start(tc, bc, op, kind);
        return;
    }
    struct deferred *w = xcalloc(1, sizeof *w);
    w->bc = bc;
    w->op = op;
    w->kind = kind;
    *tc->deferred_tail = w;
    tc->deferred_tail = &w->next;
    bc->cancel = deferred_cancel;
    bc->backend_data = w;
}

void typed_check_typing(struct desktop *d)
{
    of(d)->typing++;
}

static void check_run(struct input_job *job)
{
    struct check_job *j = (struct check_job *)job;
    uint64_t t0 = uv_hrtime();
    j->secret = perceive_focus_is_secret(j->p, j->settle_ms);
    log_debug("focus check after typing: %s, %.1f ms",
              j->secret ? "a password field" : "not a secret", (double)(uv_hrtime() - t0) / 1e6);
}

static void next_check(struct typed_check *tc);

static void check_done(struct input_job *job, bool dropped)
{
    struct check_job *j = (struct check_job *)job;
    struct typed_check *tc = j->tc;
    /* Never run (the desktop went away): cannot tell, so a secret. */
    release_all(j->records, dropped || j->secret);
    free(j);
    if (tc->destroying || tc->closed)
        return;
    tc->running = NULL;
    tc->d->session->in_use--;
    next_check(tc);
    drain(tc);
}

/* Asks about the focus for every record typed so far, unless a check is
 * under way (the next one then answers for them). */
static void next_check(struct typed_check *tc)
{
    if (tc->running || !tc->waiting)
        return;
    if (tc->closed) {
        release_all(tc->waiting, true);
        tc->waiting = NULL;
        return;
    }
    struct check_job *j = xcalloc(1, sizeof *j);
    j->job.run = check_run;
    j->job.done = check_done;
    j->tc = tc;
    j->p = tc->d->perceive;
    j->settle_ms = tc->waiting_settle_ms;
    j->records = tc->waiting;
    tc->waiting = NULL;
    tc->waiting_settle_ms = 0;
    tc->running = j;
    /* Perception stays until the answer (free_desktop waits for in_use). */
    tc->d->session->in_use++;
    if (!tc->q)
        tc->q = input_queue_create(tc->d->app->loop);
    input_queue_push(tc->q, &j->job);
}

void typed_check_typed(struct desktop *d, struct backend_hold *h, int settle_ms)
{
    struct typed_check *tc = of(d);
    tc->typing--;
    if (h) {
        struct open_record *r = xcalloc(1, sizeof *r);
        r->h = h;
        r->next = tc->waiting;
        tc->waiting = r;
        if (settle_ms > tc->waiting_settle_ms)
            tc->waiting_settle_ms = settle_ms;
        next_check(tc);
    }
    drain(tc);
}

void typed_check_close(struct desktop *d)
{
    struct typed_check *tc = d->typed;
    if (!tc || tc->closed)
        return;
    tc->closed = true;
    release_all(tc->waiting, true);
    tc->waiting = NULL;
    /* A check under way answers for a desktop that is going: its records
     * are released now as redacted, and its thread stops telling the loop,
     * which may close first (a server shutting down does not wait for it);
     * typed_check_destroy collects it. */
    if (tc->running) {
        release_all(tc->running->records, true);
        tc->running->records = NULL;
        tc->running = NULL;
        tc->d->session->in_use--;
    }
    if (tc->q)
        input_queue_quiet(tc->q);
    /* The calls that waited: their desktop is gone. */
    while (tc->deferred) {
        struct deferred *w = tc->deferred;
        tc->deferred = w->next;
        w->bc->cancel = NULL;
        w->bc->backend_data = NULL;
        backend_call_fail_code(w->bc, ERROR_SESSION_EXPIRED,
                               "stopped before it was done: the session ended");
        free(w);
    }
    tc->deferred_tail = &tc->deferred;
}

void typed_check_destroy(struct desktop *d)
{
    struct typed_check *tc = d->typed;
    if (!tc)
        return;
    typed_check_close(d);
    tc->destroying = true;
    /* Joins the thread (a check under way ends first) and hands the checks
     * to check_done, which releases their records. */
    input_queue_destroy(tc->q);
    while (tc->elsewhere) {
        struct elsewhere *e = tc->elsewhere;
        tc->elsewhere = e->next;
        free(e);
    }
    free(tc);
    d->typed = NULL;
}
