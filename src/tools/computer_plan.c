/* What a computer action does, as backend operations: the arguments of
 * either shape (Anthropic's {action, …}, OpenAI's {type, …}) checked field by
 * field against the action, coordinates mapped from the model's space to
 * the screen's pixels, and the steps each kind of session can or cannot
 * run said before anything is done. */
#include "backend/backend.h"
#include "core/error_code.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "input/keys.h"
#include "tools/computer.h"
#include "tools/tools.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum field {
    F_COORD = 1 << 0,
    F_START = 1 << 1,
    F_TEXT = 1 << 2,
    F_DIR = 1 << 3,
    F_AMOUNT = 1 << 4,
    F_DURATION = 1 << 5,
    F_REGION = 1 << 6,
    F_X = 1 << 7,
    F_Y = 1 << 8,
    F_BUTTON = 1 << 9,
    F_PATH = 1 << 10,
    F_KEYS = 1 << 11,
    F_SCROLL_X = 1 << 12,
    F_SCROLL_Y = 1 << 13,
};
#define N_FIELDS 14

static const char *const field_names[N_FIELDS] = {
    "coordinate",
    "start_coordinate",
    "text",
    "scroll_direction",
    "scroll_amount",
    "duration",
    "region",
    "x",
    "y",
    "button",
    "path",
    "keys",
    "scroll_x",
    "scroll_y",
};

/* Arguments every action takes. */
static bool common_field(const char *k)
{
    return !strcmp(k, "session") || !strcmp(k, "action") || !strcmp(k, "type") ||
           !strcmp(k, "settle_ms");
}

struct ctx {
    const json_t *args;
    const char *kind; /* of the session */
    const struct computer_space *sp;
    struct computer_plan *plan;
    int *code;
    char **err;
};

typedef bool (*build_fn)(struct ctx *c);

struct verb {
    const char *name;
    unsigned required, optional;
    const struct tool *as;
    int settle_ms; /* default wait before the screenshot, or NO_SETTLE */
    build_fn build;
};

/* How an action settles (docs/computer.md "Settling"): the screenshot is
 * taken at the first change after the action once the screen has been
 * still for COMPUTER_SETTLE_GAP_MS, never later than settle_ms; quiet_ms is
 * how long an action waits when nothing changes at all. Input (clicks,
 * keys, typing, scroll, drag) nearly always changes something, maybe late:
 * it waits for it up to settle_ms. A button alone (left_mouse_down/up)
 * often changes nothing: a short look. Pointer motion alone mostly changes
 * nothing, and what it changes (hover effects) is seldom what the model
 * asked for: no wait unless a change has been seen already (or settle_ms
 * is given, asking to wait for one). */
#define SETTLE_INPUT   (-2)
#define SETTLE_BUTTON  (-3)
#define SETTLE_POINTER (-4)
/* Actions that answer with the screen as it is (no settle_ms). */
#define NO_SETTLE         (-1)
#define SETTLE_DEFAULT_MS 100
#define QUIET_BUTTON_MS   30

static bool fail(struct ctx *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(struct ctx *c, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct strbuf b;
    strbuf_init(&b);
    strbuf_vprintf(&b, fmt, ap);
    va_end(ap);
    *c->code = code;
    *c->err = strbuf_steal(&b);
    return false;
}

static struct computer_step *add(struct computer_plan *p, size_t op, json_t *args)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 8;
        p->steps = xrealloc(p->steps, p->cap * sizeof *p->steps);
    }
    struct computer_step *s = &p->steps[p->n++];
    *s = (struct computer_step){.op = op, .args = args};
    return s;
}

static void add_wait(struct computer_plan *p, int ms)
{
    add(p, 0, NULL)->wait_ms = ms;
}

