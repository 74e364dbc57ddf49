/* One thread per desktop for its input: clicks, drags, typing and window
 * requests run there one after another, in the order they were asked. A
 * long press or a drag sleeps on this thread, never on libuv's shared worker
 * pool, so one desktop's input cannot delay another session's screenshots,
 * OCR or accessibility work. */
#pragma once
#include <stdbool.h>
#include <uv.h>

struct input_job {
    /* On the input thread. */
    void (*run)(struct input_job *job);
    /* Then on the loop thread; dropped is true when run never happened
     * (the desktop went away first). done owns the job. */
    void (*done)(struct input_job *job, bool dropped);
    struct input_job *next; /* the queue's */
};

struct input_queue;

/* On the loop thread. The thread starts with the first job. */
struct input_queue *input_queue_create(uv_loop_t *loop);
/* From now on finished jobs wait for input_queue_destroy to hand them to
 * done: the thread never wakes the loop again, which may close before a
 * long job ends (at shutdown the server does not wait for it). For a queue
 * whose owner stops caring about the answers. */
void input_queue_quiet(struct input_queue *q);
/* Queue job (not run yet: its run starts after the jobs before it). */
void input_queue_push(struct input_queue *q, struct input_job *job);
/* The session has ended: once the jobs in flight are answered the thread
 * ends and q frees itself (the caller forgets q now). NULL ok. */
void input_queue_close(struct input_queue *q);
/* For a session destroyed without input_queue_close (at exit only): waits
 * for the running job (stopped by its owner's cancel beforehand),
 * joins the thread, hands every job left to its done with dropped set when
 * it never ran, and frees q. NULL ok. */
void input_queue_destroy(struct input_queue *q);
