/* getevent -p's output (toolbox getevent, every Android version): per device
 *
 *   add device 2: /dev/input/event1
 *     name:     "sec_touchscreen"
 *     events:
 *       KEY (0001): 0145  014a
 *       ABS (0003): 002f  : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0
 *                   0035  : value 0, min 0, max 1079, fuzz 0, flat 0, resolution 0
 *     input props:
 *       INPUT_PROP_DIRECT
 *
 * A type's codes run on over continuation lines (eight a line; one a line
 * for ABS, each with its range); older builds print no ", resolution".
 * Anything else (errors about nodes it cannot open, blank lines) is
 * skipped. */
#include "backend/android/touch_probe.h"
#include "core/xmalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parsed {
    struct touch_screen t;
    bool mt_x, mt_y;
};

static bool hex4_at(const char *p, int *v)
{
    for (int i = 0; i < 4; i++)
        if (!isxdigit((unsigned char)p[i]))
            return false;
    if (isxdigit((unsigned char)p[4]))
        return false;
    char t[5] = {p[0], p[1], p[2], p[3], 0};
    *v = (int)strtol(t, NULL, 16);
    return true;
}

static struct touch_axis *abs_axis(struct touch_screen *t, int code)
{
    switch (code) {
    case TOUCH_ABS_MT_POSITION_X:
        return &t->x;
    case TOUCH_ABS_MT_POSITION_Y:
        return &t->y;
    case TOUCH_ABS_MT_SLOT:
        return &t->slot;
    case TOUCH_ABS_MT_TRACKING:
        return &t->tracking;
    case TOUCH_ABS_MT_PRESSURE:
        return &t->pressure;
    case TOUCH_ABS_MT_TOUCH_MAJ:
        return &t->major;
    default:
        return NULL;
    }
}

/* The codes of one line of a type's list (what follows "TYPE (hhhh):" or
 * a continuation's indent). */
static void codes(struct touch_screen *t, int type, const char *p)
{
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '*')
            p++;
        int code;
        if (!hex4_at(p, &code))
            return;
        p += 4;
        if (type == TOUCH_EV_KEY) {
            if (code == TOUCH_BTN_TOUCH)
                t->btn_touch = true;
            if (code == TOUCH_BTN_TOOL_FINGER)
                t->btn_tool_finger = true;
            continue;
        }
        if (type != TOUCH_EV_ABS)
            continue;
        /* One ABS code a line, then its range. */
        struct touch_axis *ax = abs_axis(t, code);
        const char *mn = strstr(p, "min ");
        const char *mx = strstr(p, "max ");
        if (ax && mn && mx) {
            ax->present = true;
            ax->min = (int)strtol(mn + 4, NULL, 10);
            ax->max = (int)strtol(mx + 4, NULL, 10);
        }
        return;
    }
}

/* How good a candidate is: direct first, then protocol B. */
static int rank(const struct parsed *d)
{
    if (!d->t.x.present || !d->t.y.present)
        return -1;
    return (d->t.direct ? 2 : 0) + (d->t.slot.present ? 1 : 0);
}

static void consider(struct parsed *cur, struct parsed *best, bool *have)
{
    if (rank(cur) < 0)
        return;
    if (!*have || rank(cur) > rank(best)) {
        *best = *cur;
        *have = true;
    }
}

bool touch_probe_parse(const char *getevent, struct touch_screen *out, char **why)
{
    struct parsed cur, best;
    memset(&cur, 0, sizeof cur);
    memset(&best, 0, sizeof best);
    bool in_dev = false, have = false, in_props = false;
    int type = -1;
    const char *line = getevent ? getevent : "";
    while (*line) {
        size_t n = strcspn(line, "\n");
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), line);
        line += n + (line[n] == '\n');
        size_t bl = strlen(buf);
        while (bl && (buf[bl - 1] == '\r' || buf[bl - 1] == ' '))
            buf[--bl] = 0;
        const char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;
        char path[96];
        if (sscanf(buf, "add device %*d: %95s", path) == 1) {
            if (in_dev)
                consider(&cur, &best, &have);
            memset(&cur, 0, sizeof cur);
            snprintf(cur.t.node, sizeof cur.t.node, "%s", path);
            in_dev = true;
            in_props = false;
            type = -1;
            continue;
        }
        if (!in_dev)
            continue;
        if (strncmp(s, "name:", 5) == 0) {
            const char *q = strchr(s, '"');
            const char *e = q ? strrchr(q + 1, '"') : NULL;
            if (q && e)
                snprintf(cur.t.name, sizeof cur.t.name, "%.*s", (int)(e - q - 1), q + 1);
            continue;
        }
        if (strncmp(s, "events:", 7) == 0) {
            in_props = false;
            type = -1;
            continue;
        }
        if (strncmp(s, "input props:", 12) == 0) {
            in_props = true;
            type = -1;
            continue;
        }
        if (in_props) {
            if (strcmp(s, "INPUT_PROP_DIRECT") == 0)
                cur.t.direct = true;
            continue;
        }
        /* "KEY (0001): …" starts a type; a line of hex codes continues it. */
        const char *open = strstr(s, " (");
        int t;
        if (open && hex4_at(open + 2, &t) && open[6] == ')' && open[7] == ':') {
            type = t;
            codes(&cur.t, type, open + 8);
        } else if (type >= 0 && hex4_at(s, &t)) {
            codes(&cur.t, type, s);
        } else {
            type = -1;
        }
    }
    if (in_dev)
        consider(&cur, &best, &have);
    if (!have) {
        *why = xstrdup("no touchscreen: getevent -p lists no input device with "
                       "ABS_MT_POSITION_X and ABS_MT_POSITION_Y");
        return false;
    }
    const struct touch_screen *b = &best.t;
    if (!b->slot.present || !b->tracking.present) {
        *why = xasprintf("the touchscreen %s (\"%s\") speaks multi-touch protocol A (no "
                         "ABS_MT_SLOT/ABS_MT_TRACKING_ID); glovebox writes protocol B only",
                         b->node, b->name);
        return false;
    }
    if (b->x.max <= b->x.min || b->y.max <= b->y.min) {
        *why = xasprintf("the touchscreen %s (\"%s\") reports empty position ranges (x %d..%d, "
                         "y %d..%d)",
                         b->node, b->name, b->x.min, b->x.max, b->y.min, b->y.max);
        return false;
    }
    *out = *b;
    return true;
}

int touch_event_size(const char *abi)
{
    static const char *const b64[] = {"arm64-v8a", "x86_64", "riscv64"};
    static const char *const b32[] = {"armeabi-v7a", "armeabi", "x86"};
    for (size_t i = 0; abi && i < sizeof b64 / sizeof *b64; i++)
        if (strcmp(abi, b64[i]) == 0)
            return 24;
    for (size_t i = 0; abi && i < sizeof b32 / sizeof *b32; i++)
        if (strcmp(abi, b32[i]) == 0)
            return 16;
    return 0;
}