/* x,y in the model's space to screen pixels; field names them in errors. */
static bool map(struct ctx *c, const char *field, double x, double y, int *sx, int *sy)
{
    if (!c->sp)
        return fail(c, ERROR_NOT_SUPPORTED,
                    "action \"%s\" is not supported by %s sessions: %s needs a screen with "
                    "pixels (they take type, key and screenshot)",
                    c->plan->asked, c->kind, field);
    if (!computer_to_screen(c->sp, x, y, sx, sy))
        return fail(c, ERROR_INVALID_ARGUMENT,
                    "action \"%s\": %s [%g, %g] is outside the screen: the model's space is "
                    "%dx%d (x 0-%d, y 0-%d; screenshots of this size, scale %.4g)",
                    c->plan->asked, field, x, y, c->sp->model_width, c->sp->model_height,
                    c->sp->model_width - 1, c->sp->model_height - 1, c->sp->scale);
    return true;
}

static bool coord_of(struct ctx *c, const char *field, int *sx, int *sy)
{
    const json_t *a = json_object_get(c->args, field);
    return map(c, field, json_number_value(json_array_get(a, 0)),
               json_number_value(json_array_get(a, 1)), sx, sy);
}

/* Modifiers named by text held around the steps added after this. */
static bool hold_mods(struct ctx *c)
{
    const char *text = json_string_value(json_object_get(c->args, "text"));
    if (!text)
        return true;
    unsigned mods;
    char *why = NULL;
    if (!input_keys_parse_mods("text", text, &mods, &why)) {
        fail(c, ERROR_INVALID_ARGUMENT,
             "action \"%s\": text names the modifiers held during it: %s", c->plan->asked, why);
        free(why);
        return false;
    }
    add(c->plan, BACKEND_OP(key_hold), json_pack("{s:s, s:s}", "key", text, "state", "down"));
    return true;
}

static void release_mods(struct ctx *c)
{
    const char *text = json_string_value(json_object_get(c->args, "text"));
    if (text)
        add(c->plan, BACKEND_OP(key_hold), json_pack("{s:s, s:s}", "key", text, "state", "up"))
            ->cleanup = true;
}

static bool click(struct ctx *c, const char *button, int count, bool has_point, int x, int y)
{
    if (!hold_mods(c))
        return false;
    /* Where the pointer is, read first, when no point is given. */
    if (!has_point)
        add(c->plan, BACKEND_OP(pointer), json_pack("{s:s}", "action", "where"));
    json_t *a = json_pack("{s:s, s:i}", "button", button, "count", count);
    if (has_point) {
        json_object_set_new(a, "x", json_integer(x));
        json_object_set_new(a, "y", json_integer(y));
    }
    struct computer_step *s = add(c->plan, BACKEND_OP(click), a);
    s->main = true;
    s->at_pointer = !has_point;
    release_mods(c);
    return true;
}

static bool anthropic_click(struct ctx *c)
{
    const char *a = c->plan->action;
    const char *button = !strcmp(a, "right_click")    ? "right"
                         : !strcmp(a, "middle_click") ? "middle"
                                                      : "left";
    int count = !strcmp(a, "double_click") ? 2 : !strcmp(a, "triple_click") ? 3 : 1;
    int x = 0, y = 0;
    bool has = json_object_get(c->args, "coordinate") != NULL;
    if (has && !coord_of(c, "coordinate", &x, &y))
        return false;
    return click(c, button, count, has, x, y);
}

static bool nothing(struct ctx *c)
{
    (void)c;
    return true;
}

