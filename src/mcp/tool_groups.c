#include "mcp/tool_groups.h"

#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <stdlib.h>
#include <string.h>

/* The default set is what most deployments use, kept small because every
 * client hands the whole tool list to its model on every turn (docs/tools.md
 * gives its size); the others are one word away. */
static const struct tool_group groups[] = {
    {"sessions", true},   {"terminal", true},      {"desktop", true},   {"perception", true},
    {"input", true},      {"server", true},        {"windows", false},  {"clipboard", false},
    {"recording", false}, {"computer_use", false}, {"vnc", false},      {"webdriver", false},
    {"android", false},   {"recipes", false},      {"elements", false}, {"viewer", false},
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

static bool listed(char **list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

char **tool_groups_parse(const char *spec, char **err)
{
    size_t n = 0;
    /* Each group at most once: never more than all of them. */
    char **list = xcalloc(sizeof groups / sizeof groups[0] + 1, sizeof *list);
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
        } else if (strcmp(name, "default") == 0) {
            free(name);
            for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
                if (groups[i].by_default && !listed(list, n, groups[i].name))
                    list[n++] = xstrdup(groups[i].name);
        } else if (!tool_group_known(name)) {
            char *known = known_names();
            *err = *name ? xasprintf("unknown tool group \"%s\" (groups: %s; or default, all)",
                                     name, known)
                         : xasprintf("an empty tool group in \"%s\" (groups: %s; or default, all)",
                                     spec, known);
            free(known);
            free(name);
            tool_groups_free(list);
            return NULL;
        } else if (listed(list, n, name)) {
            free(name);
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
