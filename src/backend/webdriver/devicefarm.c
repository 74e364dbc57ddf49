/* AWS Device Farm: a remote access session made through the Device Farm
 * API (AWS JSON 1.1 over HTTPS, signed with Signature Version 4 by
 * libcurl), waited for until it runs, then the webdriver session connects
 * to its Appium endpoint; when the session ends, the remote access session
 * is stopped, so no billed device is left running. Credentials come from
 * the standard AWS variables or the ~/.aws/credentials profile and are
 * never shown; AWS_ENDPOINT_URL_DEVICE_FARM points the calls elsewhere (a
 * test's fake endpoint). */
#define LOG_MODULE "webdriver"
#include "backend/webdriver/http.h"
#include "backend/webdriver/internal.h"
#include "backend/webdriver/url.h"

#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TARGET_PREFIX "DeviceFarm_20150623."
/* Device Farm lives in one region. */
#define DEFAULT_REGION  "us-west-2"
#define CALL_TIMEOUT_MS 30000
/* Polls while the device is prepared: soon at first, then every 5 s. */
static const int poll_ms[] = {1000, 2000, 5000};

struct wd_farm {
    struct wd *w; /* NULL once the session has let go (stopping it) */
    struct wd_http *http;
    char *url; /* the API endpoint */
    char *region;
    char *key_id, *secret, *token;
    char *arn; /* the remote access session, once made */
    int polls;
    uint64_t started_ms;
};

static void farm_free(struct wd_farm *f)
{
    wd_http_destroy(f->http);
    free(f->url);
    free(f->region);
    if (f->secret)
        explicit_bzero(f->secret, strlen(f->secret));
    free(f->key_id);
    free(f->secret);
    free(f->token);
    free(f->arn);
    free(f);
}

/* [profile] of an INI file's key = value lines: value of key, or NULL. */
static char *ini_value(const char *path, const char *profile, const char *key)
{
    FILE *fp = fopen(path, "re");
    if (!fp)
        return NULL;
    char line[1024];
    bool in = false;
    char *out = NULL;
    while (!out && fgets(line, sizeof line, fp)) {
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        p[strcspn(p, "\r\n")] = '\0';
        if (*p == '[') {
            char *end = strchr(p, ']');
            in = end && (size_t)(end - p - 1) == strlen(profile) &&
                 !strncmp(p + 1, profile, strlen(profile));
            continue;
        }
        if (!in || strncmp(p, key, strlen(key)))
            continue;
        p += strlen(key);
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '=')
            continue;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strlen(p);
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        out = xstrndup(p, n);
    }
    fclose(fp);
    return out;
}

/* The caller's AWS credentials; false with *err when there are none. */
static bool credentials(struct wd_farm *f, char **err)
{
    const char *id = getenv("AWS_ACCESS_KEY_ID"), *secret = getenv("AWS_SECRET_ACCESS_KEY");
    if (id && *id && secret && *secret) {
        f->key_id = xstrdup(id);
        f->secret = xstrdup(secret);
        const char *token = getenv("AWS_SESSION_TOKEN");
        f->token = token && *token ? xstrdup(token) : NULL;
        return true;
    }
    const char *file = getenv("AWS_SHARED_CREDENTIALS_FILE");
    const char *home = getenv("HOME");
    char *path = file && *file ? xstrdup(file)
                 : home        ? xasprintf("%s/.aws/credentials", home)
                               : NULL;
    const char *profile = getenv("AWS_PROFILE");
    if (!profile || !*profile)
        profile = "default";
    if (path) {
        f->key_id = ini_value(path, profile, "aws_access_key_id");
        f->secret = ini_value(path, profile, "aws_secret_access_key");
        f->token = ini_value(path, profile, "aws_session_token");
    }
    if (f->key_id && f->secret) {
        free(path);
        return true;
    }
    *err = xasprintf("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or "
                     "give profile \"%s\" aws_access_key_id and aws_secret_access_key in %s",
                     profile, path ? path : "~/.aws/credentials");
    free(path);
    return false;
}

typedef void (*farm_reply_fn)(struct wd_farm *f, json_t *doc, const char *err);

struct call {
    struct wd_farm *f;
    farm_reply_fn fn;
};

static void replied(void *ud, const struct wd_http_response *r)
{
    struct call *c = ud;
    struct wd_farm *f = c->f;
    farm_reply_fn fn = c->fn;
    free(c);
    json_t *doc = r->body ? json_loadb(r->body, r->len, 0, NULL) : NULL;
    if (r->error) {
        char *msg = xasprintf("cannot reach AWS Device Farm (%s): %s", f->url, r->error);
        fn(f, NULL, msg);
        free(msg);
    } else if (r->status != 200) {
        /* AWS errors: {"__type": "…#NotFoundException", "message": …}. */
        const char *type = json_string_value(json_object_get(doc, "__type"));
        const char *m = json_string_value(json_object_get(doc, "message"));
        if (!m)
            m = json_string_value(json_object_get(doc, "Message"));
        const char *hash = type ? strrchr(type, '#') : NULL;
        char *msg =
            xasprintf("AWS Device Farm answered HTTP %ld%s%s%s%.300s", r->status, type ? " " : "",
                      type ? (hash ? hash + 1 : type) : "", m ? ": " : "", m ? m : "");
        fn(f, NULL, msg);
        free(msg);
    } else {
        fn(f, doc, NULL);
    }
    json_decref(doc);
}

