/* glovebox: an MCP server that gives AI agents eyes and hands on screens. */
#include "backend/backend.h"
#include "cli/cli.h"
#include "core/log.h"
#include "core/version.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *to)
{
    fputs("Usage: glovebox <command> [options]\n"
          "\n"
          "Commands:\n"
          "  serve     run the MCP server (stdio by default)\n"
          "  tools     print the tool list as JSON\n"
          "  doctor    check what each kind of session needs on this machine\n"
          "  policy    init: write a starter policy; check: explain what a policy allows\n"
          "  audit     print the audit log of tool calls (--since, --tool, --json, --follow)\n"
          "  recipes   list saved recipes and their runs; recipe run NAME KEY=VALUE...\n"
          "  computer-spec  print the computer-use tool definition for a screen size\n"
          "  stop      pause every input action of the running servers (resume: resume)\n"
          "  resume    let paused servers act again\n"
          "  view      print a link to watch the running server's sessions in a browser\n"
          "  version   print the version\n"
          "  help      show this help\n"
          "\n"
          "Options: -h, --help (also after a command), -V, --version\n"
          "Environment: GLOVEBOX_LOG=debug|info|warning|error (logs go to stderr)\n",
          to);
}

int main(int argc, char **argv)
{
    /* A client that goes away mid-write must not kill us with SIGPIPE; the
     * write fails instead and is handled. */
    signal(SIGPIPE, SIG_IGN);
    log_init();
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("glovebox %s\n", GLOVEBOX_VERSION);
        return EXIT_OK;
    }
    int (*run)(int, char **) = strcmp(cmd, "serve") == 0           ? cli_serve
                               : strcmp(cmd, "doctor") == 0        ? cli_doctor
                               : strcmp(cmd, "tools") == 0         ? cli_tools
                               : strcmp(cmd, "audit") == 0         ? cli_audit
                               : strcmp(cmd, "recipes") == 0       ? cli_recipes
                               : strcmp(cmd, "recipe") == 0        ? cli_recipe
                               : strcmp(cmd, "computer-spec") == 0 ? cli_computer_spec
                               : strcmp(cmd, "policy") == 0        ? cli_policy
                               : strcmp(cmd, "stop") == 0          ? cli_stop
                               : strcmp(cmd, "resume") == 0        ? cli_resume
                               : strcmp(cmd, "view") == 0          ? cli_view
                                                                   : NULL;
    if (run) {
        int rc = run(argc - 1, argv + 1);
        backends_finish();
        return rc;
    }
    fprintf(stderr, "glovebox: unknown command \"%s\"\n\n", cmd);
    usage(stderr);
    return EXIT_USAGE;
}
