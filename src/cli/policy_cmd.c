/* glovebox policy init|check|apply: write a starter policy, explain what a
 * policy allows, tool by tool, from the real tool list, and confirm a
 * widened policy to the running servers. */
#include "cli/cli.h"
#include "cli/serve_policy.h"
#include "core/xmalloc.h"
#include "mcp/registry.h"
#include "mcp/server.h"
#include "policy/policy.h"
#include "tools/tools.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROJECT_PATH ".glovebox/policy.json"

/* Every part explained where it stands ("$comment" fields are ignored). */
static const char STARTER[] =
    "{\n"
    "  \"$comment\": \"glovebox permission policy. Tools not in allow are denied (read-only "
    "tools need no entry); deny wins over allow; * matches any run of characters. "
    "glovebox policy check explains what this file allows. See docs/policy.md.\",\n"
    "  \"mode\": \"autopilot\",\n"
    "  \"allow\": [\n"
    "    \"terminal_start\", \"desktop_start\", \"launch_app\", \"session_stop\", \"resize\",\n"
    "    \"type_text\", \"press_key\", \"click\", \"drag\", \"scroll\",\n"
    "    \"window_manage\", \"clipboard_set\", \"record_start\", \"record_stop\"\n"
    "  ],\n"
    "  \"deny\": [],\n"
    "  \"confirm\": [],\n"
    "  \"confirm_timeout_s\": 60,\n"
    "  \"rules\": {\n"
    "    \"$comment\": \"Which programs may run. A bare name (bash) allows that program "
    "from a folder of glovebox's PATH (/usr/bin/bash, never ./bin/bash) WITH ANY ARGUMENTS, "
    "so bash allows bash -c 'any command'; a full path (/usr/bin/git) pins the file. To fix "
    "the arguments too, write {\\\"program\\\": \\\"git\\\", \\\"args\\\": "
    "[\\\"status\\\", \\\"...\\\"]}: one pattern per argument, ... for any further "
    "ones. env lists the variables terminal_start may set beyond the inert ones (LANG, LC_*, "
    "TERM, TZ, ...). desktop_start attaches to an existing display only if displays lists "
    "it.\",\n"
    "    \"terminal_start\": {\"commands\": [\"bash\", \"sh\"], \"env\": []},\n"
    "    \"desktop_start\": {\"commands\": [\"zenity\", \"xterm\"], \"displays\": []},\n"
    "    \"launch_app\": {\"commands\": [\"zenity\", \"xterm\"]},\n"
    "    \"input\": {\"blocked_windows\": [\"*Password*\", \"*password*\"], "
    "\"blocked_apps\": []}\n"
    "  },\n"
    "  \"rate_limits\": {\n"
    "    \"$comment\": \"Token buckets: a call over the limit is refused with the time to "
    "wait.\",\n"
    "    \"global\": {\"per_second\": 50, \"burst\": 100},\n"
    "    \"tools\": {\"type_text\": {\"per_second\": 10, \"burst\": 20}}\n"
    "  }\n"
    "}\n";

static int usage(FILE *to, int code)
{
    fputs("Usage: glovebox policy init [PATH | --project] [--force]\n"
          "       glovebox policy check [PATH]\n"
          "       glovebox policy apply [--pid PID] [--data-dir DIR]\n"
          "\n"
          "init   writes a starter policy with comments on each part to PATH, by\n"
          "       default your own policy ($XDG_CONFIG_HOME/glovebox/policy.json, else\n"
          "       ~/.config/glovebox/policy.json); --project writes ./" PROJECT_PATH ",\n"
          "       which can only narrow your policy (without yours, the read-only\n"
          "       default). An existing file is kept unless --force.\n"
          "check  explains what the policy at PATH (default: the file glovebox serve\n"
          "       would use) allows: the mode, every tool and why, argument rules and\n"
          "       rate limits. Exit 0 when it is valid, 2 when it is not.\n"
          "apply  tells the running servers (every glovebox serve of yours, or --pid)\n"
          "       to read their policy files again and apply them even when they widen\n"
          "       the permissions (SIGHUP); a reload that narrows needs no apply.\n",
          to);
    return code;
}

/* Every missing folder above path (~/.config may not exist yet). */
static bool make_parent(const char *path)
{
    char *copy = xstrdup(path);
    bool ok = true;
    for (char *slash = strchr(copy + 1, '/'); ok && slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        ok = mkdir(copy, 0700) == 0 || errno == EEXIST;
        *slash = '/';
    }
    free(copy);
    return ok;
}

static int init(const char *path, bool project, bool force)
{
    if (!make_parent(path)) {
        fprintf(stderr, "glovebox policy init: cannot create the folder of %s: %s\n", path,
                strerror(errno));
        return EXIT_FAILURE_RUNTIME;
    }
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (force ? O_TRUNC : O_EXCL);
    int fd = open(path, flags, 0600);
    if (fd < 0) {
        if (errno == EEXIST)
            fprintf(stderr, "glovebox policy init: %s exists; it is kept (--force replaces it)\n",
                    path);
        else
            fprintf(stderr, "glovebox policy init: cannot write %s: %s\n", path, strerror(errno));
        return EXIT_FAILURE_RUNTIME;
    }
    size_t n = strlen(STARTER);
    bool ok = write(fd, STARTER, n) == (ssize_t)n;
    ok = close(fd) == 0 && ok;
    if (!ok) {
        fprintf(stderr, "glovebox policy init: cannot write %s: %s\n", path, strerror(errno));
        return EXIT_FAILURE_RUNTIME;
    }
    printf("wrote %s: terminal sessions of bash and sh, private desktops, mode autopilot.\n", path);
    if (project)
        printf("This is a project policy: it can only narrow the policy of whoever runs "
               "glovebox serve here (their own file, else the read-only default), never allow "
               "more.\nEdit it, then see what it allows with: glovebox policy check\n");
    else
        printf("Edit it, then see what it allows with: glovebox policy check %s\n", path);
    return EXIT_OK;
}

