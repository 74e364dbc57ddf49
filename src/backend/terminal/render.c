/* Screenshots of a terminal: the cell grid is copied on the loop thread,
 * rendered on the worker pool, and handed to the frame pipeline. */
#include "backend/frames.h"
#include "backend/terminal/internal.h"
#include "backend/terminal/term_screen.h"
#include "backend/terminal/terminal.h"
#include "core/xmalloc.h"
#include "image/glyphs.h"
#include "image/pixel_budget.h"
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

/* The screen's cells, copied on the loop thread, for the frame pipeline. */
struct shot {
    struct cell_grid grid;
};

static uint64_t grid_pixels(const struct glyph_renderer *r, const struct cell_grid *g)
{
    int cw, ch;
    glyph_renderer_cell_size(r, &cw, &ch);
    return (uint64_t)g->cols * (uint64_t)cw * (uint64_t)g->rows * (uint64_t)ch;
}

/* A renderer with smaller glyphs, for a screen that would be over
 * IMAGE_MAX_PIXELS at FONT_PIXELS; NULL with *err if even
 * MIN_FONT_PIXELS is too big. Called with the renderer lock held. */
static struct glyph_renderer *smaller_renderer(const struct cell_grid *grid, uint64_t full_pixels,
                                               char **err)
{
    int size = (int)(FONT_PIXELS * sqrt((double)IMAGE_MAX_PIXELS / (double)full_pixels));
    for (; size >= MIN_FONT_PIXELS; size--) {
        struct glyph_renderer *r = glyph_renderer_create(NULL, size, err);
        if (!r)
            return NULL;
        if (grid_pixels(r, grid) <= IMAGE_MAX_PIXELS)
            return r;
        glyph_renderer_destroy(r);
    }
    *err = xasprintf("the terminal (%d×%d cells) would be %llu Mpx, more than the %u Mpx a "
                     "screenshot may have even with %d px glyphs; make it smaller with resize "
                     "(a 400×200 terminal fits at full size)",
                     grid->cols, grid->rows, (unsigned long long)(full_pixels / (1024 * 1024)),
                     IMAGE_MAX_PIXELS / (1024 * 1024), MIN_FONT_PIXELS);
    return NULL;
}

/* Worker pool: the cells rendered with real glyphs. The text cursor is part
 * of the grid; a terminal has no mouse pointer nor secrets of its own. */
static bool produce(void *ud, const struct frame_request *rq, struct frame_shot *out, char **err)
{
    (void)rq;
    struct shot *sh = ud;
    struct glyph_renderer *r = terminal_renderer_lock(err);
    if (!r)
        return false;
    int cw, ch;
    glyph_renderer_cell_size(r, &cw, &ch);
    uint32_t full_width = (uint32_t)(sh->grid.cols * cw);
    uint64_t pixels = grid_pixels(r, &sh->grid);
    /* Too big for one image: the same screen with smaller glyphs (the
     * answer's scale says by how much), not a render scaled down after. */
    struct glyph_renderer *small = NULL;
    if (pixels > IMAGE_MAX_PIXELS) {
        small = smaller_renderer(&sh->grid, pixels, err);
        if (!small) {
            terminal_renderer_unlock();
            return false;
        }
        pixels = grid_pixels(small, &sh->grid);
    }
    image_budget_acquire(pixels);
    out->budget_pixels = pixels;
    glyph_renderer_render(small ? small : r, &sh->grid, &out->frame);
    glyph_renderer_destroy(small);
    terminal_renderer_unlock();
    out->unit = (double)out->frame.width / (double)full_width;
    return true;
}

static void release(void *ud)
{
    struct shot *sh = ud;
    free(sh->grid.cells);
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
    term_screen_grid(t->screen, &sh->grid);
    /* A program that has ended shows no cursor. */
    if (t->exited)
        sh->grid.cursor_visible = false;
    frames_screenshot(bc, &(struct frame_source){.produce = produce,
                                                 .release = release,
                                                 .ud = sh,
                                                 .failure = "cannot render the screen"});
}

void terminal_capture_op(struct backend_call *bc)
{
    terminal_screenshot_op(bc);
}