static bool zoom(struct ctx *c)
{
    const json_t *r = json_object_get(c->args, "region");
    double v[4];
    for (int i = 0; i < 4; i++)
        v[i] = json_number_value(json_array_get(r, (size_t)i));
    if (!c->sp)
        return map(c, "region", 0, 0, NULL, NULL);
    if (v[0] >= v[2] || v[1] >= v[3] || v[0] < 0 || v[1] < 0 || v[2] > c->sp->model_width ||
        v[3] > c->sp->model_height)
        return fail(c, ERROR_INVALID_ARGUMENT,
                    "action \"zoom\": region [%g, %g, %g, %g] must be [x0, y0, x1, y1] with "
                    "x0 < x1 <= %d and y0 < y1 <= %d (the model's space is %dx%d)",
                    v[0], v[1], v[2], v[3], c->sp->model_width, c->sp->model_height,
                    c->sp->model_width, c->sp->model_height);
    int x0 = (int)floor(v[0] / c->sp->scale), y0 = (int)floor(v[1] / c->sp->scale);
    int x1 = (int)ceil(v[2] / c->sp->scale), y1 = (int)ceil(v[3] / c->sp->scale);
    x1 = x1 > c->sp->width ? c->sp->width : x1;
    y1 = y1 > c->sp->height ? c->sp->height : y1;
    c->plan->zoom = true;
    c->plan->region[0] = x0;
    c->plan->region[1] = y0;
    c->plan->region[2] = x1 - x0 > 0 ? x1 - x0 : 1;
    c->plan->region[3] = y1 - y0 > 0 ? y1 - y0 : 1;
    return true;
}

static bool pointer_step(struct ctx *c, const char *what, bool has, int x, int y)
{
    json_t *a = json_pack("{s:s, s:s}", "action", what, "button", "left");
    if (has) {
        json_object_set_new(a, "x", json_integer(x));
        json_object_set_new(a, "y", json_integer(y));
    }
    add(c->plan, BACKEND_OP(pointer), a)->main = true;
    return true;
}

static bool mouse_move(struct ctx *c)
{
    int x, y;
    return coord_of(c, "coordinate", &x, &y) && pointer_step(c, "move", true, x, y);
}

static bool mouse_button(struct ctx *c)
{
    int x = 0, y = 0;
    bool has = json_object_get(c->args, "coordinate") != NULL;
    if (has && !coord_of(c, "coordinate", &x, &y))
        return false;
    return pointer_step(c, strcmp(c->plan->action, "left_mouse_down") ? "up" : "down", has, x, y);
}

static void add_drag(struct ctx *c, int x0, int y0, int x1, int y1)
{
    add(c->plan, BACKEND_OP(drag),
        json_pack("{s:{s:i, s:i}, s:{s:i, s:i}, s:s}", "from", "x", x0, "y", y0, "to", "x", x1, "y",
                  y1, "button", "left"))
        ->main = true;
}

static bool left_click_drag(struct ctx *c)
{
    int x0, y0, x1, y1;
    if (!coord_of(c, "start_coordinate", &x0, &y0) || !coord_of(c, "coordinate", &x1, &y1))
        return false;
    add_drag(c, x0, y0, x1, y1);
    return true;
}

static void add_scroll(struct ctx *c, const char *dir, int amount, bool has, int x, int y)
{
    json_t *a = json_pack("{s:s, s:i}", "direction", dir, "amount", amount);
    if (has) {
        json_object_set_new(a, "x", json_integer(x));
        json_object_set_new(a, "y", json_integer(y));
    }
    add(c->plan, BACKEND_OP(scroll), a)->main = true;
}

static bool scroll(struct ctx *c)
{
    int x = 0, y = 0;
    bool has = json_object_get(c->args, "coordinate") != NULL;
    if (has && !coord_of(c, "coordinate", &x, &y))
        return false;
    if (!hold_mods(c))
        return false;
    add_scroll(c, json_string_value(json_object_get(c->args, "scroll_direction")),
               (int)json_integer_value(json_object_get(c->args, "scroll_amount")), has, x, y);
    release_mods(c);
    return true;
}

static bool type(struct ctx *c)
{
    add(c->plan, BACKEND_OP(type_text),
        json_pack("{s:O}", "text", json_object_get(c->args, "text")))
        ->main = true;
    return true;
}