static void print_json_lists(const char *title, json_t *o)
{
    if (json_object_size(o) == 0)
        return;
    printf("%s:\n", title);
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        char *s = json_dumps(v, JSON_COMPACT);
        printf("  %-18s %s\n", key, s);
        free(s);
    }
}

static void no_user_policy(void)
{
    char *user = policy_user_path();
    printf("no policy file of your own (%s):\n"
           "glovebox serve is read-only: read-only tools are allowed, every other tool is\n"
           "denied, and a project's ./" PROJECT_PATH " can only narrow that.\n"
           "glovebox policy init writes a starter policy there.\n",
           user ? user : "$XDG_CONFIG_HOME/glovebox/policy.json");
    free(user);
}

static int check(const char *given)
{
    char *path = NULL, *project = NULL;
    if (given)
        path = xstrdup(given);
    else
        policy_find_files(&path, &project);
    /* First: the policy checks its rules against the tools' facts. */
    tools_register_all();
    struct policy *p;
    if (!path && !project) {
        no_user_policy();
        p = policy_create_default();
    } else {
        char *err = NULL;
        p = policy_load_layers(path, project, &err);
        if (!p) {
            fprintf(stderr, "glovebox policy check: %s\n", err);
            free(err);
            mcp_server_finish();
            free(path);
            free(project);
            return EXIT_USAGE;
        }
        if (path)
            printf("policy: %s (valid)\n", path);
        else
            no_user_policy();
        if (project)
            printf("narrowed by the project's policy: %s (valid; a call must pass both)\n",
                   project);
        serve_policy_warn(p, stderr, "glovebox policy check: warning: ");
    }
    static const char *const modes[] = {
        "observe only",
        "every change needs a person's confirmation",
        "the policy alone decides",
    };
    printf("mode: %s (%s)\n", policy_mode_name(policy_mode(p)), modes[policy_mode(p)]);
    puts("tools:");
    for (size_t i = 0; i < registry_count(); i++) {
        const struct tool *t = registry_at(i)->tool;
        char *why = policy_explain(p, t->name, t->annotations.read_only);
        printf("  %-16s %s\n", t->name, why);
        free(why);
    }
    json_t *d = policy_describe(p);
    print_json_lists("argument rules", json_object_get(d, "rules"));
    json_t *rates = json_object_get(d, "rate_limits");
    json_t *limits = json_deep_copy(json_object_get(rates, "tools"));
    if (json_object_get(rates, "global"))
        json_object_set(limits, "(all tools)", json_object_get(rates, "global"));
    print_json_lists("rate limits (calls per second, burst)", limits);
    json_decref(limits);
    json_decref(d);
    mcp_server_finish();
    policy_destroy(p);
    free(path);
    free(project);
    return EXIT_OK;
}

static int apply(int argc, char **argv)
{
    static const struct cli_signal_command c = {
        "policy apply", SIGHUP, "told",
        "Tells every running glovebox serve of this user (or --pid) to read its policy\n"
        "files again and apply them, also when they widen the permissions: a reload that\n"
        "widens waits for this (status shows it as \"pending\"); one that narrows applies\n"
        "at once."};
    return cli_signal_servers(argc, argv, &c);
}

int cli_policy(int argc, char **argv)
{
    const char *verb = argc > 1 ? argv[1] : NULL;
    if (!verb || strcmp(verb, "-h") == 0 || strcmp(verb, "--help") == 0)
        return usage(verb ? stdout : stderr, verb ? EXIT_OK : EXIT_USAGE);
    if (strcmp(verb, "apply") == 0)
        return apply(argc - 1, argv + 1);
    const char *path = NULL;
    bool force = false, project = false;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--force") == 0 && strcmp(verb, "init") == 0)
            force = true;
        else if (strcmp(argv[i], "--project") == 0 && strcmp(verb, "init") == 0)
            project = true;
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return usage(stdout, EXIT_OK);
        else if (argv[i][0] == '-' || path) {
            fprintf(stderr, "glovebox policy %s: unexpected \"%s\" (try --help)\n", verb, argv[i]);
            return EXIT_USAGE;
        } else
            path = argv[i];
    }
    if (strcmp(verb, "init") == 0) {
        if (path && project) {
            fputs("glovebox policy init: give PATH or --project, not both\n", stderr);
            return EXIT_USAGE;
        }
        char *user = path || project ? NULL : policy_user_path();
        if (!path && !project && !user) {
            fputs("glovebox policy init: neither XDG_CONFIG_HOME nor HOME is set, so there is "
                  "no place for your policy; give a PATH\n",
                  stderr);
            return EXIT_USAGE;
        }
        int rc = init(path ? path : project ? PROJECT_PATH : user, project, force);
        free(user);
        return rc;
    }
    if (strcmp(verb, "check") == 0)
        return check(path);
    fprintf(stderr, "glovebox policy: unknown command \"%s\" (init, check or apply)\n", verb);
    return EXIT_USAGE;
}
