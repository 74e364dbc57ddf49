/* glovebox recipes: the saved recipes and their recent runs.
 * glovebox recipe run NAME KEY=VALUE...: run one from the shell (cron, CI).
 * The run goes through a `glovebox serve` child spoken to over stdio, as
 * any MCP client would: its policy, confirmations (none can be asked here,
 * so a step that needs one is refused), rate limits and audit log apply. */
#include "cli/cli.h"
#include "core/paths.h"
#include "core/version.h"
#include "core/xmalloc.h"
#include "recipe/history_db.h"
#include "recipe/recipe.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS_SHOWN 20

static void recipes_usage(FILE *to)
{
    fputs("Usage: glovebox recipes [--data-dir DIR] [--json]\n"
          "       glovebox recipe run NAME [KEY=VALUE]... [--data-dir DIR] [--json]\n"
          "                           [-- SERVE-OPTIONS...]\n"
          "\n"
          "recipes lists the saved recipes (./.glovebox/recipes, then\n"
          "$XDG_CONFIG_HOME/glovebox/recipes) and the latest runs (DATA_DIR/recipes.db).\n"
          "recipe run runs one through a `glovebox serve` child (its policy and audit log\n"
          "apply; options after -- go to serve, e.g. -- --policy FILE). Values are used\n"
          "literally. Exit status: 0 the run succeeded, 1 it failed, 2 usage.\n",
          to);
}

static void print_time(int64_t ms)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    char buf[32];
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    fputs(buf, stdout);
}

int cli_recipes(int argc, char **argv)
{
    char *data_dir = NULL;
    bool as_json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            as_json = true;
        } else if (strcmp(argv[i], "--data-dir") == 0 && i + 1 < argc) {
            free(data_dir);
            data_dir = xstrdup(argv[++i]);
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            recipes_usage(stdout);
            free(data_dir);
            return EXIT_OK;
        } else {
            fprintf(stderr, "glovebox recipes: unknown option %s\n", argv[i]);
            recipes_usage(stderr);
            free(data_dir);
            return EXIT_USAGE;
        }
    }
    if (!data_dir)
        data_dir = paths_default_data_dir();
    char *db = xasprintf("%s/recipes.db", data_dir);
    free(data_dir);
    json_t *recipes = recipe_list_all();
    char *err = NULL;
    json_t *runs = recipe_history_db_list(db, NULL, RUNS_SHOWN, &err);
    free(db);
    int rc = EXIT_OK;
    if (as_json) {
        json_t *o = json_pack("{s:o, s:o}", "recipes", recipes, "runs", runs ? runs : json_null());
        json_dumpf(o, stdout, JSON_COMPACT);
        putchar('\n');
        json_decref(o);
        recipes = runs = NULL;
    } else {
        size_t i;
        const json_t *r;
        printf("Recipes:\n");
        json_array_foreach(recipes, i, r)
        {
            const char *e = json_string_value(json_object_get(r, "error"));
            printf("%-24s %-8s ", json_string_value(json_object_get(r, "name")),
                   json_string_value(json_object_get(r, "where")));
            if (e)
                printf("invalid: %s\n", e);
            else
                printf("%lld steps  %s\n",
                       (long long)json_integer_value(json_object_get(r, "steps")),
                       json_string_value(json_object_get(r, "description")));
        }
        printf("\nRuns (newest first):\n");
        json_array_foreach(runs, i, r)
        {
            printf("%-28s %-24s %-9s ", json_string_value(json_object_get(r, "run")),
                   json_string_value(json_object_get(r, "recipe")),
                   json_string_value(json_object_get(r, "status")));
            print_time(json_integer_value(json_object_get(r, "started_ms")));
            printf(" %lld ms\n", (long long)(json_integer_value(json_object_get(r, "ended_ms")) -
                                             json_integer_value(json_object_get(r, "started_ms"))));
        }
    }
    if (err) {
        fprintf(stderr, "glovebox recipes: the run history: %s\n", err);
        rc = EXIT_FAILURE_RUNTIME;
    }
    free(err);
    json_decref(recipes);
    json_decref(runs);
    return rc;
}

/* One NDJSON message to the child. */
static bool send_line(FILE *to, json_t *msg)
{
    bool ok = json_dumpf(msg, to, JSON_COMPACT) == 0 && fputc('\n', to) != EOF && fflush(to) == 0;
    json_decref(msg);
    return ok;
}

/* The child's answer to request id, skipping notifications; NULL at EOF. */
static json_t *read_answer(FILE *from, json_int_t id)
{
    char *line = NULL;
    size_t cap = 0;
    json_t *found = NULL;
    while (!found && getline(&line, &cap, from) > 0) {
        json_t *m = json_loads(line, 0, NULL);
        if (json_integer_value(json_object_get(m, "id")) == id &&
            (json_object_get(m, "result") || json_object_get(m, "error")))
            found = m;
        else
            json_decref(m);
    }
    free(line);
    return found;
}