/* One chord: pressed, or for modifiers alone held and let go. */
static bool add_chord(struct ctx *c, const char *chord, const char *field)
{
    unsigned mods;
    struct input_key key;
    char *why = NULL;
    if (input_keys_parse_mods(field, chord, &mods, NULL)) {
        add(c->plan, BACKEND_OP(key_hold), json_pack("{s:s, s:s}", "key", chord, "state", "down"))
            ->main = true;
        add(c->plan, BACKEND_OP(key_hold), json_pack("{s:s, s:s}", "key", chord, "state", "up"))
            ->cleanup = true;
        return true;
    }
    if (!input_keys_parse(field, chord, &key, &why)) {
        fail(c, ERROR_INVALID_ARGUMENT, "action \"%s\": %s", c->plan->asked, why);
        free(why);
        return false;
    }
    add(c->plan, BACKEND_OP(press_key), json_pack("{s:s}", "key", chord))->main = true;
    return true;
}

/* xdotool key syntax: chords separated by spaces, pressed one after another. */
static bool key(struct ctx *c)
{
    const char *text = json_string_value(json_object_get(c->args, "text"));
    char *copy = xstrdup(text), *save = NULL;
    bool ok = true, any = false;
    for (char *t = strtok_r(copy, " ", &save); ok && t; t = strtok_r(NULL, " ", &save)) {
        ok = add_chord(c, t, "text");
        any = true;
    }
    /* A lone space is the space key. */
    if (ok && !any)
        ok = add_chord(c, text, "text");
    free(copy);
    return ok;
}

static bool hold_key(struct ctx *c)
{
    const char *text = json_string_value(json_object_get(c->args, "text"));
    struct input_key k;
    unsigned mods;
    char *why = NULL;
    if (!input_keys_parse_mods("text", text, &mods, NULL) &&
        !input_keys_parse("text", text, &k, &why)) {
        fail(c, ERROR_INVALID_ARGUMENT, "action \"hold_key\": %s", why);
        free(why);
        return false;
    }
    add(c->plan, BACKEND_OP(key_hold), json_pack("{s:s, s:s}", "key", text, "state", "down"))
        ->main = true;
    add_wait(c->plan, (int)lround(json_number_value(json_object_get(c->args, "duration")) * 1000));
    add(c->plan, BACKEND_OP(key_hold), json_pack("{s:s, s:s}", "key", text, "state", "up"))
        ->cleanup = true;
    return true;
}

static bool wait(struct ctx *c)
{
    add_wait(c->plan, (int)lround(json_number_value(json_object_get(c->args, "duration")) * 1000));
    return true;
}

static bool cursor_position(struct ctx *c)
{
    if (!c->sp)
        return map(c, "the pointer", 0, 0, NULL, NULL);
    c->plan->position = true;
    return true;
}

/* OpenAI's shapes. */

static bool xy_of(struct ctx *c, int *sx, int *sy)
{
    return map(c, "x,y", json_number_value(json_object_get(c->args, "x")),
               json_number_value(json_object_get(c->args, "y")), sx, sy);
}

static bool oa_click(struct ctx *c)
{
    const char *b = json_string_value(json_object_get(c->args, "button"));
    if (!b)
        b = "left";
    if (!strcmp(b, "wheel"))
        b = "middle";
    if (strcmp(b, "left") && strcmp(b, "right") && strcmp(b, "middle"))
        return fail(c, ERROR_NOT_SUPPORTED,
                    "type \"click\": button \"%s\" is not supported (left, right, wheel)", b);
    int x, y;
    return xy_of(c, &x, &y) &&
           click(c, b, strcmp(c->plan->action, "double_click") ? 1 : 2, true, x, y);
}

static bool oa_move(struct ctx *c)
{
    int x, y;
    return xy_of(c, &x, &y) && pointer_step(c, "move", true, x, y);
}

