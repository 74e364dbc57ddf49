/* The protocol engine, the policy and the session registry know tools only
 * by what the tools say about themselves (mcp/tool.h): no registered tool's
 * name appears in their code, outside comments. A new tool then needs no
 * edit there, and a renamed tool cannot leave a rule behind that checks
 * nothing. The source directory is the first argument. */
#include "mcp/registry.h"
#include "mcp/server.h"
#include "tools/tools.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const char *source_root;

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = calloc(1, (size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

/* Comments blanked out; string and character literals kept. */
static void strip_comments(char *s)
{
    enum { CODE, STRING, CHAR, BLOCK, LINE } st = CODE;
    for (char *c = s; *c; c++) {
        switch (st) {
        case CODE:
            if (c[0] == '/' && c[1] == '*') {
                st = BLOCK;
                *c++ = ' ';
                *c = ' ';
            } else if (c[0] == '/' && c[1] == '/') {
                st = LINE;
                *c = ' ';
            } else if (*c == '"') {
                st = STRING;
            } else if (*c == '\'') {
                st = CHAR;
            }
            break;
        case STRING:
        case CHAR:
            if (*c == '\\' && c[1])
                c++;
            else if (*c == (st == STRING ? '"' : '\''))
                st = CODE;
            break;
        case BLOCK:
            if (c[0] == '*' && c[1] == '/') {
                st = CODE;
                *c++ = ' ';
                *c = ' ';
            } else if (*c != '\n') {
                *c = ' ';
            }
            break;
        case LINE:
            if (*c == '\n')
                st = CODE;
            else
                *c = ' ';
            break;
        }
    }
}

/* name as a whole quoted string, also inside a longer literal: "x", \"x\". */
static bool quotes_name(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name))
        if (p > text && p[-1] == '"' && (p[n] == '"' || p[n] == '\\'))
            return true;
    return false;
}

static int scan_dir(const char *dir)
{
    int found = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len = strlen(e->d_name);
        if (e->d_type == DT_DIR) {
            found += scan_dir(path);
            continue;
        }
        if (len < 3 || (strcmp(e->d_name + len - 2, ".c") && strcmp(e->d_name + len - 2, ".h")))
            continue;
        char *text = read_all(path);
        assert_non_null(text);
        strip_comments(text);
        for (size_t i = 0; i < registry_count(); i++) {
            const char *name = registry_at(i)->tool->name;
            if (quotes_name(text, name)) {
                fprintf(stderr, "%s names the tool \"%s\"\n", path, name);
                found++;
            }
        }
        free(text);
    }
    closedir(d);
    return found;
}

static void test_no_tool_names_in_engine_policy_sessions(void **state)
{
    (void)state;
    tools_register_all();
    assert_true(registry_count() > 10);
    int found = 0;
    static const char *const dirs[] = {"src/mcp", "src/policy", "src/session"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", source_root, dirs[i]);
        found += scan_dir(dir);
    }
    mcp_server_finish();
    assert_int_equal(found, 0);
}

int main(int argc, char **argv)
{
    source_root = argc > 1 ? argv[1] : ".";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_tool_names_in_engine_policy_sessions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
