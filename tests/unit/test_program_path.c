/* Which file a program name stands for: the policy checks exactly the path
 * that will be executed, so these cases are the ones a wrong answer would
 * turn into running a different program than the one allowed. */
#include "core/program_path.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

/* A scratch tree: DIR/bin/tool (executable), DIR/bin/plain (not
 * executable), DIR/other/tool (executable), DIR/sub (empty). */
struct tree {
    char dir[64];
};

static void touch(const char *dir, const char *name, mode_t mode)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\n", f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

static int tree_setup(void **state)
{
    struct tree *t = calloc(1, sizeof *t);
    strcpy(t->dir, "/tmp/gb-program-path-XXXXXX");
    if (!mkdtemp(t->dir))
        return -1;
    char sub[128];
    static const char *const dirs[] = {"bin", "other", "sub"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(sub, sizeof sub, "%s/%s", t->dir, dirs[i]);
        mkdir(sub, 0700);
    }
    snprintf(sub, sizeof sub, "%s/bin", t->dir);
    touch(sub, "tool", 0700);
    touch(sub, "plain", 0600);
    snprintf(sub, sizeof sub, "%s/other", t->dir);
    touch(sub, "tool", 0700);
    *state = t;
    return 0;
}

static int tree_teardown(void **state)
{
    struct tree *t = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
    int rc = system(cmd);
    free(t);
    return rc == 0 ? 0 : -1;
}

static char *at(const struct tree *t, const char *rel)
{
    char *out = malloc(strlen(t->dir) + strlen(rel) + 2);
    sprintf(out, "%s/%s", t->dir, rel);
    return out;
}

static void expect(const char *got, const char *want)
{
    assert_non_null(got);
    assert_string_equal(got, want);
}

static void test_normal_cleans_dots(void **state)
{
    (void)state;
    static const char *const cases[][3] = {
        {"/base", "a/./b", "/base/a/b"},
        {"/base/x", "../y", "/base/y"},
        {"/base", "a//b/", "/base/a/b"},
        {"/base", "../../../../etc/passwd", "/etc/passwd"},
        {"/base", "/abs/../other", "/other"},
        {"/", "..", "/"},
        {"/base", ".", "/base"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = program_path_normal(cases[i][0], cases[i][1]);
        expect(got, cases[i][2]);
        free(got);
    }
}

/* A name with a '/' is relative to the session's cwd, never glovebox's. */
static void test_relative_uses_the_given_cwd(void **state)
{
    struct tree *t = *state;
    char *err = NULL;
    char *got = program_path_resolve("bin/tool", t->dir, "/nonexistent", &err);
    char *want = at(t, "bin/tool");
    expect(got, want);
    free(got);
    free(want);

    char *sub = at(t, "sub");
    got = program_path_resolve("../other/./tool", sub, NULL, &err);
    want = at(t, "other/tool");
    expect(got, want);
    free(got);
    free(want);
    free(sub);
    assert_null(err);
}

/* A bare name is looked up in PATH in order; a file that is not
 * executable is skipped, as execvp does; relative PATH entries are
 * relative to the cwd. */
static void test_bare_name_searches_path(void **state)
{
    struct tree *t = *state;
    char *err = NULL;
    char *bin = at(t, "bin"), *other = at(t, "other");
    char path[512];
    snprintf(path, sizeof path, "%s:%s", other, bin);
    char *got = program_path_resolve("tool", "/", path, &err);
    char *want = at(t, "other/tool");
    expect(got, want);
    free(got);
    free(want);

    snprintf(path, sizeof path, "%s:%s", bin, other);
    got = program_path_resolve("tool", "/", path, &err);
    want = at(t, "bin/tool");
    expect(got, want);
    free(got);
    free(want);

    /* bin/plain exists but cannot run: not found. */
    got = program_path_resolve("plain", "/", bin, &err);
    assert_null(got);
    assert_non_null(err);
    assert_non_null(strstr(err, "\"plain\""));
    assert_non_null(strstr(err, "not found in PATH"));
    free(err);
    err = NULL;

    /* "bin" as a PATH entry means bin under the cwd given. */
    got = program_path_resolve("tool", t->dir, "bin", &err);
    want = at(t, "bin/tool");
    expect(got, want);
    free(got);
    free(want);
    free(bin);
    free(other);
    assert_null(err);
}

static void test_not_found_and_empty(void **state)
{
    struct tree *t = *state;
    char *err = NULL;
    char *bin = at(t, "bin");
    assert_null(program_path_resolve("no-such-program-here", "/", bin, &err));
    assert_non_null(err);
    assert_non_null(strstr(err, "cannot run \"no-such-program-here\""));
    free(err);
    err = NULL;
    assert_null(program_path_resolve("", "/", bin, &err));
    assert_string_equal(err, "empty command");
    free(err);
    free(bin);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normal_cleans_dots),
        cmocka_unit_test_setup_teardown(test_relative_uses_the_given_cwd, tree_setup,
                                        tree_teardown),
        cmocka_unit_test_setup_teardown(test_bare_name_searches_path, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(test_not_found_and_empty, tree_setup, tree_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
