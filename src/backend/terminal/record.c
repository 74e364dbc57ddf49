/* Recording a terminal: a frame on each change (at most fps per second),
 * held as rows shared with the previous frame when unchanged, encoded when
 * the recording stops: a GIF in the terminal's own palette, or rendered
 * frames through record/anim_writer.h (animated WebP, WebM video). */
#define LOG_MODULE "record"
#include "backend/terminal/internal.h"
#include "backend/terminal/term_screen.h"
#include "core/app.h"
#include "core/args.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "image/cellgrid.h"
#include "image/frame.h"
#include "image/gif.h"
#include "image/glyphs.h"
#include "record/anim_writer.h"
#include "record/recorder.h"
#include "record/recordings.h"
#include "session/session.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* A recording stops by itself (keeping what it has) at the first of these:
 * its frames' memory (max_bytes), its length (max_duration_s), or one hour
 * of frames at 10 fps. Defaults and ceilings: */
#define MAX_FRAMES RECORDER_MAX_FRAMES
/* Largest frame a recording renders, in pixels (as a screenshot). */
#define MAX_FRAME_PIXELS (16u * 1024 * 1024)

struct rec_row {
    int refs;
    int cols;
    struct cell cells[];
};

struct rec_frame {
    uint64_t at_ms; /* since the recording started */
    int cols, rows;
    struct rec_row **row;
    int cursor_row, cursor_col;
    bool cursor_visible;
    uint32_t cursor_color;
};

struct term_recording {
    char id[32];
    struct terminal *t; /* NULL once the terminal is gone */
    struct app *app;
    char *session; /* its id */
    enum rec_format format;
    int fps;
    uint64_t started_ms, last_frame_ms, stopped_ms;
    uint64_t last_changes; /* term_screen_changes() at the last frame */
    uv_timer_t timer;
    bool timer_pending;
    struct rec_frame *frames;
    int count, cap;
    uint64_t max_bytes, max_duration_ms;
    uint64_t held;        /* bytes the frames hold */
    char *stopped_reason; /* a limit ended it; NULL while recording */
    /* encoding results */
    uv_work_t work;
    struct backend_call *stop_call;
    char *path, *err;
    uint64_t bytes;
};

static void frame_free_rows(struct rec_frame *f)
{
    for (int r = 0; r < f->rows; r++)
        if (--f->row[r]->refs == 0)
            free(f->row[r]);
    free(f->row);
}

/* A limit was reached: take no more frames, keep those taken. record_stop
 * writes them and says why the recording ended early. */
static void stop_at_limit(struct term_recording *rec, uint64_t at_ms, char *reason)
{
    rec->stopped_reason = reason;
    rec->stopped_ms = at_ms;
    uv_timer_stop(&rec->timer);
    rec->timer_pending = false;
    log_warn("recording %s stopped after %d frames: %s; record_stop writes what was recorded",
             rec->id, rec->count, reason);
}

/* The bytes a frame of g adds to what the recording holds: its new rows. */
static uint64_t frame_cost(const struct rec_frame *prev, const struct cell_grid *g)
{
    size_t row_bytes = (size_t)g->cols * sizeof(struct cell);
    uint64_t cost = sizeof(struct rec_frame) + (uint64_t)g->rows * sizeof(struct rec_row *);
    for (int r = 0; r < g->rows; r++) {
        const struct cell *src = g->cells + (size_t)r * (size_t)g->cols;
        if (!(prev && prev->cols == g->cols && r < prev->rows &&
              memcmp(prev->row[r]->cells, src, row_bytes) == 0))
            cost += sizeof(struct rec_row) + row_bytes;
    }
    return cost;
}

