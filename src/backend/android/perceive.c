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

/* Refs for the meaningful nodes of t, kept on the session; their elements. */
static json_t *elements(struct android *a, const struct ui_tree *t)
{
    json_t *arr = json_array();
    free(a->refs);
    a->refs = xcalloc(t->n + 1, sizeof *a->refs);
    a->n_refs = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct ui_node *u = &t->nodes[i];
        if (!meaningful(u))
            continue;
        a->refs[a->n_refs] = (struct android_ref){u->x1, u->y1, u->x2 - u->x1, u->y2 - u->y1};
        json_array_append_new(arr, element_json(u, ++a->n_refs));
    }
    return arr;
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

static void find_dumped(struct backend_call *bc, const struct adb_reply *r)
{
    struct ui_tree t;
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
    json_t *out = json_pack("{s:s, s:s, s:I, s:o}", "session", bc->session->id, "source",
                            "accessibility", "count", (json_int_t)n, "matches", matches);
    backend_call_done(bc, out, "%zu matches\n%s", n, sb.data ? sb.data : "");
    strbuf_finish(&sb);
}

void android_find_op(struct backend_call *bc)
{
    android_run(bc, ADB_SHELL_V2, DUMP_CMD, ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, find_dumped);
}

static void text_dumped(struct backend_call *bc, const struct adb_reply *r)
{
    struct ui_tree t;
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
    const char *text = sb.data ? sb.data : "";
    json_t *out = json_pack("{s:s, s:s, s:o, s:s}", "session", bc->session->id, "text", text,
                            "lines", lines, "source", "accessibility");
    backend_call_done(bc, out, "%s", text);
    strbuf_finish(&sb);
}

void android_read_text_op(struct backend_call *bc)
{
    android_run(bc, ADB_SHELL_V2, DUMP_CMD, ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, text_dumped);
}

bool android_find_target(struct backend_call *bc, const struct adb_reply *r, const char *text,
                         const char *role, bool exact, struct android_ref *out)
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
    if (!found)
        backend_call_fail_code(bc, ERROR_NOT_FOUND,
                               "text: no element on the screen has the text \"%s\"%s%s; "
                               "snapshot shows what there is",
                               text, role ? " and role " : "", role ? role : "");
    return found;
}