static void api(struct wd_farm *f, const char *op, json_t *body, farm_reply_fn fn)
{
    char *target = xasprintf(TARGET_PREFIX "%s", op);
    struct wd_aws aws = {.region = f->region,
                         .service = "devicefarm",
                         .target = target,
                         .key_id = f->key_id,
                         .secret = f->secret,
                         .token = f->token};
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    struct call *c = xcalloc(1, sizeof *c);
    c->f = f;
    c->fn = fn;
    wd_http_request_aws(f->http, f->url, &aws, text, CALL_TIMEOUT_MS, replied, c);
    free(text);
    free(target);
}

/* ---- stopping ---- */

static void (*stop_done)(struct wd *w);

static void stopped(struct wd_farm *f, json_t *doc, const char *err)
{
    (void)doc;
    if (err)
        log_warn("cannot stop AWS Device Farm remote access session %s: %s", f->arn, err);
    else
        log_info("stopped AWS Device Farm remote access session %s", f->arn);
    struct wd *w = f->w;
    if (w) {
        w->farm = NULL;
        stop_done(w);
    }
    farm_free(f);
}

bool wd_farm_stop(struct wd *w, void (*done)(struct wd *w))
{
    struct wd_farm *f = w->farm;
    if (!f)
        return false;
    if (!f->arn) {
        w->farm = NULL;
        farm_free(f);
        return false;
    }
    stop_done = done;
    api(f, "StopRemoteAccessSession", json_pack("{s:s}", "arn", f->arn), stopped);
    return true;
}

void wd_farm_release(struct wd *w)
{
    struct wd_farm *f = w->farm;
    if (!f)
        return;
    w->farm = NULL;
    /* Only at exit after a failed shutdown: whatever is in flight is
     * abandoned with the loop. */
    f->w = NULL;
    farm_free(f);
}

/* ---- starting ---- */

static void poll_again(struct wd_farm *f);

static void got_session(struct wd_farm *f, json_t *doc, const char *err)
{
    struct wd *w = f->w;
    if (!w || w->stopping)
        return; /* the session let go: wd_farm_release stops it */
    if (err) {
        wd_fail_start(w, ERROR_DEVICE_UNAVAILABLE, err);
        return;
    }
    const json_t *ras = json_object_get(doc, "remoteAccessSession");
    const char *status = json_string_value(json_object_get(ras, "status"));
    const char *arn = json_string_value(json_object_get(ras, "arn"));
    if (arn && !f->arn)
        f->arn = xstrdup(arn);
    if (!status || !f->arn) {
        wd_fail_start(w, ERROR_TOOL_FAILED,
                      "AWS Device Farm answered without a remote access session");
        return;
    }
    if (!strcmp(status, "RUNNING")) {
        const char *endpoint = json_string_value(json_object_get(ras, "remoteDriverEndpoint"));
        if (!endpoint)
            endpoint = json_string_value(json_object_get(ras, "endpoint"));
        char *uerr = NULL;
        if (!endpoint || !wd_url_check_http("remoteDriverEndpoint", endpoint, &uerr)) {
            char *msg = xasprintf("AWS Device Farm's session %s runs, but %s", f->arn,
                                  uerr ? uerr : "it has no remoteDriverEndpoint");
            wd_fail_start(w, ERROR_TOOL_FAILED, msg);
            free(msg);
            free(uerr);
            return;
        }
        wd_progress(w, "the device is ready; connecting to its Appium endpoint");
        wd_farm_running(w, endpoint);
        return;
    }
    if (!strcmp(status, "COMPLETED") || !strcmp(status, "STOPPING")) {
        const char *result = json_string_value(json_object_get(ras, "result"));
        char *msg = xasprintf("AWS Device Farm's session %s ended before it ran (%s%s%s)", f->arn,
                              status, result ? ", " : "", result ? result : "");
        wd_fail_start(w, ERROR_DEVICE_UNAVAILABLE, msg);
        free(msg);
        return;
    }
    char *msg = xasprintf("AWS Device Farm prepares the device: %s", status);
    wd_progress(w, msg);
    free(msg);
    poll_again(f);
}

static void poll_now(uv_timer_t *t)
{
    struct wd *w = t->data;
    struct wd_farm *f = w->farm;
    if (f && f->arn && !w->stopping)
        api(f, "GetRemoteAccessSession", json_pack("{s:s}", "arn", f->arn), got_session);
}

static void poll_again(struct wd_farm *f)
{
    int n = (int)(sizeof poll_ms / sizeof poll_ms[0]);
    int ms = poll_ms[f->polls < n ? f->polls : n - 1];
    f->polls++;
    uv_timer_start(&f->w->timer, poll_now, (uint64_t)ms, 0);
}

bool wd_farm_start(struct wd *w, const struct webdriver_farm *o, char **err)
{
    struct wd_farm *f = xcalloc(1, sizeof *f);
    if (!credentials(f, err)) {
        farm_free(f);
        return false;
    }
    const char *region = o->region;
    if (!region || !*region)
        region = getenv("AWS_REGION");
    if (!region || !*region)
        region = getenv("AWS_DEFAULT_REGION");
    f->region = xstrdup(region && *region ? region : DEFAULT_REGION);
    const char *over = getenv("AWS_ENDPOINT_URL_DEVICE_FARM");
    f->url = over && *over ? xstrdup(over)
                           : xasprintf("https://devicefarm.%s.amazonaws.com/", f->region);
    f->http = wd_http_create(w->app->loop);
    f->w = w;
    w->farm = f;
    json_t *body =
        json_pack("{s:s, s:s, s:s}", "projectArn", o->project_arn, "deviceArn", o->device_arn,
                  "name", w->session->name ? w->session->name : w->session->id);
    if (o->app_arn)
        json_object_set_new(body, "appArn", json_string(o->app_arn));
    wd_progress(w, "asking AWS Device Farm for the device");
    api(f, "CreateRemoteAccessSession", body, got_session);
    return true;
}
