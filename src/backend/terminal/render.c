/* Screenshots of a terminal: the cell grid is copied on the loop thread,
 * then rendered, scaled and encoded on the worker pool. */
#include "backend/terminal/internal.h"
#include "backend/terminal/term_screen.h"
#include "backend/terminal/terminal.h"
#include "core/app.h"
#include "core/args.h"
#include "core/xmalloc.h"
#include "image/encode.h"
#include "image/glyphs.h"
#include "image/pixel_budget.h"
#include "image/scale.h"
#include "session/session.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

/* Glyph height in pixels: 16 px gives 10×19 px cells, legible when scaled. */
#define FONT_PIXELS 16
/* Below this a screen over IMAGE_MAX_PIXELS is refused rather than shrunk:
 * smaller glyphs are not legible. */
#define MIN_FONT_PIXELS 6

static pthread_mutex_t renderer_lock = PTHREAD_MUTEX_INITIALIZER;
static struct glyph_renderer *renderer;

struct glyph_renderer *terminal_renderer_lock(char **err)
{
    pthread_mutex_lock(&renderer_lock);
    if (!renderer)
        renderer = glyph_renderer_create(NULL, FONT_PIXELS, err);
    if (!renderer)
        pthread_mutex_unlock(&renderer_lock);
    return renderer;
}

void terminal_renderer_unlock(void)
{
    pthread_mutex_unlock(&renderer_lock);
}

void terminal_release_shared(void)
{
    pthread_mutex_lock(&renderer_lock);
    glyph_renderer_destroy(renderer);
    renderer = NULL;
    pthread_mutex_unlock(&renderer_lock);
}

struct shot {
    uv_work_t work;
    struct backend_call *bc;
    struct cell_grid grid;
    enum image_format format;
    int quality, max_width;
    /* results */
    uint8_t *bytes;
    size_t len;
    uint32_t width, height, full_width;
    char *err;
};

static uint64_t grid_pixels(const struct glyph_renderer *r, const struct cell_grid *g)
{
    int cw, ch;
    glyph_renderer_cell_size(r, &cw, &ch);
    return (uint64_t)g->cols * (uint64_t)cw * (uint64_t)g->rows * (uint64_t)ch;
}

/* A renderer with smaller glyphs, for a screen that would be over
 * IMAGE_MAX_PIXELS at FONT_PIXELS; NULL with sh->err if even
 * MIN_FONT_PIXELS is too big. Called with the renderer lock held. */
static struct glyph_renderer *smaller_renderer(struct shot *sh, uint64_t full_pixels)
{
    int size = (int)(FONT_PIXELS * sqrt((double)IMAGE_MAX_PIXELS / (double)full_pixels));
    for (; size >= MIN_FONT_PIXELS; size--) {
        struct glyph_renderer *r = glyph_renderer_create(NULL, size, &sh->err);
        if (!r)
            return NULL;
        if (grid_pixels(r, &sh->grid) <= IMAGE_MAX_PIXELS)
            return r;
        glyph_renderer_destroy(r);
    }
    sh->err =
        xasprintf("the terminal (%d×%d cells) would be %llu Mpx, more than the %u Mpx a "
                  "screenshot may have even with %d px glyphs; make it smaller with resize "
                  "(a 400×200 terminal fits at full size)",
                  sh->grid.cols, sh->grid.rows, (unsigned long long)(full_pixels / (1024 * 1024)),
                  IMAGE_MAX_PIXELS / (1024 * 1024), MIN_FONT_PIXELS);
    return NULL;
}

static void shot_run(uv_work_t *work)
{
    struct shot *sh = work->data;
    struct glyph_renderer *r = terminal_renderer_lock(&sh->err);
    if (!r)
        return;
    int cw, ch;
    glyph_renderer_cell_size(r, &cw, &ch);
    sh->full_width = (uint32_t)(sh->grid.cols * cw);
    uint64_t pixels = grid_pixels(r, &sh->grid);
    /* Too big for one image: the same screen with smaller glyphs (the
     * answer's scale says by how much), not a render scaled down after. */
    struct glyph_renderer *small = NULL;
    if (pixels > IMAGE_MAX_PIXELS) {
        small = smaller_renderer(sh, pixels);
        if (!small) {
            terminal_renderer_unlock();
            return;
        }
        pixels = grid_pixels(small, &sh->grid);
    }
    image_budget_acquire(pixels);
    struct frame full;
    glyph_renderer_render(small ? small : r, &sh->grid, &full);
    glyph_renderer_destroy(small);
    terminal_renderer_unlock();
    struct frame *out = &full, scaled;
    if (sh->max_width > 0 && (uint32_t)sh->max_width < full.width) {
        image_downscale(&full, (uint32_t)sh->max_width, &scaled);
        out = &scaled;
    }
    sh->width = out->width;
    sh->height = out->height;
    image_encode(out, sh->format, sh->quality, &sh->bytes, &sh->len, &sh->err);
    if (out == &scaled)
        frame_finish(&scaled);
    frame_finish(&full);
    image_budget_release(pixels);
}

static void shot_done(uv_work_t *work, int status)
{
    struct shot *sh = work->data;
    struct backend_call *bc = sh->bc;
    free(sh->grid.cells);
    if (sh->err || !sh->bytes) {
        backend_call_fail(bc, "cannot render the screen: %s", sh->err ? sh->err : "cancelled");
    } else {
        backend_call_done_screenshot(bc, sh->bytes, sh->len, sh->format, sh->width, sh->height,
                                     (double)sh->width / (double)sh->full_width, NULL);
        sh->bytes = NULL;
    }
    free(sh->bytes);
    free(sh->err);
    free(sh);
}

void terminal_screenshot_op(struct backend_call *bc)
{
    if (json_object_get(bc->args, "region")) {
        backend_call_fail(bc, "region is for desktop sessions; a terminal screenshot is the whole "
                              "screen (use max_width to make it smaller)");
        return;
    }
    struct terminal *t = terminal_of(bc->session);
    struct shot *sh = xcalloc(1, sizeof *sh);
    sh->bc = bc;
    if (!image_format_parse(args_string(bc->args, "format", "png"), &sh->format))
        sh->format = IMAGE_PNG;
    sh->quality = (int)args_int(bc->args, "quality", 85);
    sh->max_width = (int)args_int(bc->args, "max_width", 0);
    term_screen_grid(t->screen, &sh->grid);
    /* A program that has ended shows no cursor. */
    if (t->exited)
        sh->grid.cursor_visible = false;
    sh->work.data = sh;
    uv_queue_work(bc->app->loop, &sh->work, shot_run, shot_done);
}

void terminal_capture_op(struct backend_call *bc)
{
    terminal_screenshot_op(bc);
}
