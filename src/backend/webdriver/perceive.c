/* What is on a page: snapshot and find with refs, and the point of a ref
 * (or of an element found by text) for click and type_text. One script,
 * run in the page, walks the DOM — open shadow roots and same-origin
 * iframes included — and keeps the meaningful elements: those with a role
 * (explicit, or implied by the tag: links, buttons, fields, headings,
 * list items, images with alt text) and those with text of their own. It
 * stores them under their refs in the page (window.__glovebox_refs), so a
 * ref lives until the next snapshot or find, or until the page goes. The
 * value of a password field never leaves the page. */
#include "backend/webdriver/internal.h"
#include "backend/webdriver/outline.h"

#include "core/args.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

/* Elements a find looks through before it filters. */
#define FIND_SCAN 5000

/* arguments: [0] the most elements to return; [1] include hidden ones;
 * [2] a ref (scope) whose element alone is walked, or null for the page;
 * [3] the prefix of the refs ("" in the page, "f2" in frame f2); [4], [5]
 * the top-page position of this page's viewport and [6] the depth of its
 * elements (a cross-origin frame's: frames.c); [7] keep the refs the page
 * has (a scoped snapshot).
 * Returns, as JSON text, [[[ref, role, name, value, states, x, y, width,
 * height, depth]...], the number of meaningful elements seen, [[row
 * index, x, y, depth, frame number]...] of the iframes it could not look
 * into] — one
 * string is much cheaper for the driver to hand back than a few hundred
 * small arrays it would walk one by one (docs/BENCHMARKS.md, WebDriver) —
 * or "gone" when the scope's element is not on the page. Those iframes
 * are numbered from [8] on (a scoped snapshot keeps the numbers they had)
 * and kept in window.__glovebox_frames under their numbers (frames.c). A
 * page snapshot numbers its elements afresh (e1, e2, …); a scoped one
 * keeps the refs the page has, so the scope and every element an earlier
 * snapshot named keep their refs, and elements new to the page get
 * numbers after the highest one given. */
