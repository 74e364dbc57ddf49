/* The page source of a native app (Appium: UiAutomator2's XML on Android,
 * XCUITest's on iOS, or any driver's that looks alike) as elements: a
 * small tolerant reader of XML start tags and their attributes — no DTDs,
 * no namespaces, entities &amp; &lt; &gt; &quot; &apos; and numeric ones —
 * bounded in size and in the elements it keeps. */
#include "backend/webdriver/native_tree.h"

#include "core/xmalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Attributes of one tag kept at most. */
#define MAX_ATTRS 48

struct attr {
    const char *name;
    size_t name_len;
    char *value; /* entities decoded */
};

static void put_utf8(char **o, unsigned long cp)
{
    char *p = *o;
    if (cp < 0x80)
        *p++ = (char)cp;
    else if (cp < 0x800) {
        *p++ = (char)(0xc0 | (cp >> 6));
        *p++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *p++ = (char)(0xe0 | (cp >> 12));
        *p++ = (char)(0x80 | ((cp >> 6) & 0x3f));
        *p++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x110000) {
        *p++ = (char)(0xf0 | (cp >> 18));
        *p++ = (char)(0x80 | ((cp >> 12) & 0x3f));
        *p++ = (char)(0x80 | ((cp >> 6) & 0x3f));
        *p++ = (char)(0x80 | (cp & 0x3f));
    }
    *o = p;
}

