/* The commands of the glovebox binary. Each returns the process exit code:
 * 0 success, 1 failure at run time, 2 usage error (bad flag or value),
 * and for doctor 1 when something a backend needs is missing. */
#pragma once

enum { EXIT_OK = 0, EXIT_FAILURE_RUNTIME = 1, EXIT_USAGE = 2 };

int cli_serve(int argc, char **argv);
int cli_doctor(int argc, char **argv);
int cli_tools(int argc, char **argv);
int cli_audit(int argc, char **argv);
/* glovebox computer-spec: the computer-use tool definition for a screen size. */
int cli_computer_spec(int argc, char **argv);
/* glovebox recipes (list recipes and runs) and glovebox recipe run. */
int cli_recipes(int argc, char **argv);
int cli_recipe(int argc, char **argv);
/* glovebox policy init|check. */
int cli_policy(int argc, char **argv);
/* Pause / resume running servers (SIGUSR1 / SIGUSR2). */
int cli_stop(int argc, char **argv);
int cli_resume(int argc, char **argv);
/* glovebox view: a link to the live viewer. */
int cli_view(int argc, char **argv);
/* A command that signals every running glovebox serve of this user (or the
 * one given with --pid): stop, resume, policy apply. */
struct cli_signal_command {
    const char *name; /* as typed after "glovebox " */
    int sig;
    const char *done;  /* "paused": what the server did */
    const char *about; /* the help text's description */
};
int cli_signal_servers(int argc, char **argv, const struct cli_signal_command *c);
/* Extra tools for the test binary; a no-op in the real one. */
void cli_register_extra_tools(void);