static const char SNAPSHOT_SCRIPT[] =
    "var max=arguments[0],hidden=arguments[1],scope=arguments[2],pre=arguments[3]||'',"
    "bx=arguments[4]||0,by=arguments[5]||0,base=arguments[6]||0,keep=arguments[7]||scope,"
    "nf=arguments[8]||1,fm=window.__glovebox_frames,"
    "refs=window.__glovebox_refs,out=[],total=0,xf=[],byEl=new Map(),next=0,se=null;"
    "if(keep&&refs){if(scope){se=refs.get(scope);if(!se||!se.isConnected)return 'gone';}"
    "refs.forEach(function(v,k){byEl.set(v,k);var n=+k.slice(k.lastIndexOf('e')+1);"
    "if(n>next)next=n;});}else if(scope)return 'gone';else{refs=new Map();"
    "window.__glovebox_refs=refs;}if(!keep||!fm){fm=new Map();window.__glovebox_frames=fm;}"
    "function refOf(e){var r=byEl.get(e);if(r)return r;r=pre+'e'+(++next);refs.set(r,e);"
    "byEl.set(e,r);return r;}"
    /* Where an iframe's page starts: inside its border and padding. */
    "function org(f){var r=f.getBoundingClientRect(),s=f.ownerDocument.defaultView."
    "getComputedStyle(f);return [r.left+f.clientLeft+parseFloat(s.paddingLeft),"
    "r.top+f.clientTop+parseFloat(s.paddingTop)];}"
    "function clean(s){return String(s||'').replace(/\\s+/g,' ').trim().slice(0,200);}"
    "function role(e){var r=e.getAttribute('role');if(r)return r.split(' ')[0];var t=e.tagName;"
    "if(t==='A')return e.hasAttribute('href')?'link':null;"
    "if(t==='BUTTON'||t==='SUMMARY')return 'button';"
    "if(t==='INPUT'){var y=(e.type||'text').toLowerCase();"
    "if(y==='hidden')return null;if(y==='checkbox')return 'checkbox';if(y==='radio')return 'radio';"
    "if(y==='range')return 'slider';if(/^(submit|button|reset|image)$/.test(y))return 'button';"
    "return 'textbox';}"
    "if(t==='TEXTAREA')return 'textbox';if(t==='SELECT')return 'combobox';"
    "if(t==='OPTION')return 'option';if(/^H[1-6]$/.test(t))return 'heading';"
    "if(t==='IMG')return e.alt?'img':null;if(t==='LI')return 'listitem';"
    "if(e.isContentEditable&&(!e.parentElement||!e.parentElement.isContentEditable))"
    "return 'textbox';return null;}"
    "function name(e){var l=e.getAttribute('aria-label');if(l)return clean(l);"
    "var b=e.getAttribute('aria-labelledby');if(b){var s=b.split(/\\s+/).map(function(i){"
    "var x=e.ownerDocument.getElementById(i);return x?x.textContent:'';}).join(' ');"
    "if(clean(s))return clean(s);}"
    "if(e.labels&&e.labels.length)return clean(Array.prototype.map.call(e.labels,"
    "function(x){return x.innerText;}).join(' '));"
    "if(e.alt)return clean(e.alt);var t=e.tagName;"
    "if(t==='INPUT'&&/^(submit|button|reset)$/.test(e.type))return clean(e.value);"
    "if(t!=='INPUT'&&t!=='TEXTAREA'&&t!=='SELECT'){var x=clean(e.innerText);if(x)return x;}"
    "return clean(e.getAttribute('title')||e.getAttribute('placeholder'));}"
    "function own(e){var s='';for(var c=e.firstChild;c;c=c.nextSibling)"
    "if(c.nodeType===3)s+=c.nodeValue;return clean(s);}"
    "function value(e,r){if(e.type==='password')return '';"
    "if(e.tagName==='SELECT')return clean(e.selectedOptions.length?e.selectedOptions[0].text:'');"
    "if(r==='textbox'||r==='slider'||r==='combobox')return clean(e.isContentEditable?"
    "e.innerText:e.value);return null;}"
    "function states(e,r,vis,rc){var s=[];if(e.disabled||e.getAttribute('aria-disabled')==='true')"
    "s.push('disabled');else s.push('enabled');"
    "if(e.ownerDocument.activeElement===e)s.push('focused');"
    "if(e.checked||e.getAttribute('aria-checked')==='true')s.push('checked');"
    "if(e.selected||e.getAttribute('aria-selected')==='true')s.push('selected');"
    "var x=e.getAttribute('aria-expanded');if(x)s.push(x==='true'?'expanded':'collapsed');"
    "if(e.required)s.push('required');if(e.readOnly)s.push('readonly');"
    "if(r==='textbox'&&!e.readOnly&&!e.disabled)s.push('editable');"
    "if(e.type==='password')s.push('password');if(!vis)s.push('hidden');"
    "else if(rc.bottom<0||rc.right<0||rc.top>innerHeight||rc.left>innerWidth)s.push('offscreen');"
    "return s;}";
/* The walk, after SNAPSHOT_SCRIPT (C compilers need not take longer strings). */
static const char SNAPSHOT_WALK[] =
    "function visit(e,dx,dy,depth,named){var t=e.tagName;if(t==='SCRIPT'||t==='STYLE'||"
    "t==='NOSCRIPT'||t==='TEMPLATE'||t==='HEAD')return;var cs=getComputedStyle(e);"
    "if(cs.display==='none'&&!hidden)return;var r=role(e),txt=r||named?'':own(e),d=depth;"
    "if(r||txt){var rc=e.getBoundingClientRect(),vis=rc.width>0&&rc.height>0&&"
    "cs.visibility!=='hidden'&&cs.display!=='none';if(vis||hidden){total++;if(out.length<max){"
    "out.push([refOf(e),r||'text',r?name(e):txt,"
    "r?value(e,r):null,states(e,r,vis,rc),Math.round(rc.left+dx),Math.round(rc.top+dy),"
    "Math.round(rc.width),Math.round(rc.height),depth]);}}d=depth+1;}"
    "if(t==='IFRAME'||t==='FRAME'){var fd=null;try{fd=e.contentDocument;}catch(err){}"
    "var o=org(e);if(fd&&fd.body)walk(fd.body,dx+o[0],dy+o[1],d,false);"
    "else if(!fd){var fn=e.__glovebox_frame;if(!fn||fm.get(fn)!==e){fn=nf++;fm.set(fn,e);"
    "e.__glovebox_frame=fn;}xf.push([out.length,Math.round(dx+o[0]),Math.round(dy+o[1]),d,fn]);}}"
    "if(e.shadowRoot)walk(e.shadowRoot,dx,dy,d,named);"
    "walk(e,dx,dy,d,named||/^(link|button|heading|listitem|option|textbox)$/.test(r));}"
    "function walk(root,dx,dy,depth,named){for(var e=root.firstElementChild;e;"
    "e=e.nextElementSibling)visit(e,dx,dy,depth,named);}"
    /* A scope inside an iframe: its bounds in the top page's coordinates. */
    "if(se){var w=se.ownerDocument.defaultView,ox=bx,oy=by;while(w.frameElement){"
    "var o=org(w.frameElement);ox+=o[0];oy+=o[1];w=w.parent;}"
    "visit(se,ox,oy,base,false);}else if(document.body)walk(document.body,bx,by,base,false);"
    "return JSON.stringify([out,total,xf]);";

