/* The uiautomator dump parser (uixml.h). */
#include "backend/android/uixml.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
    const char *p, *end, *start;
    char *err;
};

static bool __attribute__((format(printf, 2, 3))) bad(struct cursor *c, const char *fmt, ...)
{
    if (c->err)
        return false;
    va_list ap;
    va_start(ap, fmt);
    char *what = xvasprintf(fmt, ap);
    va_end(ap);
    c->err = xasprintf("malformed uiautomator XML at byte %td: %s", c->p - c->start, what);
    free(what);
    return false;
}

static void skip_space(struct cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '-' || ch == '_' || ch == ':' || ch == '.';
}

static void put_utf8(struct strbuf *sb, uint32_t cp)
{
    char b[4];
    int n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xc0 | cp >> 6);
        b[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xe0 | cp >> 12);
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        b[0] = (char)(0xf0 | cp >> 18);
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    strbuf_append(sb, b, (size_t)n);
}

/* An entity after '&' (c->p at '&'). */
static bool entity(struct cursor *c, struct strbuf *sb)
{
    static const struct {
        const char *name;
        char ch;
    } named[] = {{"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"quot;", '"'}, {"apos;", '\''}};
    c->p++;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        size_t n = strlen(named[i].name);
        if ((size_t)(c->end - c->p) >= n && memcmp(c->p, named[i].name, n) == 0) {
            strbuf_putc(sb, named[i].ch);
            c->p += n;
            return true;
        }
    }
    if (c->p < c->end && *c->p == '#') {
        c->p++;
        int base = 10;
        if (c->p < c->end && *c->p == 'x') {
            base = 16;
            c->p++;
        }
        uint32_t cp = 0;
        int digits = 0;
        while (c->p < c->end && *c->p != ';' && digits < 8) {
            char ch = *c->p;
            int v = ch >= '0' && ch <= '9'                 ? ch - '0'
                    : base == 16 && ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                    : base == 16 && ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                                           : -1;
            if (v < 0)
                return bad(c, "bad character reference");
            cp = cp * (uint32_t)base + (uint32_t)v;
            digits++;
            c->p++;
        }
        if (c->p >= c->end || *c->p != ';' || digits == 0 || cp == 0 || cp > 0x10ffff ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return bad(c, "bad character reference");
        c->p++;
        put_utf8(sb, cp);
        return true;
    }
    return bad(c, "unknown entity");
}

/* A quoted attribute value; c->p at the quote. */
static char *value(struct cursor *c)
{
    const char *open = c->p;
    char q = *c->p++;
    struct strbuf sb = {0};
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '<') {
            bad(c, "'<' inside an attribute value");
            strbuf_finish(&sb);
            return NULL;
        }
        if (*c->p == '&') {
            if (!entity(c, &sb)) {
                strbuf_finish(&sb);
                return NULL;
            }
            continue;
        }
        strbuf_putc(&sb, *c->p++);
    }
    if (c->p >= c->end) {
        c->p = open; /* the place to look at is where it began */
        bad(c, "an attribute value is not closed");
        strbuf_finish(&sb);
        return NULL;
    }
    c->p++;
    return strbuf_steal(&sb);
}

static bool parse_bounds(const char *v, struct ui_node *n)
{
    return sscanf(v, "[%d,%d][%d,%d]", &n->x1, &n->y1, &n->x2, &n->y2) == 4 && n->x2 >= n->x1 &&
           n->y2 >= n->y1;
}

static void set_attr(struct ui_node *n, const char *name, char *v)
{
    bool t = strcmp(v, "true") == 0;
    char **slot = NULL;
    if (strcmp(name, "class") == 0)
        slot = &n->cls;
    else if (strcmp(name, "text") == 0)
        slot = &n->text;
    else if (strcmp(name, "content-desc") == 0)
        slot = &n->desc;
    else if (strcmp(name, "resource-id") == 0)
        slot = &n->resource_id;
    else if (strcmp(name, "package") == 0)
        slot = &n->package;
    else if (strcmp(name, "bounds") == 0)
        n->has_bounds = parse_bounds(v, n);
    else if (strcmp(name, "password") == 0)
        n->password = t;
    else if (strcmp(name, "checked") == 0)
        n->checked = t;
    else if (strcmp(name, "checkable") == 0)
        n->checkable = t;
    else if (strcmp(name, "focused") == 0)
        n->focused = t;
    else if (strcmp(name, "focusable") == 0)
        n->focusable = t;
    else if (strcmp(name, "enabled") == 0)
        n->enabled = t;
    else if (strcmp(name, "clickable") == 0)
        n->clickable = t;
    else if (strcmp(name, "selected") == 0)
        n->selected = t;
    else if (strcmp(name, "scrollable") == 0)
        n->scrollable = t;
    if (slot) {
        free(*slot);
        *slot = v;
    } else {
        free(v);
    }
}

