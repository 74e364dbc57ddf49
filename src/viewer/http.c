/* The viewer's HTTP side: the page and its files (gzip, compiled in), the
 * link exchange (POST /view/auth) and the WebSocket upgrade (GET /view/ws).
 * Every answer forbids framing and inline scripts (Content-Security-Policy)
 * and caching. The bearer token of /mcp is not asked here (a browser cannot
 * send it); nothing here accepts it either, and /mcp never accepts the
 * viewer's cookie. */
#define LOG_MODULE "viewer"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "transport/http_internal.h"
#include "viewer/internal.h"
#include "viewer/ws.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <zlib.h>

/* xterm.js adds <style> elements of its own: styles may be inline, scripts
 * never. */
static const char csp[] = "default-src 'none'; script-src 'self'; style-src 'self' "
                          "'unsafe-inline'; img-src 'self' blob: data:; connect-src 'self'; "
                          "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

bool viewer_path(const char *path)
{
    return strcmp(path, "/view") == 0 || strncmp(path, "/view/", 6) == 0;
}

static void secure_headers(struct http_req *req)
{
    http_req_header(req, "content-security-policy", csp);
    http_req_header(req, "x-frame-options", "DENY");
    http_req_header(req, "x-content-type-options", "nosniff");
    http_req_header(req, "referrer-policy", "no-referrer");
    http_req_header(req, "cache-control", "no-store");
    http_req_header(req, "cross-origin-opener-policy", "same-origin");
}

static void answer_json(struct http_req *req, int status, json_t *o)
{
    char *body = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    http_req_respond(req, status, "application/json", body, strlen(body));
    free(body);
}

static void answer_error(struct http_req *req, int status, const char *msg)
{
    log_info("%s from %s: %d %s", req->path, req->remote, status, msg);
    answer_json(req, status, json_pack("{s:s}", "error", msg));
}

static bool accepts_gzip(const struct http_req *req)
{
    const char *a = req->accept_encoding;
    return a && strstr(a, "gzip");
}

static void serve_asset(struct http_req *req, const struct view_asset *a)
{
    if (accepts_gzip(req)) {
        http_req_header(req, "content-encoding", "gzip");
        http_req_header(req, "vary", "Accept-Encoding");
        http_req_respond(req, 200, a->mime, (const char *)a->gz, a->gz_len);
        return;
    }
    /* A client without gzip (curl without --compressed) gets it inflated. */
    unsigned char *plain = xmalloc(a->len + 1);
    z_stream z = {0};
    inflateInit2(&z, 16 + MAX_WBITS);
    z.next_in = (unsigned char *)a->gz;
    z.avail_in = (uInt)a->gz_len;
    z.next_out = plain;
    z.avail_out = (uInt)a->len + 1;
    int rc = inflate(&z, Z_FINISH);
    inflateEnd(&z);
    if (rc != Z_STREAM_END)
        answer_error(req, 500, "a viewer file is damaged");
    else
        http_req_respond(req, 200, a->mime, (const char *)plain, a->len);
    free(plain);
}

static void auth(struct viewer *v, struct http_req *req)
{
    json_error_t jerr;
    json_t *body = json_loadb(req->body.data ? req->body.data : "", req->body.len, 0, &jerr);
    const char *link = json_string_value(json_object_get(body, "link"));
    if (!link) {
        json_decref(body);
        answer_error(req, 400,
                     "expected a JSON body {\"link\": \"<the part after # of the link>\"}");
        return;
    }
    char cookie[65];
    const struct view_grant *g;
    int status;
    const char *why;
    bool ok = viewer_grant_exchange(v, link, cookie, &g, &status, &why);
    json_decref(body);
    if (!ok) {
        answer_error(req, status, why);
        return;
    }
    int64_t left = g->expires - (int64_t)time(NULL);
    char *set = xasprintf("%s=%s; Path=/view; HttpOnly; SameSite=Strict; Max-Age=%lld%s",
                          VIEW_COOKIE, cookie, (long long)left, req->wsi ? "; Secure" : "");
    http_req_header(req, "set-cookie", set);
    free(set);
    answer_json(req, 200,
                json_pack("{s:s, s:s, s:I}", "role", view_role_name(g->role), "session", g->session,
                          "expires_in", (json_int_t)left));
}