static int run_usage(const char *what)
{
    fprintf(stderr, "glovebox recipe run: %s\n", what);
    recipes_usage(stderr);
    return EXIT_USAGE;
}

static int run_recipe(int argc, char **argv)
{
    const char *name = NULL, *data_dir = NULL;
    bool as_json = false;
    json_t *params = json_object();
    int i = 2, extra = argc;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            extra = i + 1;
            break;
        }
        if (strcmp(a, "--json") == 0) {
            as_json = true;
        } else if (strcmp(a, "--data-dir") == 0 && i + 1 < argc) {
            data_dir = argv[++i];
        } else if (!name && a[0] != '-') {
            name = a;
        } else {
            const char *eq = strchr(a, '=');
            if (!eq || eq == a) {
                json_decref(params);
                char *msg = xasprintf("expected KEY=VALUE, got \"%s\"", a);
                int rc = run_usage(msg);
                free(msg);
                return rc;
            }
            char *key = xstrndup(a, (size_t)(eq - a));
            json_object_set_new(params, key, json_string(eq + 1));
            free(key);
        }
    }
    if (!name) {
        json_decref(params);
        return run_usage("which recipe? (glovebox recipes lists them)");
    }
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0) {
        fprintf(stderr, "glovebox recipe run: pipe: %s\n", strerror(errno));
        json_decref(params);
        return EXIT_FAILURE_RUNTIME;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(to_child[0], 0);
        dup2(from_child[1], 1);
        int n = 0;
        char **av = xcalloc((size_t)(argc + 6), sizeof *av);
        av[n++] = (char *)"glovebox";
        av[n++] = (char *)"serve";
        if (data_dir) {
            av[n++] = (char *)"--data-dir";
            av[n++] = (char *)data_dir;
        }
        for (int k = extra; k < argc; k++)
            av[n++] = argv[k];
        execv("/proc/self/exe", av);
        fprintf(stderr, "glovebox recipe run: cannot start glovebox serve: %s\n", strerror(errno));
        _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    FILE *to = fdopen(to_child[1], "w"), *from = fdopen(from_child[0], "r");
    json_t *answer = NULL;
    bool sent =
        send_line(to, json_pack("{s:s, s:i, s:s, s:{s:s, s:{}, s:{s:s, s:s}}}", "jsonrpc", "2.0",
                                "id", 1, "method", "initialize", "params", "protocolVersion",
                                "2025-11-25", "capabilities", "clientInfo", "name",
                                "glovebox-recipe-run", "version", GLOVEBOX_VERSION));
    json_t *init = sent ? read_answer(from, 1) : NULL;
    if (init) {
        sent = send_line(to, json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method",
                                       "notifications/initialized")) &&
               send_line(to, json_pack("{s:s, s:i, s:s, s:{s:s, s:{s:s, s:O}}}", "jsonrpc", "2.0",
                                       "id", 2, "method", "tools/call", "params", "name",
                                       "recipe_run", "arguments", "name", name, "params", params));
        answer = sent ? read_answer(from, 2) : NULL;
    }
    json_decref(init);
    json_decref(params);
    fclose(to);
    fclose(from);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    const json_t *result = json_object_get(answer, "result");
    const json_t *sc = json_object_get(result, "structuredContent");
    const char *text = json_string_value(
        json_object_get(json_array_get(json_object_get(result, "content"), 0), "text"));
    int rc = EXIT_FAILURE_RUNTIME;
    if (!result) {
        const char *msg =
            json_string_value(json_object_get(json_object_get(answer, "error"), "message"));
        fprintf(stderr, "glovebox recipe run: %s\n",
                msg ? msg : "glovebox serve ended without an answer (see its messages above)");
    } else if (json_is_true(json_object_get(result, "isError"))) {
        fprintf(stderr, "glovebox recipe run: %s\n", text ? text : "failed");
    } else {
        if (as_json)
            json_dumpf(sc, stdout, JSON_COMPACT);
        else
            fputs(text ? text : "", stdout);
        putchar('\n');
        const char *st = json_string_value(json_object_get(sc, "status"));
        rc = st && strcmp(st, "ok") == 0 ? EXIT_OK : EXIT_FAILURE_RUNTIME;
    }
    json_decref(answer);
    return rc;
}

int cli_recipe(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "run") == 0)
        return run_recipe(argc, argv);
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        recipes_usage(stdout);
        return EXIT_OK;
    }
    fprintf(stderr, "glovebox recipe: expected \"run NAME [KEY=VALUE]...\"\n");
    recipes_usage(stderr);
    return EXIT_USAGE;
}
