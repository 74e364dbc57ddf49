/* Links exchanged for page grants. The link's secret arrives once, in the
 * body of POST /view/auth (it travelled after '#', which browsers never
 * send); the page then holds an HttpOnly, SameSite=Strict cookie whose
 * value is random and of which only the hash is kept here. A grant lasts
 * as long as its link: deleting the link's file (glovebox view --revoke)
 * ends it. */
#include "core/xmalloc.h"
#include "viewer/internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static void prune(struct viewer *v)
{
    int64_t now = (int64_t)time(NULL);
    int n = 0;
    for (struct view_grant **p = &v->grants; *p;) {
        struct view_grant *g = *p;
        if (g->expires <= now || ++n > VIEW_MAX_GRANTS) {
            *p = g->next;
            free(g);
        } else {
            p = &g->next;
        }
    }
}

bool viewer_grant_exchange(struct viewer *v, const char *link, char *cookie,
                           const struct view_grant **out, int *status, const char **why)
{
    *status = 403;
    const char *dot = strchr(link, '.');
    if (!dot || dot - link != VIEW_ID_LEN || strlen(dot + 1) != VIEW_SECRET_LEN) {
        *status = 400;
        *why = "link: expected the part after '#' of a glovebox view link (id.secret)";
        return false;
    }
    char id[VIEW_ID_LEN + 1];
    memcpy(id, link, VIEW_ID_LEN);
    id[VIEW_ID_LEN] = '\0';
    struct view_link l;
    char hash[65];
    view_sha256_hex(dot + 1, VIEW_SECRET_LEN, hash);
    if (!v->app->data_dir || !view_link_load(v->app->data_dir, id, &l) ||
        !view_equal_ct(l.hash, hash)) {
        *why = "this viewer link is not valid (revoked, or never made here)";
        return false;
    }
    int64_t now = (int64_t)time(NULL);
    if (l.expires <= now) {
        *why = "this viewer link has expired: make a new one with glovebox view";
        return false;
    }
    if (l.once) {
        if (l.used) {
            *why = "this viewer link opened a page already (it was made with --once)";
            return false;
        }
        l.used = true;
        char *err = NULL;
        if (!view_link_save(v->app->data_dir, &l, &err)) {
            free(err);
            *status = 500;
            *why = "cannot mark the once link used in the data directory";
            return false;
        }
    }
    if (!view_random_hex(cookie, 32)) {
        *status = 500;
        *why = "no random bytes available";
        return false;
    }
    prune(v);
    struct view_grant *g = xcalloc(1, sizeof *g);
    view_sha256_hex(cookie, 64, g->cookie_hash);
    memcpy(g->link_id, l.id, sizeof g->link_id);
    g->role = l.role;
    memcpy(g->session, l.session, sizeof g->session);
    g->expires = l.expires;
    g->next = v->grants;
    v->grants = g;
    *out = g;
    return true;
}

bool viewer_grant_valid(struct viewer *v, const struct view_grant *g, const char **why)
{
    if (g->expires <= (int64_t)time(NULL)) {
        *why = "the viewer link expired";
        return false;
    }
    if (!v->app->data_dir || !view_link_exists(v->app->data_dir, g->link_id)) {
        *why = "the viewer link was revoked";
        return false;
    }
    return true;
}

const struct view_grant *viewer_grant_of_cookie(struct viewer *v, const char *header)
{
    if (!header)
        return NULL;
    /* "a=1; glovebox_view=<64 hex>; b=2" */
    static const char name[] = VIEW_COOKIE "=";
    for (const char *p = header; p && *p;) {
        while (*p == ' ' || *p == ';')
            p++;
        if (strncmp(p, name, sizeof name - 1) == 0) {
            const char *val = p + sizeof name - 1;
            size_t n = strcspn(val, "; ");
            if (n != 64)
                return NULL;
            char hash[65];
            view_sha256_hex(val, 64, hash);
            const char *why;
            for (struct view_grant *g = v->grants; g; g = g->next)
                if (view_equal_ct(g->cookie_hash, hash))
                    return viewer_grant_valid(v, g, &why) ? g : NULL;
            return NULL;
        }
        p = strchr(p, ';');
    }
    return NULL;
}

void viewer_grants_finish(struct viewer *v)
{
    while (v->grants) {
        struct view_grant *g = v->grants;
        v->grants = g->next;
        free(g);
    }
}
