/* What is on a device's screen, from uiautomator's window dump: elements
 * with refs (snapshot, find), the text (read_text). Each call dumps afresh
 * (the screen may have changed); the refs of the latest snapshot or find
 * are kept on the session for click and type_text. The dump is bounded
 * (ANDROID_MAX_TEXT, UIXML_MAX_NODES) and parsed on the loop: a few
 * hundred microseconds for a phone screen. */
#include "backend/android/perceive.h"
#include "backend/android/internal.h"
#include "backend/android/uixml.h"
#include "backend/mirror.h"
#include "core/args.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DUMP_CMD "uiautomator dump /dev/tty"

static const char *role_of(const char *cls)
{
    static const struct {
        const char *suffix, *role;
    } roles[] = {
        {".EditText", "text"},
        {".AutoCompleteTextView", "text"},
        {".Button", "push button"},
        {".ImageButton", "push button"},
        {".CheckBox", "check box"},
        {".CheckedTextView", "check box"},
        {".RadioButton", "radio button"},
        {".Switch", "toggle button"},
        {".ToggleButton", "toggle button"},
        {".TextView", "label"},
        {".ImageView", "image"},
        {".ProgressBar", "progress bar"},
        {".SeekBar", "slider"},
        {".Spinner", "combo box"},
        {".WebView", "document web"},
        {".ListView", "list"},
        {".RecyclerView", "list"},
        {".ScrollView", "scroll pane"},
    };
    size_t n = strlen(cls);
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++) {
        size_t m = strlen(roles[i].suffix);
        if (n >= m && strcmp(cls + n - m, roles[i].suffix) == 0)
            return roles[i].role;
    }
    return NULL;
}

static const char *name_of(const struct ui_node *u)
{
    return u->text[0] ? u->text : u->desc;
}

/* Worth a ref: it says something, or it can be acted on. */
static bool meaningful(const struct ui_node *u)
{
    if (!u->has_bounds || u->x2 <= u->x1 || u->y2 <= u->y1)
        return false;
    return u->text[0] || u->desc[0] || u->clickable || u->checkable || u->scrollable ||
           u->password || (role_of(u->cls) && strcmp(role_of(u->cls), "text") == 0);
}

