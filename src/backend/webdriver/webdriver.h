/* The webdriver backend: browsers and devices behind a W3C WebDriver
 * endpoint (chromedriver, an Appium server, a Selenium grid, a farm hub).
 * Every WebDriver command is an HTTP request made on the loop (http.h);
 * without an endpoint glovebox starts chromedriver with a headless Chromium
 * of its own and ends both with the session. */
#pragma once
#include "core/error_code.h"

#include <jansson.h>
#include <stdbool.h>

struct app;
struct session;
struct session_client;
struct tool;
struct resource_provider;

/* A device of AWS Device Farm (webdriver_connect {provider: "aws-device-farm"}). */
struct webdriver_farm {
    const char *project_arn, *device_arn, *app_arn; /* app_arn may be NULL */
    const char *region;                             /* NULL: AWS_REGION or us-west-2 */
};

struct webdriver_options {
    const char *url;             /* endpoint, may hold user:password@; NULL: own chromedriver */
    const json_t *capabilities;  /* added to alwaysMatch; NULL: none */
    const char *attach;          /* an existing remote session id; NULL: create one */
    const char *name;            /* optional session label */
    long timeout_ms;             /* every request to the endpoint */
    int keepalive_s;             /* a cheap command after this long idle; 0: never; -1: default */
    int width, height;           /* the window of a browser glovebox starts */
    const char *credentials_env; /* the variable url's credentials came from; NULL: none */
    const struct webdriver_farm *farm; /* instead of url: a device farm makes the endpoint */
    /* What a slow start is doing ("AWS Device Farm prepares the device"),
     * for the caller's progress notifications; NULL: not told. */
    void (*progress)(void *ud, const char *message);
    const struct session_client *client;
};

/* The connect ended: s is live, or NULL with code and err (for the user;
 * no credentials in it). */
typedef void (*webdriver_connected_fn)(void *ud, struct session *s, enum error_code code,
                                       const char *err);

/* What the webdriver module offers (backend_load("webdriver")). */
struct webdriver_api {
    /* Starts connecting; done runs exactly once, later, on the loop. */
    void (*connect)(struct app *app, const struct webdriver_options *o, webdriver_connected_fn done,
                    void *ud);
    /* Deletes remote sessions a server that did not stop left behind
     * (rows of the session table: {endpoint, remote, credentials_env}),
     * logging what became of each. */
    void (*sweep)(struct app *app, const json_t *orphans);
};

/* The same, for the session table's orphans at start-up: loads the module
 * only when there are some (webdriver_sweep.c, in the executable). */
void webdriver_sweep_orphans(struct app *app, const json_t *orphans);

/* The tools of webdriver sessions (kinds.c lists the one that starts them). */
extern const struct tool tool_webdriver_connect;
extern const struct tool tool_open_url;
extern const struct tool tool_browser_logs;
extern const struct tool tool_storage_save;
extern const struct tool tool_storage_load;
extern const struct tool tool_upload_file;
extern const struct tool tool_downloads;

/* Downloads of glovebox's own Chromium (downloads.c): the session's folder
 * <data dir>/downloads/<id> (malloc'd); made empty for a new session
 * (NULL with *err); removed with what is in it. */
char *webdriver_downloads_dir(struct app *app, const char *session_id);
char *webdriver_downloads_prepare(struct app *app, const char *session_id, char **err);
void webdriver_downloads_remove(struct app *app, const char *session_id);
/* The glovebox://download/{session}/{name} resources. */
extern const struct resource_provider webdriver_download_provider;
