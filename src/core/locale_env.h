/* The locale of the programs glovebox starts. MCP clients often start
 * servers with a minimal environment (no LANG): programs would then run in
 * the C locale, where GTK cannot read non-ASCII arguments and terminal
 * programs mangle text, while every screen glovebox shows is UTF-8. */
#pragma once
#include <stdbool.h>

/* Added when the environment chooses no locale. */
#define LOCALE_ENV_DEFAULT_NAME  "LANG"
#define LOCALE_ENV_DEFAULT_VALUE "C.UTF-8"

/* Whether env (NULL-terminated "NAME=value" strings) chooses a locale: a
 * non-empty LC_ALL, LC_CTYPE or LANG. */
bool locale_env_chosen(char *const *env);