/* arguments[0]: a ref. Brings the element into view and returns its
 * bounds in the top window's viewport, whether it is a password field,
 * and, with arguments[1], focuses it; or a string saying why not. */
static const char LOCATE_SCRIPT[] =
    "var m=window.__glovebox_refs,e=m&&m.get(arguments[0]);"
    "if(!e||!e.isConnected)return 'gone';"
    "var r=e.getBoundingClientRect(),w=e.ownerDocument.defaultView;"
    "if(r.bottom<0||r.right<0||r.top>w.innerHeight||r.left>w.innerWidth){"
    "e.scrollIntoView({block:'center',inline:'center'});r=e.getBoundingClientRect();}"
    "if(r.width<=0||r.height<=0)return 'hidden';"
    "if(arguments[1])e.focus();var x=r.left,y=r.top;"
    "while(w.frameElement){var f=w.frameElement,fr=f.getBoundingClientRect(),"
    "s=w.parent.getComputedStyle(f);x+=fr.left+f.clientLeft+parseFloat(s.paddingLeft);"
    "y+=fr.top+f.clientTop+parseFloat(s.paddingTop);w=w.parent;}return "
    "[Math.round(x),Math.round(y),Math.round(r.width),Math.round(r.height),"
    "e.type==='password'];";

static json_t *element_json(const json_t *row)
{
    json_t *o = json_pack(
        "{s:O, s:O, s:O, s:O, s:{s:O, s:O, s:O, s:O}, s:O}", "ref", json_array_get(row, 0), "role",
        json_array_get(row, 1), "name", json_array_get(row, 2), "states", json_array_get(row, 4),
        "bounds", "x", json_array_get(row, 5), "y", json_array_get(row, 6), "width",
        json_array_get(row, 7), "height", json_array_get(row, 8), "depth", json_array_get(row, 9));
    if (!o)
        return NULL;
    if (json_is_string(json_array_get(row, 3)))
        json_object_set(o, "value", json_array_get(row, 3));
    return o;
}

/* The script's rows as elements; NULL when the answer is not its shape. */
/* A page's elements: text in their name or value, shown with the value. */
static const struct wd_element_view view = {
    .quiet_states = (const char *const[]){"enabled", NULL},
    .show_value = true,
    .text_fields = (const char *const[]){"name", "value", NULL},
    .advice = "; snapshot a part of the page (scope) or raise max_elements",
};

/* The elements (NULL after bc was answered) and how many the page has. */
typedef void (*snap_fn)(struct backend_call *bc, void *ud, json_t *els, size_t total);

/* One snapshot or find: the script in the page (or in the scope's frame),
 * then in the cross-origin frames it could not look into (frames.c). */
struct snap {
    struct backend_call *bc;
    const char *verb;
    int max;
    bool hidden;
    char *scope;
    int frame;    /* the scope's frame; 0: the page */
    json_t *rows; /* the rows, while glovebox leaves the scope's frame */
    size_t total;
    snap_fn fn;
    void *ud;
};

static char *snapshot_source(void)
{
    return xasprintf("%s%s", SNAPSHOT_SCRIPT, SNAPSHOT_WALK);
}

static void snap_end(struct snap *s, json_t *els, size_t total)
{
    s->fn(s->bc, s->ud, els, total);
    json_decref(s->rows);
    free(s->scope);
    free(s);
}

static void snap_fail(struct snap *s, enum error_code code, const char *err)
{
    backend_call_fail_code(s->bc, code ? code : ERROR_TOOL_FAILED, "cannot %s: %s", s->verb, err);
    snap_end(s, NULL, 0);
}