static void capture(struct term_recording *rec)
{
    struct terminal *t = rec->t;
    if (rec->stopped_reason)
        return;
    uint64_t now = uv_now(t->app->loop);
    if (now - rec->started_ms > rec->max_duration_ms) {
        stop_at_limit(rec, rec->max_duration_ms,
                      xasprintf("max_duration_s reached (%llu s)",
                                (unsigned long long)rec->max_duration_ms / 1000));
        return;
    }
    if (rec->count >= MAX_FRAMES) {
        stop_at_limit(rec, now - rec->started_ms,
                      xasprintf("the frame limit was reached (%d frames)", MAX_FRAMES));
        return;
    }
    struct cell_grid g;
    term_screen_grid(t->screen, &g);
    if (t->exited)
        g.cursor_visible = false;
    struct rec_frame *last = rec->count ? &rec->frames[rec->count - 1] : NULL;
    uint64_t cost = frame_cost(last, &g);
    /* The first frame is always kept: a recording of nothing is no use. */
    if (rec->count && rec->held + cost > rec->max_bytes) {
        free(g.cells);
        stop_at_limit(rec, now - rec->started_ms,
                      xasprintf("max_bytes reached (%llu bytes of frames held, the next "
                                "frame needs %llu more)",
                                (unsigned long long)rec->held, (unsigned long long)cost));
        return;
    }
    rec->held += cost;
    if (rec->count == rec->cap) {
        rec->cap = rec->cap ? rec->cap * 2 : 64;
        rec->frames = xrealloc(rec->frames, (size_t)rec->cap * sizeof *rec->frames);
    }
    struct rec_frame *prev = rec->count ? &rec->frames[rec->count - 1] : NULL;
    struct rec_frame *f = &rec->frames[rec->count++];
    f->at_ms = now - rec->started_ms;
    f->cols = g.cols;
    f->rows = g.rows;
    f->cursor_row = g.cursor_row;
    f->cursor_col = g.cursor_col;
    f->cursor_visible = g.cursor_visible;
    f->cursor_color = g.cursor_color;
    f->row = xcalloc((size_t)g.rows, sizeof *f->row);
    size_t row_bytes = (size_t)g.cols * sizeof(struct cell);
    for (int r = 0; r < g.rows; r++) {
        const struct cell *src = g.cells + (size_t)r * (size_t)g.cols;
        if (prev && prev->cols == g.cols && r < prev->rows &&
            memcmp(prev->row[r]->cells, src, row_bytes) == 0) {
            f->row[r] = prev->row[r];
            f->row[r]->refs++;
            continue;
        }
        struct rec_row *row = xmalloc(sizeof *row + row_bytes);
        row->refs = 1;
        row->cols = g.cols;
        memcpy(row->cells, src, row_bytes);
        f->row[r] = row;
    }
    free(g.cells);
    rec->last_frame_ms = now;
    rec->last_changes = term_screen_changes(t->screen);
}

static void on_timer(uv_timer_t *timer)
{
    struct term_recording *rec = timer->data;
    rec->timer_pending = false;
    if (rec->t && !rec->stop_call)
        capture(rec);
}

void terminal_record_changed(struct terminal *t)
{
    struct term_recording *rec = t->rec;
    if (!rec || rec->stop_call || rec->timer_pending || rec->stopped_reason)
        return;
    if (term_screen_changes(t->screen) == rec->last_changes && !t->exited)
        return;
    uint64_t now = uv_now(t->app->loop);
    uint64_t interval = 1000u / (uint64_t)rec->fps;
    if (now - rec->last_frame_ms >= interval) {
        capture(rec);
        return;
    }
    /* Too soon: take the frame when the interval is up, with whatever the
     * screen shows then. */
    rec->timer_pending = true;
    uv_timer_start(&rec->timer, on_timer, interval - (now - rec->last_frame_ms), 0);
}

