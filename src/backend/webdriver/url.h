/* URLs of WebDriver endpoints and pages: which are accepted, and how they
 * are shown. Credentials in a URL's userinfo (user:password@) are used to
 * reach the endpoint but never shown: every message, result, log line and
 * session_list entry uses wd_url_display. In the executable (the tools
 * check their arguments before the module is loaded). */
#pragma once
#include <stdbool.h>

/* url without its userinfo ("http://u:p@h:1/x" -> "http://h:1/x"). Caller
 * frees. Strings that are not URLs come back unchanged. */
char *wd_url_display(const char *url);
/* Whether url is an absolute http: or https: URL with a host. False with
 * *err (caller frees) naming field, what was given (without userinfo) and
 * what is expected. */
bool wd_url_check_http(const char *field, const char *url, char **err);
/* url with the credentials of the environment variable name ("user:password",
 * percent-encoded into the userinfo) — for endpoints whose credentials stay
 * out of tool arguments and so out of the audit log. NULL with *err naming
 * field when the variable is unset, not user:password, or url has
 * credentials already. Caller frees. */
char *wd_url_with_env_credentials(const char *field, const char *url, const char *name, char **err);
