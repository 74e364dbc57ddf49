/* Viewer links: `glovebox view` writes one file per link under
 * DATA_DIR/viewer/links/<id>.json holding the SHA-256 of its secret, never
 * the secret itself; the server reads it when a page hands over the secret.
 * Deleting the file revokes the link and every page that used it. Each
 * serve with HTTP writes DATA_DIR/viewer/serve-<pid>.url so the command
 * finds where it listens. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum view_role { VIEW_WATCH, VIEW_APPROVE, VIEW_CONTROL };

#define VIEW_ID_LEN     16 /* hex characters */
#define VIEW_SECRET_LEN 43 /* base64url of 32 random bytes */

struct view_link {
    char id[VIEW_ID_LEN + 1];
    char hash[65]; /* hex SHA-256 of the secret */
    enum view_role role;
    char session[48]; /* "" for every session */
    int64_t expires;  /* unix seconds */
    bool once;
    bool used; /* a once link that has been exchanged */
};

const char *view_role_name(enum view_role r);
bool view_role_parse(const char *s, enum view_role *out);

/* Fills buf (cap >= 2*n+1) with the hex of n random bytes; false when the
 * system has no randomness to give. */
bool view_random_hex(char *buf, size_t n);
/* base64url (no padding) of 32 random bytes into out[VIEW_SECRET_LEN + 1]. */
bool view_random_secret(char *out);
/* Hex SHA-256 of s into out[65]. */
void view_sha256_hex(const char *s, size_t len, char *out);
/* Equal in time independent of where they differ (same length strings). */
bool view_equal_ct(const char *a, const char *b);

/* DATA_DIR/viewer/links (created, 0700, with its parent); malloc'd, or NULL
 * with *err. */
char *view_links_dir(const char *data_dir, bool create, char **err);
/* Write a link's file; false with *err. */
bool view_link_save(const char *data_dir, const struct view_link *l, char **err);
/* Read link id; false when it does not exist or is malformed (revoked). */
bool view_link_load(const char *data_dir, const char *id, struct view_link *out);
/* Whether the link's file still exists. */
bool view_link_exists(const char *data_dir, const char *id);
/* Remove link id (or every link with id "all"); how many were removed. */
int view_link_revoke(const char *data_dir, const char *id);

/* The url file of server pid: path malloc'd. */
char *view_url_path(const char *data_dir, long pid);