static bool has_token(const char *list, const char *token)
{
    for (const char *p = list; p && *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t n = strcspn(p, ", ");
        if (n == strlen(token) && strncasecmp(p, token, n) == 0)
            return true;
        p += n;
    }
    return false;
}

static void upgrade(struct viewer *v, struct http_req *req)
{
    if (req->method != HTTP_GET) {
        answer_error(req, 405, "/view/ws takes GET with Upgrade: websocket");
        return;
    }
    const struct view_grant *g = viewer_grant_of_cookie(v, req->cookie);
    if (!g) {
        answer_error(req, 401, "no valid viewer cookie: open a link from glovebox view");
        return;
    }
    if (!req->upgrade || strcasecmp(req->upgrade, "websocket") != 0 || !req->ws_key ||
        strlen(req->ws_key) != 24 || !req->ws_version || strcmp(req->ws_version, "13") != 0) {
        http_req_header(req, "sec-websocket-version", "13");
        answer_error(req, 426, "expected a WebSocket upgrade (version 13)");
        return;
    }
    if (!has_token(req->ws_protocol, VIEW_PROTOCOL)) {
        answer_error(req, 400, "Sec-WebSocket-Protocol: expected " VIEW_PROTOCOL);
        return;
    }
    if (req->wsi) {
        /* Over HTTPS libwebsockets upgrades a request naming the protocol
         * itself (ws_lws.c); one that reaches here it did not take. */
        answer_error(req, 501, "this WebSocket upgrade cannot be served over HTTPS");
        return;
    }
    if (v->n_clients >= VIEW_MAX_CLIENTS) {
        answer_error(req, 503, "too many viewer pages are open (at most 32)");
        return;
    }
    char key[25];
    memcpy(key, req->ws_key, sizeof key);
    struct view_grant grant = *g;
    struct strbuf rest;
    strbuf_init(&rest);
    int fd;
    if (!http_conn_detach(req, &fd, &rest)) {
        strbuf_finish(&rest);
        answer_error(req, 500, "cannot take over the connection");
        return;
    }
    /* req is gone. */
    viewer_client_open(v, fd, key, rest.data, rest.len, &grant);
    strbuf_finish(&rest);
}

bool viewer_route(struct http_req *req)
{
    if (!viewer_path(req->path))
        return false;
    struct viewer *v = req->t->viewer;
    if (!v || v->shut) {
        http_req_respond(req, 503, "text/plain", "shutting down\n", 14);
        return true;
    }
    if (strcmp(req->path, "/view/ws") == 0) {
        /* The answer to an upgrade is the 101, not a page: no page headers. */
        upgrade(v, req);
        return true;
    }
    secure_headers(req);
    if (strcmp(req->path, "/view/auth") == 0) {
        if (req->method != HTTP_POST) {
            http_req_header(req, "allow", "POST");
            answer_error(req, 405, "/view/auth takes POST");
        } else {
            auth(v, req);
        }
        return true;
    }
    if (req->method != HTTP_GET) {
        http_req_header(req, "allow", "GET");
        answer_error(req, 405, "the viewer's pages take GET");
        return true;
    }
    const char *path = strcmp(req->path, "/view") == 0 || strcmp(req->path, "/view/") == 0
                           ? "/view/index.html"
                           : req->path;
    for (size_t i = 0; i < view_n_assets; i++) {
        if (strcmp(view_assets[i].path, path) == 0) {
            serve_asset(req, &view_assets[i]);
            return true;
        }
    }
    answer_error(req, 404, "not a file of the viewer");
    return true;
}