static void scope_gone(struct snap *s)
{
    backend_call_fail_code(s->bc, ERROR_NOT_FOUND,
                           "cannot %s: argument \"scope\": ref %s is gone: the page changed "
                           "or navigated since the snapshot that gave it (take a new "
                           "snapshot or find)",
                           s->verb, s->scope);
    snap_end(s, NULL, 0);
}

/* The rows, at most max of them, as elements. */
static void snap_finish(struct snap *s, json_t *rows, size_t total)
{
    json_t *els = json_array();
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        if (i >= (size_t)s->max)
            break;
        json_t *e = json_is_array(row) && json_array_size(row) == 10 ? element_json(row) : NULL;
        if (!e) {
            json_decref(els);
            json_decref(rows);
            backend_call_fail(s->bc, "cannot %s: the page's answer is not a list of elements",
                              s->verb);
            snap_end(s, NULL, 0);
            return;
        }
        json_array_append_new(els, e);
    }
    json_decref(rows);
    snap_end(s, els, total > json_array_size(els) ? total : json_array_size(els));
}

/* Back in the page from the scope's frame: rows into its coordinates. */
static void left_scope(struct wd *w, void *ud, json_t *value, int dx, int dy, enum error_code code,
                       const char *err)
{
    (void)w, (void)value;
    struct snap *s = ud;
    if (err) {
        snap_fail(s, code, err);
        return;
    }
    size_t i;
    json_t *row;
    json_array_foreach(s->rows, i, row)
    {
        json_array_set_new(row, 5, json_integer(json_integer_value(json_array_get(row, 5)) + dx));
        json_array_set_new(row, 6, json_integer(json_integer_value(json_array_get(row, 6)) + dy));
    }
    json_t *rows = s->rows;
    s->rows = NULL;
    snap_finish(s, rows, s->total);
}

static void walked(struct wd *w, void *ud, json_t *rows, size_t total, enum error_code code,
                   const char *err)
{
    struct snap *s = ud;
    if (err) {
        if (s->frame)
            wd_frame_top(w);
        snap_fail(s, code, err);
        return;
    }
    if (s->frame) {
        s->rows = rows;
        s->total = total;
        wd_frame_leave(w, s->frame, left_scope, s);
        return;
    }
    snap_finish(s, rows, total);
}

/* The script's answer in the page or the scope's frame. */
static void got_rows(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    struct snap *s = ud;
    if (err || (json_is_string(value) && strcmp(json_string_value(value), "gone") == 0)) {
        if (s->frame)
            wd_frame_top(w);
        if (err)
            snap_fail(s, code, err);
        else
            scope_gone(s);
        return;
    }
    json_t *doc =
        json_is_string(value) ? json_loads(json_string_value(value), 0, NULL) : json_incref(value);
    json_t *rows = json_array_get(doc, 0);
    if (!json_is_array(rows) || !json_is_integer(json_array_get(doc, 1))) {
        json_decref(doc);
        if (s->frame)
            wd_frame_top(w);
        snap_fail(s, ERROR_TOOL_FAILED, "the page's answer is not a list of elements");
        return;
    }
    size_t total = (size_t)json_integer_value(json_array_get(doc, 1));
    const json_t *xf = json_array_get(doc, 2);
    if (json_array_size(xf)) {
        char *source = snapshot_source();
        wd_frames_walk(w, s->frame, json_incref(rows), total, xf, source, s->max, s->hidden,
                       s->scope != NULL, walked, s);
        free(source);
    } else {
        walked(w, s, json_incref(rows), total, 0, NULL);
    }
    json_decref(doc);
}

static json_t *snapshot_args(struct wd *w, const struct snap *s)
{
    char *prefix = s->frame ? xasprintf("f%d", s->frame) : xstrdup("");
    json_t *args = json_pack("[i, b, s?, s, i, i, i, b, i]", s->max, s->hidden, s->scope, prefix, 0,
                             0, 0, s->scope != NULL, wd_frames_next(w));
    free(prefix);
    return args;
}

static void scope_entered(struct wd *w, void *ud, json_t *value, int dx, int dy,
                          enum error_code code, const char *err)
{
    (void)value, (void)dx, (void)dy;
    struct snap *s = ud;
    if (err) {
        if (code == ERROR_NOT_FOUND)
            scope_gone(s);
        else
            snap_fail(s, code, err);
        return;
    }
    char *source = snapshot_source();
    wd_command_quiet(w, "POST", "/execute/sync",
                     json_pack("{s:s, s:o}", "script", source, "args", snapshot_args(w, s)),
                     got_rows, s);
    free(source);
}