static json_t *element_json(const struct ui_node *u, size_t ref)
{
    const char *role = role_of(u->cls);
    char *fallback = NULL;
    if (!role) {
        const char *dot = strrchr(u->cls, '.');
        fallback = xstrdup(dot ? dot + 1 : u->cls[0] ? u->cls : "view");
        for (char *p = fallback; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        role = fallback;
    }
    json_t *states = json_array();
    if (u->enabled)
        json_array_append_new(states, json_string("enabled"));
    if (u->focused)
        json_array_append_new(states, json_string("focused"));
    if (u->password)
        json_array_append_new(states, json_string("password"));
    if (u->checkable)
        json_array_append_new(states, json_string("checkable"));
    if (u->checked)
        json_array_append_new(states, json_string("checked"));
    if (u->selected)
        json_array_append_new(states, json_string("selected"));
    if (u->clickable)
        json_array_append_new(states, json_string("clickable"));
    if (u->scrollable)
        json_array_append_new(states, json_string("scrollable"));
    char refname[16];
    snprintf(refname, sizeof refname, "e%zu", ref);
    json_t *o =
        json_pack("{s:s, s:s, s:s, s:o, s:{s:i, s:i, s:i, s:i}, s:s}", "ref", refname, "role", role,
                  "name", name_of(u), "states", states, "bounds", "x", u->x1, "y", u->y1, "width",
                  u->x2 - u->x1, "height", u->y2 - u->y1, "class", u->cls);
    if (u->resource_id[0])
        json_object_set_new(o, "resource_id", json_string(u->resource_id));
    if (u->desc[0] && u->text[0])
        json_object_set_new(o, "description", json_string(u->desc));
    free(fallback);
    return o;
}

void android_refs_clear(struct android *a)
{
    for (size_t i = 0; i < a->n_refs; i++) {
        free(a->refs[i].package);
        free(a->refs[i].cls);
        free(a->refs[i].resource_id);
        free(a->refs[i].name);
    }
    free(a->refs);
    a->refs = NULL;
    a->n_refs = 0;
}

static int by_resource_id(const void *x, const void *y)
{
    const struct android_ref *const *p = x, *const *q = y;
    return strcmp((*p)->resource_id, (*q)->resource_id);
}

/* A resource id shared by several elements (the rows of a list) does not
 * say which one: their names tell them apart. Sorted, not compared pair by
 * pair: a dump may have thousands of nodes. */
static void name_shared_ids(struct android *a, const struct ui_tree *t, const size_t *node_of)
{
    struct android_ref **by_id = xcalloc(a->n_refs + 1, sizeof *by_id);
    size_t n = 0;
    for (size_t i = 0; i < a->n_refs; i++)
        if (a->refs[i].resource_id[0])
            by_id[n++] = &a->refs[i];
        else {
            a->refs[i].name = xstrdup(name_of(&t->nodes[node_of[i]]));
            a->refs[i].by_bounds = !a->refs[i].name[0];
        }
    qsort(by_id, n, sizeof *by_id, by_resource_id);
    for (size_t i = 0; i < n; i++) {
        bool shared = (i > 0 && by_resource_id(&by_id[i], &by_id[i - 1]) == 0) ||
                      (i + 1 < n && by_resource_id(&by_id[i], &by_id[i + 1]) == 0);
        if (shared)
            by_id[i]->name = xstrdup(name_of(&t->nodes[node_of[by_id[i] - a->refs]]));
    }
    free(by_id);
}

/* Refs for the meaningful nodes of t, kept on the session; their elements. */
static json_t *elements(struct android *a, const struct ui_tree *t)
{
    json_t *arr = json_array();
    android_refs_clear(a);
    a->refs = xcalloc(t->n + 1, sizeof *a->refs);
    size_t *node_of = xcalloc(t->n + 1, sizeof *node_of);
    for (size_t i = 0; i < t->n; i++) {
        const struct ui_node *u = &t->nodes[i];
        if (!meaningful(u))
            continue;
        node_of[a->n_refs] = i;
        a->refs[a->n_refs] = (struct android_ref){.x = u->x1,
                                                  .y = u->y1,
                                                  .w = u->x2 - u->x1,
                                                  .h = u->y2 - u->y1,
                                                  .package = xstrdup(u->package),
                                                  .cls = xstrdup(u->cls),
                                                  .resource_id = xstrdup(u->resource_id)};
        json_array_append_new(arr, element_json(u, ++a->n_refs));
    }
    name_shared_ids(a, t, node_of);
    free(node_of);
    return arr;
}

bool android_ref_is(const struct android_ref *r, const struct ui_node *u)
{
    return u->has_bounds && u->x2 > u->x1 && u->y2 > u->y1 && strcmp(u->package, r->package) == 0 &&
           strcmp(u->cls, r->cls) == 0 && strcmp(u->resource_id, r->resource_id) == 0 &&
           (!r->name || strcmp(name_of(u), r->name) == 0) &&
           (!r->by_bounds ||
            (u->x1 == r->x && u->y1 == r->y && u->x2 - u->x1 == r->w && u->y2 - u->y1 == r->h));
}

const struct android_ref *android_ref_lookup(struct backend_call *bc, const char *ref,
                                             const char *prefix)
{
    struct android *a = android_of(bc->session);
    long i = strtol(ref + 1, NULL, 10);
    if (i < 1 || (size_t)i > a->n_refs) {
        backend_call_fail_code(bc, ERROR_NOT_FOUND,
                               "%sref: %s is not an element of the latest snapshot or find (%s); "
                               "take a snapshot and use its refs",
                               prefix, ref, a->n_refs ? "it has e1…" : "there was none");
        return NULL;
    }
    return &a->refs[i - 1];
}

void android_ref_copy(struct android_ref *to, const struct android_ref *from)
{
    *to = *from;
    to->package = xstrdup(from->package);
    to->cls = xstrdup(from->cls);
    to->resource_id = xstrdup(from->resource_id);
    to->name = from->name ? xstrdup(from->name) : NULL;
}

void android_ref_finish(struct android_ref *r)
{
    free(r->package);
    free(r->cls);
    free(r->resource_id);
    free(r->name);
}

const char *android_node_name(const struct ui_node *u)
{
    return name_of(u);
}

/* The dump's reply parsed; false when bc was answered with why. */
static bool dumped(struct backend_call *bc, const struct adb_reply *r, struct ui_tree *t)
{
    if (android_step_failed(bc, r, "read the screen with uiautomator"))
        return false;
    char *err = NULL;
    if (!uixml_parse((const char *)r->out, r->out_len, t, &err)) {
        backend_call_fail(bc, "cannot read the screen: %s", err);
        free(err);
        return false;
    }
    return true;
}

static void outline_line(struct strbuf *sb, const json_t *e)
{
    mirror_element(sb, e);
    strbuf_putc(sb, '\n');
}

static void snapshot_dumped(struct backend_call *bc, const struct adb_reply *r)
{
    struct ui_tree t;
    if (!dumped(bc, r, &t))
        return;
    struct android *a = android_of(bc->session);
    json_t *els = elements(a, &t);
    uixml_free(&t);
    struct strbuf outline = {0};
    size_t i;
    json_t *e;
    json_array_foreach(els, i, e) outline_line(&outline, e);
    size_t n = json_array_size(els);
    json_t *out = json_pack("{s:s, s:s, s:o, s:I, s:s}", "session", bc->session->id, "kind",
                            "android", "elements", els, "count", (json_int_t)n, "outline",
                            outline.data ? outline.data : "");
    backend_call_done(bc, out, "%zu elements\n%s", n, outline.data ? outline.data : "");
    strbuf_finish(&outline);
}

void android_snapshot_op(struct backend_call *bc)
{
    android_run(bc, ADB_SHELL_V2, DUMP_CMD, ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, snapshot_dumped);
}

bool android_element_matches(const json_t *e, const char *text, const char *role, bool exact)
{
    if (role && strcasecmp(json_string_value(json_object_get(e, "role")), role) != 0)
        return false;
    if (!text)
        return true;
    const char *fields[] = {"name", "description", "resource_id"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const char *v = json_string_value(json_object_get(e, fields[i]));
        if (!v)
            continue;
        if (exact ? strcmp(v, text) == 0 : strcasestr(v, text) != NULL)
            return true;
    }
    return false;
}

bool android_no_hierarchy(const struct adb_reply *r)
{
    return r->ok && (r->exit_code != 0 || !memmem(r->out, r->out_len, "<hierarchy", 10));
}

static void find_dumped(struct backend_call *bc, const struct adb_reply *r)
{
    struct ui_tree t;
    enum error_code code;
    char *err = NULL;
    /* No hierarchy (an animating screen, a game): the pixels, as read_text. */
    if (android_no_hierarchy(r) && args_string(bc->args, "text", NULL) &&
        !args_string(bc->args, "role", NULL) && android_ocr_usable(bc, &code, &err)) {
        android_find_ocr(bc);
        return;
    }
    free(err);
    err = NULL;
    if (!dumped(bc, r, &t))
        return;
    struct android *a = android_of(bc->session);
    json_t *els = elements(a, &t);
    uixml_free(&t);
    const char *text = args_string(bc->args, "text", NULL);
    const char *role = args_string(bc->args, "role", NULL);
    bool exact = args_bool(bc->args, "exact", false);
    size_t limit = (size_t)args_int(bc->args, "limit", 20);
    json_t *matches = json_array();
    struct strbuf sb = {0};
    size_t i;
    json_t *e;
    json_array_foreach(els, i, e)
    {
        if (json_array_size(matches) >= limit)
            break;
        if (!android_element_matches(e, text, role, exact))
            continue;
        json_object_set_new(e, "source", json_string("accessibility"));
        json_array_append(matches, e);
        outline_line(&sb, e);
    }
    json_decref(els);
    size_t n = json_array_size(matches);
    /* Text no element has may be in the pixels (a game, a canvas, an
     * image): as desktops, OCR then, when it is built and installed. */
    if (n == 0 && text && !role && android_ocr_usable(bc, &code, &err)) {
        json_decref(matches);
        strbuf_finish(&sb);
        android_find_ocr(bc);
        return;
    }
    free(err);
    json_t *out = json_pack("{s:s, s:s, s:I, s:o}", "session", bc->session->id, "source",
                            "accessibility", "count", (json_int_t)n, "matches", matches);
    backend_call_done(bc, out, "%zu matches\n%s", n, sb.data ? sb.data : "");
    strbuf_finish(&sb);
}

void android_find_op(struct backend_call *bc)
{
    android_run(bc, ADB_SHELL_V2, DUMP_CMD, ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, find_dumped);
}

/* uiautomator had nothing: OCR instead when it can, else false. */
static bool ocr_instead(struct backend_call *bc, const char *why)
{
    char *err = NULL;
    enum error_code code;
    if (!android_ocr_usable(bc, &code, &err)) {
        free(err);
        return false;
    }
    android_read_ocr(bc, why);
    return true;
}

static void text_dumped(struct backend_call *bc, const struct adb_reply *r)
{
    struct ui_tree t;
    if (android_no_hierarchy(r)) {
        char *why = xasprintf("uiautomator gave no window hierarchy: %.200s",
                              r->err_len ? (const char *)r->err : (const char *)r->out);
        why[strcspn(why, "\r\n")] = 0;
        char *tail = strstr(why, "UI hierchary dumped to");
        if (tail)
            *tail = 0;
        bool done = ocr_instead(bc, why);
        free(why);
        if (done)
            return;
    }
    if (!dumped(bc, r, &t))
        return;
    json_t *lines = json_array();
    struct strbuf sb = {0};
    for (size_t i = 0; i < t.n; i++) {
        const struct ui_node *u = &t.nodes[i];
        const char *s = name_of(u);
        if (!s[0])
            continue;
        json_array_append_new(lines, json_string(s));
        if (sb.len)
            strbuf_putc(&sb, '\n');
        strbuf_puts(&sb, s);
    }
    uixml_free(&t);
    if (json_array_size(lines) == 0 &&
        ocr_instead(bc, "the window has no text for uiautomator (a game, a canvas, a video)")) {
        json_decref(lines);
        return;
    }
    const char *text = sb.data ? sb.data : "";
    json_t *out = json_pack("{s:s, s:s, s:o, s:s}", "session", bc->session->id, "text", text,
                            "lines", lines, "source", "accessibility");
    backend_call_done(bc, out, "%s", text);
    strbuf_finish(&sb);
}

void android_read_text_op(struct backend_call *bc)
{
    for (const char *const *f = (const char *const[]){"ref", "scrollback", "app", "window", NULL};
         *f; f++)
        if (json_object_get(bc->args, *f)) {
            backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                                   "cannot read text: \"%s\" is not supported on android sessions",
                                   *f);
            return;
        }
    if (args_bool(bc->args, "ocr", false) || json_object_get(bc->args, "region")) {
        char *err = NULL;
        enum error_code code;
        if (!android_ocr_usable(bc, &code, &err)) {
            backend_call_fail_code(bc, code, "cannot read text by OCR: %s", err);
            free(err);
            return;
        }
        android_read_ocr(bc, NULL);
        return;
    }
    android_run(bc, ADB_SHELL_V2, DUMP_CMD, ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, text_dumped);
}

void android_no_text(struct backend_call *bc, const char *text, const char *role, bool ocr)
{
    backend_call_fail_code(bc, ERROR_NOT_FOUND,
                           "text: no element on the screen has the text \"%s\"%s%s%s; "
                           "snapshot shows what there is",
                           text, role ? " and role " : "", role ? role : "",
                           ocr ? ", and OCR did not read it in the pixels" : "");
}

bool android_find_target(struct backend_call *bc, const struct adb_reply *r, const char *text,
                         const char *role, bool exact, struct android_ref *out, bool *missing)
{
    struct ui_tree t;
    if (!dumped(bc, r, &t))
        return false;
    struct android *a = android_of(bc->session);
    json_t *els = elements(a, &t);
    uixml_free(&t);
    size_t i;
    json_t *e;
    bool found = false;
    json_array_foreach(els, i, e)
    {
        if (android_element_matches(e, text, role, exact)) {
            *out = a->refs[i];
            found = true;
            break;
        }
    }
    json_decref(els);
    if (!found && missing)
        *missing = true;
    else if (!found)
        android_no_text(bc, text, role, false);
    return found;
}
