/* Shared by the perceive/ files: the per-session state and the worker-pool
 * job every operation runs as. */
#pragma once
#include "backend/desktop/perceive/atspi.h"
#include "backend/desktop/perceive/perceive.h"
#include "core/error_code.h"
#include "ocr/ocr.h"

#include <jansson.h>
#include <uv.h>

struct perceive {
    char *bus_address;
    struct perceive_host host;
    uv_mutex_t lock;                 /* held by the running job: one operation at a time */
    struct atspi *atspi;             /* connected on first use; dropped when it stops answering */
    struct atspi_tree last;          /* the latest snapshot, which refs point into */
    struct atspi_hint *element_hint; /* element_at's windows (atspi_element.h); NULL */
    int first_ref;                   /* ref number of last.nodes[0] */
    int next_ref;                    /* the next snapshot's first ref */
    bool have_snapshot;
    /* The input thread's own connection, for asking whether the focus is
     * a password field as text is typed, without waiting for p->lock. */
    uv_mutex_t focus_lock;
    struct atspi *focus_atspi;
    uint64_t focus_retry_ms; /* no accessibility bus: not asked again before (hrtime ms) */
    /* The last recognition, reused while the pixels it read are the same
     * (ocr_cache.c): a find or click by text that no element has costs a
     * capture and a hash instead of Tesseract again. */
    struct {
        bool valid;
        uint64_t hash;
        int x, y, w, h;
        char lang[64];
        struct ocr_result result;
    } ocr_cache;
    /* Password fields seen by the latest walks, for screenshots to hide. */
    uv_mutex_t secrets_lock;
    struct perceive_rect secrets[PERCEIVE_MAX_SECRETS];
    int n_secrets;
};

struct job;
typedef void (*job_fn)(struct job *j);

/* One operation: run() on a worker thread with p->lock held, then the
 * answer on the loop thread. run() sets error, or data + text, or target
 * (continued by then()). */
struct job {
    uv_work_t work;
    struct perceive *p;
    struct backend_call *bc;
    const json_t *args; /* bc->args; read only, on the worker */
    char session[48];   /* struct session id */
    job_fn run;
    char *error;
    enum error_code code; /* of error (docs/errors.md) */
    json_t *data;
    char *text;
    bool has_target;
    struct perceive_target target;
    char target_ref[24];
    perceive_then then;
    bool pointer_only;            /* click: never through the element's action */
    void (*after)(struct job *j); /* instead of answering (waits); NULL normally */
    void *ud;
};

#define WALK_DEADLINE_MS   4000
#define CONNECT_TIMEOUT_MS 2000

/* Queue run for bc. */
void job_start(struct perceive *p, struct backend_call *bc, job_fn run, perceive_then then);
struct job *job_new(struct perceive *p, struct backend_call *bc, job_fn run);
void job_queue(struct job *j);
void job_fail(struct job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with a code; job_fail gives ERROR_TOOL_FAILED. */
void job_fail_code(struct job *j, enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The accessibility bus, connected if needed; NULL with j->error. */
struct atspi *perceive_atspi(struct job *j);
/* Walk the tree (connecting if needed). false with j->error set. */
bool perceive_walk(struct job *j, const struct atspi_walk_opts *o, struct atspi_tree *out);
/* Default walk options from the tool arguments (app, depth, max_nodes, include_hidden). */
struct atspi_walk_opts perceive_walk_opts(const json_t *args);
/* Make tree the latest snapshot (taking it) and number its refs. */
void perceive_adopt(struct perceive *p, struct atspi_tree *tree);
/* The element a ref names in the latest snapshot; NULL with j->error
 * (older snapshot, unknown ref, no snapshot yet). */
const struct atspi_node *perceive_ref(struct job *j, const char *ref);
/* Capture and OCR the rectangle (w == 0: the screen); deadline_ms > 0
 * bounds the recognition (see ocr_recognize). */
bool perceive_ocr(struct job *j, int x, int y, int w, int h, const char *lang, int deadline_ms,
                  struct ocr_result *out);
/* OCR phrases matching text: bounds unions of consecutive words on a line.
 * Returns a JSON array of {text, bounds, confidence, source:"ocr"}. */
json_t *perceive_ocr_matches(const struct ocr_result *r, const char *text, bool exact, int limit);
json_t *perceive_bounds_json(int x, int y, int w, int h);
/* The cached recognition of this rectangle of these pixels, copied into
 * out; false when there is none (ocr_cache.c). p->lock held. */
bool ocr_cache_get(struct perceive *p, const struct frame *f, int x, int y, int w, int h,
                   const char *lang, struct ocr_result *out);
/* Remember r (copied) as the recognition of that rectangle of f. */
void ocr_cache_put(struct perceive *p, const struct frame *f, int x, int y, int w, int h,
                   const char *lang, const struct ocr_result *r);
void ocr_cache_finish(struct perceive *p);