/* scope: a ref whose element alone is walked; NULL: the page. */
static void run_snapshot(struct backend_call *bc, const char *verb, int max, bool hidden,
                         const char *scope, snap_fn fn, void *ud)
{
    struct wd *w = wd_of(bc->session);
    struct snap *s = xcalloc(1, sizeof *s);
    s->bc = bc;
    s->verb = verb;
    s->max = max;
    s->hidden = hidden;
    s->scope = scope ? xstrdup(scope) : NULL;
    s->frame = scope ? wd_ref_frame(scope) : 0;
    s->fn = fn;
    s->ud = ud;
    if (s->frame > 0) {
        wd_frame_enter(w, s->frame, scope_entered, s);
        return;
    }
    /* A page snapshot or find numbers the frames afresh. */
    if (!scope)
        wd_frames_forget(w);
    char *source = snapshot_source();
    wd_script(w, source, snapshot_args(w, s), got_rows, s);
    free(source);
}

static void snapshot_done(struct backend_call *bc, void *ud, json_t *els, size_t total)
{
    (void)ud;
    if (els)
        wd_snapshot_answer(bc, els, total, &view);
}

static bool refuse(struct backend_call *bc, const char *verb, const char *const *fields)
{
    for (const char *const *f = fields; *f; f++)
        if (json_object_get(bc->args, *f)) {
            backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                                   "cannot %s: argument \"%s\" is not supported on webdriver "
                                   "sessions",
                                   verb, *f);
            return true;
        }
    return false;
}

/* The "scope" argument: NULL when none; false after answering bc when it
 * is no ref or the session cannot take it. */
static bool scope_of(struct backend_call *bc, const char *verb, const char **scope)
{
    *scope = args_string(bc->args, "scope", NULL);
    if (!*scope)
        return true;
    if (wd_ref_frame(*scope) < 0) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "cannot %s: argument \"scope\" must be a ref from snapshot or "
                               "find, such as \"e3\" or \"f1e3\"; got \"%s\"",
                               verb, *scope);
        return false;
    }
    if (wd_of(bc->session)->native) {
        backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                               "cannot %s: argument \"scope\" is for pages; a native app's "
                               "snapshot is its whole page source",
                               verb);
        return false;
    }
    return true;
}

int wd_snapshot_budget(struct backend_call *bc, int fallback)
{
    if (json_object_get(bc->args, "max_elements") && json_object_get(bc->args, "max_nodes")) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "cannot take a snapshot: give \"max_elements\" or \"max_nodes\" "
                               "(the same budget), not both");
        return -1;
    }
    return (int)args_int(bc->args, "max_elements", args_int(bc->args, "max_nodes", fallback));
}

void wd_snapshot_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"app", "window", "depth", NULL};
    const char *scope;
    if (refuse(bc, "take a snapshot", unsupported) || !scope_of(bc, "take a snapshot", &scope))
        return;
    int max = wd_snapshot_budget(bc, 500);
    if (max < 0)
        return;
    if (wd_of(bc->session)->native) {
        wd_native_snapshot(bc);
        return;
    }
    run_snapshot(bc, "take a snapshot", max, args_bool(bc->args, "include_hidden", false), scope,
                 snapshot_done, NULL);
}

static void find_done(struct backend_call *bc, void *ud, json_t *els, size_t total)
{
    (void)ud, (void)total;
    if (els)
        wd_find_answer(bc, els, &view);
}

void wd_find_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"app", "window", "lang", NULL};
    if (refuse(bc, "find", unsupported))
        return;
    if (!json_object_get(bc->args, "text") && !json_object_get(bc->args, "role")) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "find needs \"text\" or \"role\"");
        return;
    }
    const char *scope;
    if (!scope_of(bc, "find", &scope))
        return;
    if (wd_of(bc->session)->native) {
        wd_native_find(bc);
        return;
    }
    run_snapshot(bc, "find", FIND_SCAN, false, scope, find_done, NULL);
}

/* ---- the point of a ref or of a text, for click and type_text ---- */

struct target {
    struct backend_call *bc;
    wd_target_fn fn;
    bool focus;
    char *ref;
};

