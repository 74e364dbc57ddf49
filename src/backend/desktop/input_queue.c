#include "backend/desktop/input_queue.h"
#include "core/check.h"

#include "core/xmalloc.h"

#include <stdlib.h>

struct input_queue {
    uv_async_t async; /* finished jobs are waiting for the loop */
    uv_thread_t thread;
    bool started;
    bool closing;  /* the session ended: close once nothing is in flight (loop thread) */
    bool closed;   /* uv_close called by us */
    int in_flight; /* pushed and not yet handed to done (loop thread) */
    uv_mutex_t lock;
    uv_cond_t wake;
    bool quit;                           /* under lock */
    bool quiet;                          /* under lock: input_queue_quiet */
    struct input_job *todo, **todo_tail; /* under lock */
    struct input_job *done, **done_tail; /* under lock */
};

static void append(struct input_job ***tail, struct input_job *job)
{
    job->next = NULL;
    **tail = job;
    *tail = &job->next;
}

static void thread_main(void *arg)
{
    struct input_queue *q = arg;
    uv_mutex_lock(&q->lock);
    for (;;) {
        while (!q->todo && !q->quit)
            uv_cond_wait(&q->wake, &q->lock);
        if (!q->todo)
            break;
        struct input_job *job = q->todo;
        q->todo = job->next;
        if (!q->todo)
            q->todo_tail = &q->todo;
        uv_mutex_unlock(&q->lock);
        job->run(job);
        uv_mutex_lock(&q->lock);
        append(&q->done_tail, job);
        if (!q->quiet)
            uv_async_send(&q->async);
        if (q->quit)
            break;
    }
    uv_mutex_unlock(&q->lock);
}

static void closed(uv_handle_t *h);

static void stop_thread(struct input_queue *q)
{
    uv_mutex_lock(&q->lock);
    q->quit = true;
    uv_cond_signal(&q->wake);
    uv_mutex_unlock(&q->lock);
    if (q->started)
        uv_thread_join(&q->thread);
    q->started = false;
}

/* Once the session has ended and the last job has been answered: the
 * thread (idle by then) ends and the handle closes, freeing q. */
static void finish_close(struct input_queue *q)
{
    if (!q->closing || q->in_flight > 0 || q->closed)
        return;
    stop_thread(q);
    q->closed = true;
    /* Closed already by a server shutting down with the session still
     * ending: the loop holds the handle until it ends, so q stays. */
    if (!uv_is_closing((uv_handle_t *)&q->async))
        uv_close((uv_handle_t *)&q->async, closed);
}

/* Hands finished jobs to their done callbacks, outside the lock (a done
 * may queue the next job). */
static void deliver(uv_async_t *a)
{
    struct input_queue *q = a->data;
    uv_mutex_lock(&q->lock);
    struct input_job *list = q->done;
    q->done = NULL;
    q->done_tail = &q->done;
    uv_mutex_unlock(&q->lock);
    while (list) {
        struct input_job *next = list->next;
        CHECK(q->in_flight > 0);
        q->in_flight--;
        list->done(list, false);
        list = next;
    }
    finish_close(q);
}

struct input_queue *input_queue_create(uv_loop_t *loop)
{
    struct input_queue *q = xcalloc(1, sizeof *q);
    uv_mutex_init(&q->lock);
    uv_cond_init(&q->wake);
    q->todo_tail = &q->todo;
    q->done_tail = &q->done;
    uv_async_init(loop, &q->async, deliver);
    q->async.data = q;
    /* An idle desktop's input thread never keeps the server running. */
    uv_unref((uv_handle_t *)&q->async);
    return q;
}

void input_queue_quiet(struct input_queue *q)
{
    uv_mutex_lock(&q->lock);
    q->quiet = true;
    uv_mutex_unlock(&q->lock);
}

void input_queue_push(struct input_queue *q, struct input_job *job)
{
    /* A queue that finished closing has no thread and no handle left. */
    CHECK(!q->closed);
    q->in_flight++;
    uv_mutex_lock(&q->lock);
    append(&q->todo_tail, job);
    uv_cond_signal(&q->wake);
    uv_mutex_unlock(&q->lock);
    if (!q->started) {
        uv_thread_create(&q->thread, thread_main, q);
        q->started = true;
    }
}

static void closed(uv_handle_t *h)
{
    struct input_queue *q = h->data;
    uv_mutex_destroy(&q->lock);
    uv_cond_destroy(&q->wake);
    free(q);
}

void input_queue_close(struct input_queue *q)
{
    if (!q)
        return;
    q->closing = true;
    finish_close(q);
}

void input_queue_destroy(struct input_queue *q)
{
    if (!q)
        return;
    /* Only when a session is destroyed without having ended (at exit after
     * a failed shutdown): the running job ends, the rest never run. */
    stop_thread(q);
    q->closing = true;
    q->closed = true;
    deliver(&q->async);
    for (struct input_job *job = q->todo, *next; job; job = next) {
        next = job->next;
        job->done(job, true);
    }
    q->todo = NULL;
    if (uv_is_closing((uv_handle_t *)&q->async))
        closed((uv_handle_t *)&q->async); /* closed with the loop, which has ended */
    else
        uv_close((uv_handle_t *)&q->async, closed);
}
