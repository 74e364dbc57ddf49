#include "mcp/tool_groups.h"

#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <stdlib.h>
#include <string.h>

static const struct tool_group groups[] = {
    {"sessions", "list, stop and resize screen sessions"},
    {"terminal", "start terminal sessions"},
    {"desktop", "start Linux desktops and programs on them"},
    {"vnc", "connect to VNC servers"},
    {"webdriver", "browsers and devices over WebDriver, open URLs"},
    {"android", "Android devices over adb"},
    {"perception", "screenshots, snapshots, text, find, wait_for"},
    {"input", "type, keys, click, drag, scroll"},
    {"computer", "the computer-use tool of Anthropic and OpenAI models"},
    {"windows", "list and manage desktop windows"},
    {"clipboard", "read and set the clipboard"},
    {"recording", "record screens"},
    {"server", "status and set_mode"},
};

const struct tool_group *tool_groups(size_t *count)
{
    *count = sizeof groups / sizeof groups[0];
    return groups;
}

bool tool_group_known(const char *name)
{
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (strcmp(groups[i].name, name) == 0)
            return true;
    return false;
}

void tool_groups_free(char **list)
{
    for (char **p = list; p && *p; p++)
        free(*p);
    free(list);
}

static char *known_names(void)
{
    struct strbuf sb;
    strbuf_init(&sb);
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        strbuf_printf(&sb, "%s%s", i ? ", " : "", groups[i].name);
    return strbuf_steal(&sb);
}

char **tool_groups_parse(const char *spec, char **err)
{
    size_t n = 0;
    char **list = xcalloc(strlen(spec) / 2 + 2, sizeof *list);
    bool all = false;
    const char *p = spec;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && (*p == ' ' || *p == '\t'))
            p++, len--;
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        char *name = xstrndup(p, len);
        if (strcmp(name, "all") == 0) {
            all = true;
            free(name);
        } else if (!tool_group_known(name)) {
            char *known = known_names();
            *err = *name ? xasprintf("unknown tool group \"%s\" (groups: %s, or all)", name, known)
                         : xasprintf("an empty tool group in \"%s\" (groups: %s, or all)", spec,
                                     known);
            free(known);
            free(name);
            tool_groups_free(list);
            return NULL;
        } else {
            list[n++] = name;
        }
        if (!end)
            break;
        p = end + 1;
    }
    if (all) {
        for (size_t i = 0; i < n; i++)
            free(list[i]);
        list[0] = NULL;
    }
    return list;
}
