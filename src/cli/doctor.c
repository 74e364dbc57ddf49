/* glovebox doctor: what each kind of session needs, and what is missing
 * here with the Debian package that provides it, and how sessions'
 * processes are contained. */
#include "backend/backend.h"
#include "cli/cli.h"
#include "core/pidns.h"

#include <stdio.h>
#include <string.h>

int cli_doctor(int argc, char **argv)
{
    bool as_json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            puts("Usage: glovebox doctor [--json]\n"
                 "\n"
                 "Checks what each kind of session (terminal, desktop, vnc, webdriver, android)\n"
                 "needs on this machine and prints what is missing with the Debian package\n"
                 "that provides it, and which containment keeps a session's processes from\n"
                 "outliving it (pid-namespace, user+pid-namespace, or none and why).\n"
                 "Exit status: 0 when every implemented kind can run, 1 when something is\n"
                 "missing, 2 on a usage error.");
            return EXIT_OK;
        }
        if (strcmp(argv[i], "--json") == 0) {
            as_json = true;
            continue;
        }
        fprintf(stderr, "glovebox doctor: unknown option \"%s\" (try --help)\n", argv[i]);
        return EXIT_USAGE;
    }
    json_t *all = backend_check_all();
    bool missing_any = false;
    size_t i;
    json_t *b;
    json_array_foreach(all, i, b)
    {
        bool implemented = json_is_true(json_object_get(b, "implemented"));
        if (implemented && json_array_size(json_object_get(b, "missing")) > 0)
            missing_any = true;
    }
    if (as_json) {
        char *s = json_dumps(all, JSON_INDENT(2));
        puts(s);
        free(s);
    } else {
        json_array_foreach(all, i, b)
        {
            const char *kind = json_string_value(json_object_get(b, "kind"));
            bool implemented = json_is_true(json_object_get(b, "implemented"));
            json_t *missing = json_object_get(b, "missing");
            const char *not_built = json_string_value(json_object_get(b, "not_built"));
            const char *state = not_built                       ? "not in this build"
                                : !implemented                  ? "not in this build yet"
                                : json_array_size(missing) == 0 ? "ready"
                                                                : "missing requirements";
            printf("%-10s %s\n", kind, state);
            if (not_built)
                printf("           %s\n", not_built);
            size_t j;
            json_t *m;
            json_array_foreach(missing, j, m)
            {
                printf("           missing %s — apt-get install %s\n",
                       json_string_value(json_object_get(m, "what")),
                       json_string_value(json_object_get(m, "package")));
            }
        }
        enum pidns_mode mode = pidns_mode();
        printf("%-10s %s%s%s\n", "containment", pidns_mode_name(mode),
               mode == PIDNS_NONE ? " — " : "", mode == PIDNS_NONE ? pidns_reason() : "");
        puts(missing_any ? "\nSome requirements are missing (see above)."
                         : "\nEverything the implemented session kinds need is here.");
    }
    json_decref(all);
    return missing_any ? EXIT_FAILURE_RUNTIME : EXIT_OK;
}