/* s[0..n) with XML entities decoded (the result is never longer). */
static char *decode(const char *s, size_t n)
{
    char *out = xmalloc(n + 1), *o = out;
    for (size_t i = 0; i < n;) {
        if (s[i] != '&') {
            *o++ = s[i++];
            continue;
        }
        const char *semi = memchr(s + i, ';', n - i < 12 ? n - i : 12);
        size_t len = semi ? (size_t)(semi - (s + i)) + 1 : 0;
        static const struct {
            const char *name;
            char c;
        } named[] = {
            {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
        bool done = false;
        for (size_t k = 0; semi && k < 5 && !done; k++)
            if (len == strlen(named[k].name) && !memcmp(s + i, named[k].name, len)) {
                *o++ = named[k].c;
                done = true;
            }
        if (!done && semi && len > 3 && s[i + 1] == '#') {
            bool hex = s[i + 2] == 'x' || s[i + 2] == 'X';
            unsigned long cp = strtoul(s + i + (hex ? 3 : 2), NULL, hex ? 16 : 10);
            /* Never a NUL or a control character in a name. */
            if (cp >= 0x20 && cp < 0x110000 && !(cp >= 0xd800 && cp < 0xe000)) {
                put_utf8(&o, cp);
                done = true;
            } else if (cp == '\n' || cp == '\t') {
                *o++ = ' ';
                done = true;
            } else {
                /* NUL, controls, surrogates, beyond Unicode: dropped. */
                done = true;
            }
        }
        if (done)
            i += len;
        else
            *o++ = s[i++];
    }
    *o = '\0';
    return out;
}

static const char *attr(const struct attr *a, int n, const char *name)
{
    size_t len = strlen(name);
    for (int i = 0; i < n; i++)
        if (a[i].name_len == len && !memcmp(a[i].name, name, len))
            return a[i].value;
    return NULL;
}

static bool is_true(const char *v)
{
    return v && !strcmp(v, "true");
}

/* Android "[x1,y1][x2,y2]", or iOS x, y, width, height. */
static bool bounds_of(const struct attr *a, int n, struct native_el *e)
{
    const char *b = attr(a, n, "bounds");
    int x1, y1, x2, y2;
    if (b && sscanf(b, "[%d,%d][%d,%d]", &x1, &y1, &x2, &y2) == 4) {
        e->x = x1;
        e->y = y1;
        e->width = x2 - x1;
        e->height = y2 - y1;
        return e->width > 0 && e->height > 0;
    }
    const char *x = attr(a, n, "x"), *y = attr(a, n, "y"), *w = attr(a, n, "width"),
               *h = attr(a, n, "height");
    if (!x || !y || !w || !h)
        return false;
    e->x = atoi(x);
    e->y = atoi(y);
    e->width = atoi(w);
    e->height = atoi(h);
    return e->width > 0 && e->height > 0;
}

/* The role, in the words the other kinds use, from the class or the tag. */
static char *role_of(const char *cls)
{
    static const struct {
        const char *suffix, *role;
    } roles[] = {
        {"EditText", "text"},
        {"TextField", "text"},
        {"SecureTextField", "text"},
        {"SearchField", "text"},
        {"TextView", "label"},
        {"StaticText", "label"},
        {"ImageButton", "push button"},
        {"Button", "push button"},
        {"CheckBox", "check box"},
        {"RadioButton", "radio button"},
        {"Switch", "toggle button"},
        {"ToggleButton", "toggle button"},
        {"ImageView", "image"},
        {"Image", "image"},
        {"SeekBar", "slider"},
        {"Slider", "slider"},
        {"Spinner", "combo box"},
        {"PickerWheel", "combo box"},
        {"ProgressBar", "progress bar"},
        {"WebView", "document web"},
        {"ListView", "list"},
        {"RecyclerView", "list"},
        {"Table", "list"},
        {"CollectionView", "list"},
        {"Cell", "list item"},
        {"ScrollView", "scroll pane"},
        {"Link", "link"},
    };
    size_t n = strlen(cls);
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++) {
        size_t m = strlen(roles[i].suffix);
        if (n >= m && !strcmp(cls + n - m, roles[i].suffix))
            return xstrdup(roles[i].role);
    }
    const char *dot = strrchr(cls, '.');
    const char *base = dot ? dot + 1 : cls;
    if (!strncmp(base, "XCUIElementType", 15))
        base += 15;
    char *r = xstrdup(*base ? base : "view");
    for (char *p = r; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return r;
}

static void element_from(struct native_tree *t, const char *tag, size_t tag_len,
                         const struct attr *a, int n, int depth)
{
    struct native_el e = {.depth = depth};
    if (!bounds_of(a, n, &e))
        return;
    const char *cls = attr(a, n, "class");
    if (!cls)
        cls = attr(a, n, "type");
    char *tagname = xstrndup(tag, tag_len);
    const char *text = attr(a, n, "text");
    const char *desc = attr(a, n, "content-desc");
    const char *label = attr(a, n, "label");
    const char *name = attr(a, n, "name");
    const char *value = attr(a, n, "value");
    e.clickable = is_true(attr(a, n, "clickable")) || is_true(attr(a, n, "hittable"));
    e.checkable = is_true(attr(a, n, "checkable"));
    e.checked = is_true(attr(a, n, "checked")) ||
                (value && !strcmp(value, "1") && strstr(tagname, "Switch"));
    e.scrollable = is_true(attr(a, n, "scrollable"));
    e.focused = is_true(attr(a, n, "focused"));
    e.selected = is_true(attr(a, n, "selected"));
    const char *enabled = attr(a, n, "enabled");
    e.enabled = !enabled || is_true(enabled);
    const char *visible = attr(a, n, "visible");
    e.hidden = visible && !is_true(visible);
    e.password = is_true(attr(a, n, "password")) || strstr(tagname, "SecureTextField");
    e.role = role_of(cls ? cls : tagname);
    e.editable = !strcmp(e.role, "text");
    /* Android: text (a field's content), else the description; iOS: the
     * label, else the accessibility id. A password's text never. */
    const char *nm = text && *text && !e.password ? text
                     : desc && *desc              ? desc
                     : label && *label            ? label
                     : name && *name              ? name
                                                  : "";
    e.name = xstrdup(nm);
    if (value && *value && !e.password && strcmp(value, nm))
        e.value = xstrdup(value);
    const char *rid = attr(a, n, "resource-id");
    if (rid && *rid)
        e.resource_id = xstrdup(rid);
    free(tagname);
    bool meaningful =
        *e.name || e.clickable || e.checkable || e.scrollable || e.editable || e.password;
    if (!meaningful || t->n >= NATIVE_MAX_ELEMENTS) {
        if (meaningful)
            t->cut++;
        native_el_finish(&e);
        return;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->els = xrealloc(t->els, t->cap * sizeof *t->els);
    }
    t->els[t->n++] = e;
}

bool native_tree_parse(const char *xml, size_t len, struct native_tree *t, char **err)
{
    *t = (struct native_tree){0};
    if (len > NATIVE_MAX_SOURCE) {
        *err = xasprintf("the page source is %zu bytes, more than the %u read", len,
                         NATIVE_MAX_SOURCE);
        return false;
    }
    const char *p = xml, *end = xml + len;
    int depth = 0;
    while (p < end) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        if (!lt)
            break;
        p = lt + 1;
        if (p < end && (*p == '?' || *p == '!')) {
            /* Declarations, comments, CDATA: skipped whole. */
            const char *close = *p == '!' && end - p > 3 && !memcmp(p, "!--", 3)
                                    ? strstr(p, "-->")
                                    : memchr(p, '>', (size_t)(end - p));
            if (!close)
                break;
            p = close + 1;
            continue;
        }
        if (p < end && *p == '/') {
            depth = depth > 0 ? depth - 1 : 0;
            const char *gt = memchr(p, '>', (size_t)(end - p));
            p = gt ? gt + 1 : end;
            continue;
        }
        const char *tag = p;
        while (p < end && !isspace((unsigned char)*p) && *p != '>' && *p != '/')
            p++;
        size_t tag_len = (size_t)(p - tag);
        struct attr a[MAX_ATTRS];
        int n = 0;
        bool self_closing = false;
        for (;;) {
            while (p < end && isspace((unsigned char)*p))
                p++;
            if (p >= end)
                break;
            if (*p == '>') {
                p++;
                break;
            }
            if (*p == '/') {
                self_closing = true;
                p++;
                continue;
            }
            const char *name = p;
            while (p < end && *p != '=' && !isspace((unsigned char)*p) && *p != '>')
                p++;
            size_t name_len = (size_t)(p - name);
            while (p < end && isspace((unsigned char)*p))
                p++;
            if (p >= end || *p != '=') {
                if (name_len == 0)
                    p++;
                continue;
            }
            p++;
            while (p < end && isspace((unsigned char)*p))
                p++;
            if (p >= end || (*p != '"' && *p != '\''))
                continue;
            char q = *p++;
            const char *v = p;
            const char *close = memchr(p, q, (size_t)(end - p));
            if (!close) {
                p = end;
                break;
            }
            p = close + 1;
            if (n < MAX_ATTRS)
                a[n++] = (struct attr){name, name_len, decode(v, (size_t)(close - v))};
        }
        element_from(t, tag, tag_len, a, n, depth);
        for (int i = 0; i < n; i++)
            free(a[i].value);
        if (!self_closing)
            depth++;
    }
    return true;
}

void native_el_finish(struct native_el *e)
{
    free(e->role);
    free(e->name);
    free(e->value);
    free(e->resource_id);
}

void native_tree_finish(struct native_tree *t)
{
    for (size_t i = 0; i < t->n; i++)
        native_el_finish(&t->els[i]);
    free(t->els);
    *t = (struct native_tree){0};
}