static bool oa_drag(struct ctx *c)
{
    const json_t *path = json_object_get(c->args, "path");
    size_t n = json_array_size(path);
    if (n < 2 || n > COMPUTER_MAX_PATH)
        return fail(c, ERROR_INVALID_ARGUMENT,
                    "type \"drag\": path needs 2 to %d points {x, y}, got %zu", COMPUTER_MAX_PATH,
                    n);
    int xs[COMPUTER_MAX_PATH], ys[COMPUTER_MAX_PATH];
    for (size_t i = 0; i < n; i++) {
        const json_t *p = json_array_get(path, i);
        char field[32];
        snprintf(field, sizeof field, "path[%zu]", i);
        if (!map(c, field, json_number_value(json_object_get(p, "x")),
                 json_number_value(json_object_get(p, "y")), &xs[i], &ys[i]))
            return false;
    }
    if (n == 2) {
        add_drag(c, xs[0], ys[0], xs[1], ys[1]);
        return true;
    }
    /* Through every point: press at the first, release at the last. */
    pointer_step(c, "down", true, xs[0], ys[0]);
    for (size_t i = 1; i + 1 < n; i++)
        pointer_step(c, "move", true, xs[i], ys[i]);
    pointer_step(c, "up", true, xs[n - 1], ys[n - 1]);
    c->plan->steps[c->plan->n - 1].cleanup = true;
    return true;
}

static bool oa_keypress(struct ctx *c)
{
    const json_t *keys = json_object_get(c->args, "keys");
    struct strbuf b;
    strbuf_init(&b);
    size_t i;
    const json_t *k;
    json_array_foreach(keys, i, k)
    {
        strbuf_printf(&b, "%s%s", i ? "+" : "", json_string_value(k));
    }
    char *chord = strbuf_steal(&b);
    bool ok = add_chord(c, chord, "keys");
    free(chord);
    return ok;
}

/* Wheel clicks for OpenAI's pixels: one per 100 pixels, at least one. */
static int clicks_of(double px)
{
    int n = (int)lround(fabs(px) / 100);
    return n < 1 ? 1 : n > 100 ? 100 : n;
}

static bool oa_scroll(struct ctx *c)
{
    int x = 0, y = 0;
    bool has = json_object_get(c->args, "x") != NULL;
    if (has && !xy_of(c, &x, &y))
        return false;
    double sx = json_number_value(json_object_get(c->args, "scroll_x"));
    double sy = json_number_value(json_object_get(c->args, "scroll_y"));
    if (sy != 0)
        add_scroll(c, sy > 0 ? "down" : "up", clicks_of(sy), has, x, y);
    if (sx != 0)
        add_scroll(c, sx > 0 ? "right" : "left", clicks_of(sx), has, x, y);
    return true;
}

static bool oa_wait(struct ctx *c)
{
    add_wait(c->plan, 1000);
    return true;
}

#define CLICK_FIELDS (F_COORD | F_TEXT)
static const struct verb anthropic[] = {
    {"screenshot", 0, 0, &tool_screenshot, NO_SETTLE, nothing},
    {"zoom", F_REGION, 0, &tool_screenshot, NO_SETTLE, zoom},
    {"mouse_move", F_COORD, 0, &tool_click, SETTLE_POINTER, mouse_move},
    {"left_click", 0, CLICK_FIELDS, &tool_click, SETTLE_INPUT, anthropic_click},
    {"right_click", 0, CLICK_FIELDS, &tool_click, SETTLE_INPUT, anthropic_click},
    {"middle_click", 0, CLICK_FIELDS, &tool_click, SETTLE_INPUT, anthropic_click},
    {"double_click", 0, CLICK_FIELDS, &tool_click, SETTLE_INPUT, anthropic_click},
    {"triple_click", 0, CLICK_FIELDS, &tool_click, SETTLE_INPUT, anthropic_click},
    {"left_click_drag", F_START | F_COORD, 0, &tool_drag, SETTLE_INPUT, left_click_drag},
    {"left_mouse_down", 0, F_COORD, &tool_click, SETTLE_BUTTON, mouse_button},
    {"left_mouse_up", 0, F_COORD, &tool_click, SETTLE_BUTTON, mouse_button},
    {"scroll", F_DIR | F_AMOUNT, F_COORD | F_TEXT, &tool_scroll, SETTLE_INPUT, scroll},
    {"type", F_TEXT, 0, &tool_type_text, SETTLE_INPUT, type},
    {"key", F_TEXT, 0, &tool_press_key, SETTLE_INPUT, key},
    {"hold_key", F_TEXT | F_DURATION, 0, &tool_press_key, SETTLE_INPUT, hold_key},
    {"wait", F_DURATION, 0, &tool_screenshot, NO_SETTLE, wait},
    {"cursor_position", 0, 0, &tool_screenshot, NO_SETTLE, cursor_position},
};