static void grid_of(const struct rec_frame *f, struct cell_grid *g, struct cell *cells)
{
    g->cols = f->cols;
    g->rows = f->rows;
    g->cells = cells;
    for (int r = 0; r < f->rows; r++)
        memcpy(cells + (size_t)r * (size_t)f->cols, f->row[r]->cells,
               (size_t)f->cols * sizeof(struct cell));
    g->cursor_row = f->cursor_row;
    g->cursor_col = f->cursor_col;
    g->cursor_visible = f->cursor_visible;
    g->cursor_color = f->cursor_color;
}

/* In the terminal's own palette: exact colours, small files. */
static void encode_gif(struct term_recording *rec, struct glyph_renderer *r, struct cell *cells,
                       uint32_t *palette, int palette_len)
{
    struct cell_grid g;
    struct gif_writer *w = NULL;
    int width = 0, height = 0;
    for (int i = 0; i < rec->count && !rec->err; i++) {
        /* The terminal was resized mid-recording: keep the first size. */
        if (rec->frames[i].cols != rec->frames[0].cols ||
            rec->frames[i].rows != rec->frames[0].rows)
            continue;
        grid_of(&rec->frames[i], &g, cells);
        uint8_t *indices = NULL;
        int fw, fh;
        glyph_renderer_render_indexed(r, &g, palette, &palette_len, &indices, &fw, &fh);
        if (!w) {
            width = fw;
            height = fh;
            w = gif_writer_create(rec->path, width, height, palette, palette_len, &rec->err);
        }
        uint64_t until = i + 1 < rec->count ? rec->frames[i + 1].at_ms : rec->stopped_ms;
        uint64_t shown = until > rec->frames[i].at_ms ? until - rec->frames[i].at_ms : 0;
        int delay_cs = (int)(shown / 10);
        if (delay_cs < 2)
            delay_cs = 2;
        if (w && !gif_writer_add(w, indices, delay_cs, &rec->err)) {
            gif_writer_abort(w);
            w = NULL;
        }
        free(indices);
    }
    if (w && !rec->err)
        gif_writer_close(w, &rec->err);
    else
        gif_writer_abort(w);
}

/* Rendered to pixels, for the formats that take full-colour frames. */
static void encode_rendered(struct term_recording *rec, struct glyph_renderer *r,
                            struct cell *cells)
{
    struct cell_grid g;
    struct anim_writer *w = NULL;
    for (int i = 0; i < rec->count && !rec->err; i++) {
        if (rec->frames[i].cols != rec->frames[0].cols ||
            rec->frames[i].rows != rec->frames[0].rows)
            continue;
        grid_of(&rec->frames[i], &g, cells);
        struct frame f;
        glyph_renderer_render(r, &g, &f);
        if (!w)
            w = anim_writer_create(rec->format, rec->path, (int)f.width, (int)f.height, &rec->err);
        if (w && !anim_writer_add(w, &f, rec->frames[i].at_ms, &rec->err)) {
            anim_writer_abort(w);
            w = NULL;
        }
        frame_finish(&f);
    }
    uint64_t end = rec->stopped_ms;
    if (rec->count && end < rec->frames[rec->count - 1].at_ms)
        end = rec->frames[rec->count - 1].at_ms;
    if (w && !rec->err)
        anim_writer_close(w, end, &rec->err);
    else
        anim_writer_abort(w);
}