static void target_free(struct target *t)
{
    free(t->ref);
    free(t);
}

static void located(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    struct target *t = ud;
    struct backend_call *bc = t->bc;
    if (err) {
        backend_call_fail_code(bc, code, "cannot find %s: %s", t->ref, err);
    } else if (json_is_string(value)) {
        backend_call_fail_code(
            bc, ERROR_NOT_FOUND, "ref %s is %s: %s", t->ref,
            strcmp(json_string_value(value), "hidden") == 0 ? "not showing" : "gone",
            strcmp(json_string_value(value), "hidden") == 0
                ? "it has no size on the page"
                : "the page changed or navigated since the snapshot (take a new snapshot or find)");
    } else if (json_array_size(value) != 5) {
        backend_call_fail(bc, "cannot find %s: the page's answer is not a position", t->ref);
    } else {
        struct screen_rect r = {(int)json_integer_value(json_array_get(value, 0)),
                                (int)json_integer_value(json_array_get(value, 1)),
                                (int)json_integer_value(json_array_get(value, 2)),
                                (int)json_integer_value(json_array_get(value, 3))};
        t->fn(bc, t->ref, &r, json_is_true(json_array_get(value, 4)));
    }
    target_free(t);
}

/* A ref in a cross-origin frame: found there, its position then moved by
 * the frame's in the page. */
static void located_in_frame(struct wd *w, void *ud, json_t *value, int dx, int dy,
                             enum error_code code, const char *err)
{
    if (err && code == ERROR_NOT_FOUND) {
        json_t *gone = json_string("gone");
        located(w, ud, gone, 0, NULL);
        json_decref(gone);
        return;
    }
    if (err || json_array_size(value) != 5) {
        located(w, ud, value, code, err);
        return;
    }
    json_t *moved = json_deep_copy(value);
    json_array_set_new(moved, 0, json_integer(json_integer_value(json_array_get(value, 0)) + dx));
    json_array_set_new(moved, 1, json_integer(json_integer_value(json_array_get(value, 1)) + dy));
    located(w, ud, moved, 0, NULL);
    json_decref(moved);
}

static void locate(struct target *t)
{
    struct wd *w = wd_of(t->bc->session);
    json_t *body = json_pack("{s:s, s:[s, b]}", "script", LOCATE_SCRIPT, "args", t->ref, t->focus);
    int frame = wd_ref_frame(t->ref);
    if (frame > 0)
        wd_frame_command(w, frame, "POST", "/execute/sync", body, w->timeout_ms, located_in_frame,
                         t);
    else
        wd_command(w, "POST", "/execute/sync", body, located, t);
}

static void text_found(struct backend_call *bc, void *ud, json_t *els, size_t total)
{
    (void)total;
    struct target *t = ud;
    if (!els) {
        target_free(t);
        return;
    }
    const char *text = args_string(bc->args, "text", NULL);
    const char *role = args_string(bc->args, "role", NULL);
    size_t i;
    json_t *e;
    json_array_foreach(els, i, e)
    {
        if (wd_element_matches(e, &view, text, role, args_bool(bc->args, "exact", false))) {
            t->ref = xstrdup(json_string_value(json_object_get(e, "ref")));
            break;
        }
    }
    json_decref(els);
    if (!t->ref) {
        backend_call_fail_code(bc, ERROR_NOT_FOUND,
                               "text: no element on the page has the text \"%s\"%s%s; snapshot "
                               "shows what there is",
                               text ? text : "", role ? " and role " : "", role ? role : "");
        target_free(t);
        return;
    }
    locate(t);
}

void wd_target(struct backend_call *bc, bool focus, wd_target_fn fn)
{
    if (wd_of(bc->session)->native) {
        wd_native_target(bc, fn);
        return;
    }
    const char *ref = args_string(bc->args, "ref", NULL);
    if (ref && wd_ref_frame(ref) < 0) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "argument \"ref\" must be a ref from snapshot or find, such as "
                               "\"e3\" or \"f1e3\"; got \"%s\"",
                               ref);
        return;
    }
    struct target *t = xcalloc(1, sizeof *t);
    t->bc = bc;
    t->fn = fn;
    t->focus = focus;
    if (ref) {
        t->ref = xstrdup(ref);
        locate(t);
        return;
    }
    run_snapshot(bc, "find the element", FIND_SCAN, false, NULL, text_found, t);
}