static const struct verb openai[] = {
    {"click", F_X | F_Y, F_BUTTON, &tool_click, SETTLE_INPUT, oa_click},
    {"double_click", F_X | F_Y, 0, &tool_click, SETTLE_INPUT, oa_click},
    {"drag", F_PATH, 0, &tool_drag, SETTLE_INPUT, oa_drag},
    {"keypress", F_KEYS, 0, &tool_press_key, SETTLE_INPUT, oa_keypress},
    {"move", F_X | F_Y, 0, &tool_click, SETTLE_POINTER, oa_move},
    {"scroll", F_SCROLL_X | F_SCROLL_Y, F_X | F_Y, &tool_scroll, SETTLE_INPUT, oa_scroll},
    {"type", F_TEXT, 0, &tool_type_text, SETTLE_INPUT, type},
    {"wait", 0, 0, &tool_screenshot, NO_SETTLE, oa_wait},
    {"screenshot", 0, 0, &tool_screenshot, NO_SETTLE, nothing},
};

#define COUNT(a) (sizeof(a) / sizeof *(a))

/* The verb args name, of the shape they use; *shape is "action" or "type". */
static const struct verb *verb_of(const json_t *args, const char **shape, const char **name)
{
    const json_t *action = json_object_get(args, "action");
    const struct verb *table = action ? anthropic : openai;
    size_t n = action ? COUNT(anthropic) : COUNT(openai);
    *shape = action ? "action" : "type";
    *name = json_string_value(action ? action : json_object_get(args, "type"));
    for (size_t i = 0; *name && i < n; i++)
        if (!strcmp(table[i].name, *name))
            return &table[i];
    return NULL;
}

const struct tool *computer_policy_as(const json_t *args)
{
    const char *shape, *name;
    const struct verb *v = verb_of(args, &shape, &name);
    return v ? v->as : NULL;
}

static void list_fields(struct strbuf *b, unsigned set)
{
    bool first = true;
    for (int i = 0; i < N_FIELDS; i++)
        if (set & (1u << i)) {
            strbuf_printf(b, "%s%s", first ? "" : ", ", field_names[i]);
            first = false;
        }
    if (first)
        strbuf_puts(b, "nothing else");
}

static bool check_fields(struct ctx *c, const struct verb *v, const char *shape)
{
    const char *k;
    const json_t *val;
    unsigned have = 0;
    json_object_foreach((json_t *)c->args, k, val)
    {
        if (common_field(k))
            continue;
        int i = 0;
        while (i < N_FIELDS && strcmp(field_names[i], k))
            i++;
        unsigned bit = 1u << i;
        if (i == N_FIELDS || !((v->required | v->optional) & bit)) {
            struct strbuf b;
            strbuf_init(&b);
            list_fields(&b, v->required | v->optional);
            fail(c, ERROR_INVALID_ARGUMENT, "%s \"%s\" does not take \"%s\" (it takes: %s)", shape,
                 v->name, k, b.data);
            strbuf_finish(&b);
            return false;
        }
        have |= bit;
    }
    unsigned missing = v->required & ~have;
    if (missing) {
        struct strbuf b;
        strbuf_init(&b);
        list_fields(&b, missing);
        fail(c, ERROR_INVALID_ARGUMENT, "%s \"%s\" needs %s", shape, v->name, b.data);
        strbuf_finish(&b);
        return false;
    }
    return true;
}