/* Writes the file. Runs on the worker pool (or, at exit, on the loop thread). */
static void encode(struct term_recording *rec)
{
    char *err = NULL;
    struct glyph_renderer *r = terminal_renderer_lock(&err);
    if (!r) {
        rec->err = err;
        return;
    }
    uint32_t palette[256];
    int palette_len = 0;
    size_t max_cells = 0;
    for (int i = 0; i < rec->count; i++) {
        size_t n = (size_t)rec->frames[i].cols * (size_t)rec->frames[i].rows;
        if (n > max_cells)
            max_cells = n;
    }
    struct cell *cells = xcalloc(max_cells ? max_cells : 1, sizeof *cells);
    struct cell_grid g;
    for (int i = 0; i < rec->count; i++) {
        grid_of(&rec->frames[i], &g, cells);
        cellgrid_collect_palette(&g, palette, &palette_len);
    }
    int cw, ch;
    glyph_renderer_cell_size(r, &cw, &ch);
    uint64_t pixels = rec->count ? (uint64_t)rec->frames[0].cols * (uint64_t)cw *
                                       (uint64_t)rec->frames[0].rows * (uint64_t)ch
                                 : 0;
    if (pixels > MAX_FRAME_PIXELS)
        rec->err = xasprintf("the terminal (%d×%d cells) renders at %llu px a frame, more than "
                             "the %u px a recording frame may have; record a smaller terminal",
                             rec->frames[0].cols, rec->frames[0].rows, (unsigned long long)pixels,
                             MAX_FRAME_PIXELS);
    if (!rec->err && rec->format == REC_GIF)
        encode_gif(rec, r, cells, palette, palette_len);
    else if (!rec->err)
        encode_rendered(rec, r, cells);
    terminal_renderer_unlock();
    free(cells);
    if (!rec->err) {
        struct stat st;
        rec->bytes = stat(rec->path, &st) == 0 ? (uint64_t)st.st_size : 0;
    }
}

static void encode_work(uv_work_t *work)
{
    encode(work->data);
}

static void timer_closed(uv_handle_t *h)
{
    struct term_recording *rec = h->data;
    for (int i = 0; i < rec->count; i++)
        frame_free_rows(&rec->frames[i]);
    free(rec->frames);
    free(rec->path);
    free(rec->session);
    free(rec->err);
    free(rec->stopped_reason);
    free(rec);
}

/* The file is written: index it; record_stop's answer. */
static json_t *publish(struct term_recording *rec)
{
    struct recording_info info = {.path = rec->path,
                                  .mime = rec_format_mime(rec->format),
                                  .bytes = rec->bytes,
                                  .frames = rec->count,
                                  .duration_ms = rec->stopped_ms,
                                  .session = rec->session};
    memcpy(info.id, rec->id, sizeof info.id);
    recordings_add(rec->app, &info);
    return recordings_result(&info, rec->stopped_reason);
}

static void encode_done(uv_work_t *work, int status)
{
    struct term_recording *rec = work->data;
    struct backend_call *bc = rec->stop_call;
    if (!bc) {
        /* The session was stopped while recording (terminal_record_end). */
        if (rec->err) {
            log_error("recording %s lost: %s", rec->id, rec->err);
        } else {
            json_decref(publish(rec));
            log_info("recording %s of a stopped session written to %s", rec->id, rec->path);
        }
    } else if (rec->err) {
        backend_call_fail(bc, "cannot write the recording: %s", rec->err);
    } else {
        json_t *o = publish(rec);
        /* A file the client fetches: linked, not inlined. */
        backend_call_done_link(bc, o, json_string_value(json_object_get(o, "uri")), rec->id,
                               json_string_value(json_object_get(o, "mime_type")),
                               "recorded %d frames over %.1f s to %s%s%s", rec->count,
                               (double)rec->stopped_ms / 1000.0, rec->path,
                               rec->stopped_reason ? "; stopped early: " : "",
                               rec->stopped_reason ? rec->stopped_reason : "");
    }
    uv_close((uv_handle_t *)&rec->timer, timer_closed);
}