/* Attributes up to '>' or '/>'; n NULL: read and drop them. */
static bool attributes(struct cursor *c, struct ui_node *n, bool *self_closing)
{
    for (;;) {
        skip_space(c);
        if (c->p >= c->end)
            return bad(c, "a tag is not closed");
        if (*c->p == '>') {
            c->p++;
            *self_closing = false;
            return true;
        }
        if (*c->p == '/') {
            if (c->end - c->p < 2 || c->p[1] != '>')
                return bad(c, "expected '/>'");
            c->p += 2;
            *self_closing = true;
            return true;
        }
        const char *name = c->p;
        while (c->p < c->end && name_char(*c->p))
            c->p++;
        size_t len = (size_t)(c->p - name);
        if (len == 0 || len > 64)
            return bad(c, "expected an attribute name");
        skip_space(c);
        if (c->p >= c->end || *c->p != '=')
            return bad(c, "expected '=' after an attribute name");
        c->p++;
        skip_space(c);
        if (c->p >= c->end || (*c->p != '"' && *c->p != '\''))
            return bad(c, "expected a quoted attribute value");
        char *v = value(c);
        if (!v)
            return false;
        if (n) {
            char key[65];
            memcpy(key, name, len);
            key[len] = 0;
            set_attr(n, key, v);
        } else {
            free(v);
        }
    }
}

static void node_init(struct ui_node *n, int depth)
{
    memset(n, 0, sizeof *n);
    n->depth = depth;
}

static void node_fill(struct ui_node *n)
{
    char **s[] = {&n->cls, &n->text, &n->desc, &n->resource_id, &n->package};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        if (!*s[i])
            *s[i] = xstrdup("");
}

static bool starts(const struct cursor *c, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(c->end - c->p) >= n && memcmp(c->p, s, n) == 0;
}

bool uixml_parse(const char *text, size_t len, struct ui_tree *out, char **err)
{
    memset(out, 0, sizeof *out);
    struct cursor c = {.p = text, .end = text + len, .start = text};
    const char *h = memmem(text, len, "<hierarchy", 10);
    if (!h) {
        /* uiautomator prints its own errors ("ERROR: could not get idle
         * state.") where the XML would be. */
        size_t show = strcspn(text, "\n");
        *err = xasprintf("uiautomator gave no window hierarchy: \"%.*s\"",
                         (int)(show > 200 ? 200 : show), text);
        return false;
    }
    c.p = h;
    size_t cap = 64;
    out->nodes = xcalloc(cap, sizeof *out->nodes);
    int depth = -1; /* -1: outside <hierarchy> */
    bool closed_root = false;
    while (!closed_root) {
        const char *lt = memchr(c.p, '<', (size_t)(c.end - c.p));
        if (!lt) {
            bad(&c, "the document ends before </hierarchy>");
            break;
        }
        c.p = lt;
        if (starts(&c, "<!--")) {
            const char *e = memmem(c.p, (size_t)(c.end - c.p), "-->", 3);
            if (!e) {
                bad(&c, "a comment is not closed");
                break;
            }
            c.p = e + 3;
            continue;
        }
        if (starts(&c, "</")) {
            c.p += 2;
            bool is_node = starts(&c, "node");
            bool is_root = starts(&c, "hierarchy");
            c.p += is_node ? 4 : is_root ? 9 : 0;
            skip_space(&c);
            if ((!is_node && !is_root) || c.p >= c.end || *c.p != '>') {
                bad(&c, "unexpected closing tag");
                break;
            }
            c.p++;
            if (is_root != (depth == 0)) {
                bad(&c, "closing tags do not match the open ones");
                break;
            }
            if (is_root)
                closed_root = true;
            depth--;
            continue;
        }
        bool is_root = starts(&c, "<hierarchy");
        bool is_node = starts(&c, "<node");
        if (is_root ? depth != -1 : !is_node || depth < 0) {
            bad(&c, is_node || is_root ? "an element is out of place" : "unexpected element");
            break;
        }
        c.p += is_root ? 10 : 5;
        if (c.p < c.end && name_char(*c.p)) {
            bad(&c, "unexpected element");
            break;
        }
        bool self_closing;
        if (is_root) {
            if (!attributes(&c, NULL, &self_closing))
                break;
            depth = 0;
            if (self_closing)
                closed_root = true;
            continue;
        }
        if (out->n >= UIXML_MAX_NODES) {
            bad(&c, "more than %d nodes", UIXML_MAX_NODES);
            break;
        }
        if (depth >= UIXML_MAX_DEPTH) {
            bad(&c, "nodes nested deeper than %d", UIXML_MAX_DEPTH);
            break;
        }
        if (out->n == cap) {
            cap *= 2;
            out->nodes = xrealloc(out->nodes, cap * sizeof *out->nodes);
        }
        struct ui_node *n = &out->nodes[out->n++];
        node_init(n, depth);
        bool ok = attributes(&c, n, &self_closing);
        node_fill(n);
        if (!ok)
            break;
        if (!self_closing)
            depth++;
    }
    if (c.err) {
        *err = c.err;
        uixml_free(out);
        return false;
    }
    return true;
}

void uixml_free(struct ui_tree *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->nodes[i].cls);
        free(t->nodes[i].text);
        free(t->nodes[i].desc);
        free(t->nodes[i].resource_id);
        free(t->nodes[i].package);
    }
    free(t->nodes);
    t->nodes = NULL;
    t->n = 0;
}