/* Whether impl can run every step, else why not (which action, which kind). */
static bool supported(struct ctx *c, const struct backend_impl *impl)
{
    for (size_t i = 0; i < c->plan->n; i++) {
        size_t op = c->plan->steps[i].op;
        if (op && !*(const backend_op *)((const char *)impl + op))
            return fail(c, ERROR_NOT_SUPPORTED, "action \"%s\" is not supported by %s sessions%s",
                        c->plan->asked, impl->kind,
                        impl->pointer ? "" : " (they take type, key and screenshot)");
    }
    if (!impl->screenshot)
        return fail(c, ERROR_NOT_SUPPORTED, "%s sessions have no screenshots", impl->kind);
    return true;
}

bool computer_plan_make(const json_t *args, const struct computer_space *sp,
                        const struct backend_impl *impl, struct computer_plan *plan, int *code,
                        char **err)
{
    *plan = (struct computer_plan){0};
    struct ctx c = {
        .args = args, .kind = impl->kind, .sp = sp, .plan = plan, .code = code, .err = err};
    bool has_action = json_object_get(args, "action"), has_type = json_object_get(args, "type");
    if (has_action == has_type)
        return fail(&c, ERROR_INVALID_ARGUMENT,
                    has_action ? "give action (computer_20251124) or type (OpenAI's computer "
                                 "use), not both"
                               : "give action: one of screenshot, zoom, mouse_move, left_click, "
                                 "right_click, middle_click, double_click, triple_click, "
                                 "left_click_drag, left_mouse_down, left_mouse_up, scroll, type, "
                                 "key, hold_key, wait, cursor_position (or OpenAI's type)");
    const char *shape, *name;
    const struct verb *v = verb_of(args, &shape, &name);
    if (!v) {
        struct strbuf b;
        strbuf_init(&b);
        const struct verb *t = has_action ? anthropic : openai;
        size_t n = has_action ? COUNT(anthropic) : COUNT(openai);
        for (size_t i = 0; i < n; i++)
            strbuf_printf(&b, "%s%s", i ? ", " : "", t[i].name);
        fail(&c, ERROR_INVALID_ARGUMENT, "unknown %s \"%s\"; valid: %s", shape, name ? name : "",
             b.data);
        strbuf_finish(&b);
        return false;
    }
    plan->asked = v->name;
    /* OpenAI's names for Anthropic's actions, for results and the audit. */
    plan->action = has_action                     ? v->name
                   : !strcmp(v->name, "click")    ? "left_click"
                   : !strcmp(v->name, "drag")     ? "left_click_drag"
                   : !strcmp(v->name, "keypress") ? "key"
                   : !strcmp(v->name, "move")     ? "mouse_move"
                                                  : v->name;
    plan->as = v->as;
    if (v->settle_ms != NO_SETTLE) {
        const json_t *given = json_object_get(args, "settle_ms");
        plan->settle_ms = given ? (int)json_integer_value(given) : SETTLE_DEFAULT_MS;
        plan->quiet_ms = given || v->settle_ms == SETTLE_INPUT ? plan->settle_ms
                         : v->settle_ms == SETTLE_BUTTON       ? QUIET_BUTTON_MS
                                                               : 0;
        if (plan->quiet_ms > plan->settle_ms)
            plan->quiet_ms = plan->settle_ms;
    }
    if (!check_fields(&c, v, shape) || !v->build(&c) || !supported(&c, impl)) {
        computer_plan_finish(plan);
        return false;
    }
    return true;
}

void computer_plan_finish(struct computer_plan *plan)
{
    for (size_t i = 0; i < plan->n; i++)
        json_decref(plan->steps[i].args);
    free(plan->steps);
    plan->steps = NULL;
    plan->n = plan->cap = 0;
}