void terminal_record_start_op(struct backend_call *bc)
{
    struct terminal *t = terminal_of(bc->session);
    if (t->rec && t->rec->stopped_reason) {
        backend_call_fail(bc,
                          "%s's recording %s stopped by itself (%s); call record_stop to "
                          "write it first",
                          bc->session->id, t->rec->id, t->rec->stopped_reason);
        return;
    }
    if (t->rec) {
        backend_call_fail(bc, "%s is already being recorded (%s); call record_stop first",
                          bc->session->id, t->rec->id);
        return;
    }
    char *err = NULL;
    struct recorder_options o;
    if (!recorder_options_parse(bc->args, 10, &o, &err)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        return;
    }
    struct term_recording *rec = xcalloc(1, sizeof *rec);
    rec->path = recordings_new(bc->app, o.format, rec->id, &err);
    if (!rec->path) {
        backend_call_fail(bc, "cannot record: %s", err);
        free(err);
        free(rec);
        return;
    }
    rec->t = t;
    rec->app = bc->app;
    rec->session = xstrdup(bc->session->id);
    rec->format = o.format;
    rec->fps = o.fps;
    rec->max_bytes = o.max_bytes;
    rec->max_duration_ms = o.max_duration_ms;
    rec->started_ms = uv_now(bc->app->loop);
    uv_timer_init(bc->app->loop, &rec->timer);
    rec->timer.data = rec;
    t->rec = rec;
    capture(rec);
    backend_call_done(bc,
                      json_pack("{s:s, s:s, s:i, s:s}", "session", bc->session->id, "recording",
                                rec->id, "fps", rec->fps, "format", rec_format_name(rec->format)),
                      "recording %s as %s (%s) at up to %d fps", bc->session->id, rec->id,
                      rec_format_name(rec->format), rec->fps);
}

/* Takes the recording off t with its last frame and length, ready to be
 * written. */
static struct term_recording *detach(struct terminal *t)
{
    struct term_recording *rec = t->rec;
    t->rec = NULL;
    uv_timer_stop(&rec->timer);
    rec->timer_pending = false;
    /* The last state of the screen, even if it changed within the interval. */
    if (!rec->stopped_reason && term_screen_changes(t->screen) != rec->last_changes)
        capture(rec);
    if (!rec->stopped_reason) {
        uint64_t length = uv_now(t->app->loop) - rec->started_ms;
        if (length > rec->max_duration_ms)
            stop_at_limit(rec, rec->max_duration_ms,
                          xasprintf("max_duration_s reached (%llu s)",
                                    (unsigned long long)rec->max_duration_ms / 1000));
        else
            rec->stopped_ms = length;
    }
    rec->t = NULL;
    return rec;
}

void terminal_record_stop_op(struct backend_call *bc)
{
    struct terminal *t = terminal_of(bc->session);
    if (!t->rec) {
        backend_call_fail_code(bc, ERROR_NOT_FOUND,
                               "%s is not being recorded; call record_start first",
                               bc->session->id);
        return;
    }
    struct term_recording *rec = detach(t);
    rec->stop_call = bc;
    rec->work.data = rec;
    uv_queue_work(bc->app->loop, &rec->work, encode_work, encode_done);
}

void terminal_record_end(struct terminal *t)
{
    if (!t->rec)
        return;
    if (t->app->shutting_down) {
        terminal_record_destroy(t);
        return;
    }
    struct term_recording *rec = detach(t);
    rec->work.data = rec;
    uv_queue_work(t->app->loop, &rec->work, encode_work, encode_done);
}

void terminal_record_destroy(struct terminal *t)
{
    struct term_recording *rec = t->rec;
    if (!rec)
        return;
    /* Never lose a recording: write it now, on this thread. */
    t->rec = NULL;
    if (!rec->stopped_reason)
        rec->stopped_ms = uv_now(t->app->loop) - rec->started_ms;
    rec->t = NULL;
    encode(rec);
    if (rec->err) {
        log_error("recording %s lost: %s", rec->id, rec->err);
    } else {
        /* Indexed, so the client can still read it while the server runs. */
        json_decref(publish(rec));
        log_warn("recording %s was not stopped; written to %s", rec->id, rec->path);
    }
    /* At exit the loop may already have closed the timer. */
    if (uv_is_closing((uv_handle_t *)&rec->timer))
        timer_closed((uv_handle_t *)&rec->timer);
    else
        uv_close((uv_handle_t *)&rec->timer, timer_closed);
}
