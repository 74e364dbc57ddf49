/* glovebox view: a link for a person to watch, approve or take over the
 * running server's sessions in a browser (docs/viewer.md). The secret is
 * printed once, after '#', so it never reaches a server log, a proxy or the
 * browser's history of requests; only its hash is kept. */
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/pidfile.h"
#include "core/paths.h"
#include "core/xmalloc.h"
#include "viewer/links.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TTL_S (7L * 24 * 3600)

static void usage(FILE *to)
{
    fputs(
        "Usage: glovebox view [--role watch|approve|control] [--session ID] [--ttl 15m]\n"
        "                     [--once] [--pid PID] [--data-dir DIR]\n"
        "       glovebox view --list | --revoke ID|all [--data-dir DIR]\n"
        "\n"
        "Prints a link to the live viewer of the running glovebox serve (started with\n"
        "--http). Open it in a browser: it shows the sessions, live.\n"
        "\n"
        "Options:\n"
        "  --role R       watch (default): see only; approve: also answer confirmations;\n"
        "                 control: also take over input\n"
        "  --session ID   only this session (default: every session)\n"
        "  --ttl T        how long the link and the pages it opened stay valid: 90s,\n"
        "                 15m (default), 2h, 1d; at most 7d\n"
        "  --once         the link opens one page only\n"
        "  --pid PID      the server, when several are running\n"
        "  --data-dir DIR where the servers keep their files (the same as their --data-dir)\n"
        "  --list         the links that are still valid\n"
        "  --revoke ID    end link ID (printed with it) and the pages it opened; all: every link\n",
        to);
}

static bool parse_ttl(const char *s, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v <= 0)
        return false;
    long mul = 1;
    if (*end == 's' && !end[1])
        mul = 1;
    else if (*end == 'm' && !end[1])
        mul = 60;
    else if (*end == 'h' && !end[1])
        mul = 3600;
    else if (*end == 'd' && !end[1])
        mul = 86400;
    else if (*end)
        return false;
    if (v > MAX_TTL_S / mul)
        return false;
    *out = v * mul;
    return true;
}

/* The url of a running server with HTTP: from its url file. */
static char *server_url(const char *dir, long pid)
{
    char *path = view_url_path(dir, pid);
    FILE *f = fopen(path, "r");
    free(path);
    if (!f)
        return NULL;
    char buf[256];
    char *url = NULL;
    if (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\r\n")] = '\0';
        if (buf[0])
            url = xstrdup(buf);
    }
    fclose(f);
    return url;
}

static int list_links(const char *dir)
{
    char *ldir = view_links_dir(dir, false, NULL);
    DIR *d = opendir(ldir);
    struct dirent *e;
    int n = 0;
    time_t now = time(NULL);
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len != VIEW_ID_LEN + 5 || strcmp(e->d_name + VIEW_ID_LEN, ".json") != 0)
            continue;
        char id[VIEW_ID_LEN + 1];
        memcpy(id, e->d_name, VIEW_ID_LEN);
        id[VIEW_ID_LEN] = '\0';
        struct view_link l;
        if (!view_link_load(dir, id, &l) || l.expires <= now)
            continue;
        printf("%s  %-7s  %-20s  expires in %lds%s\n", l.id, view_role_name(l.role),
               l.session[0] ? l.session : "(every session)", (long)(l.expires - now),
               l.once ? (l.used ? "  once, used" : "  once") : "");
        n++;
    }
    if (d)
        closedir(d);
    if (!n)
        printf("no valid viewer links\n");
    free(ldir);
    return EXIT_OK;
}

int cli_view(int argc, char **argv)
{
    enum view_role role = VIEW_WATCH;
    const char *session = "";
    long ttl = 15 * 60, only = 0;
    bool once = false, list = false;
    const char *revoke = NULL;
    char *dir = NULL;
    int rc = EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            free(dir);
            return EXIT_OK;
        } else if (strcmp(a, "--once") == 0) {
            once = true;
        } else if (strcmp(a, "--list") == 0) {
            list = true;
        } else if (!v && (strcmp(a, "--role") == 0 || strcmp(a, "--session") == 0 ||
                          strcmp(a, "--ttl") == 0 || strcmp(a, "--pid") == 0 ||
                          strcmp(a, "--data-dir") == 0 || strcmp(a, "--revoke") == 0)) {
            fprintf(stderr, "glovebox view: a value is needed after \"%s\"\n", a);
            goto out;
        } else if (strcmp(a, "--role") == 0) {
            if (!view_role_parse(v, &role)) {
                fprintf(stderr,
                        "glovebox view: --role expects watch, approve or control, got \"%s\"\n", v);
                goto out;
            }
            i++;
        } else if (strcmp(a, "--session") == 0) {
            if (!*v || strlen(v) >= 48) {
                fprintf(stderr, "glovebox view: --session expects a session id such as "
                                "terminal-1\n");
                goto out;
            }
            session = v;
            i++;
        } else if (strcmp(a, "--ttl") == 0) {
            if (!parse_ttl(v, &ttl)) {
                fprintf(stderr,
                        "glovebox view: --ttl expects a duration such as 90s, 15m, 2h or 1d "
                        "(at most 7d), got \"%s\"\n",
                        v);
                goto out;
            }
            i++;
        } else if (strcmp(a, "--pid") == 0) {
            if (!options_parse_int(v, 2, 0x7fffffff, &only)) {
                fprintf(stderr, "glovebox view: --pid expects a process id, got \"%s\"\n", v);
                goto out;
            }
            i++;
        } else if (strcmp(a, "--revoke") == 0) {
            revoke = v;
            i++;
        } else if (strcmp(a, "--data-dir") == 0) {
            free(dir);
            dir = xstrdup(v);
            i++;
        } else {
            fprintf(stderr, "glovebox view: unknown option \"%s\" (try --help)\n", a);
            goto out;
        }
    }
    if (!dir)
        dir = paths_default_data_dir();
    rc = EXIT_FAILURE_RUNTIME;
    if (list) {
        rc = list_links(dir);
        goto out;
    }
    if (revoke) {
        int n = view_link_revoke(dir, revoke);
        if (n)
            printf("revoked %d viewer link%s\n", n, n == 1 ? "" : "s");
        else
            fprintf(stderr, "glovebox view: no viewer link \"%s\" (see glovebox view --list)\n",
                    revoke);
        rc = n ? EXIT_OK : EXIT_FAILURE_RUNTIME;
        goto out;
    }
    char *url = NULL;
    if (only) {
        if (!pidfile_is_server((pid_t)only)) {
            fprintf(stderr, "glovebox view: process %ld is not a glovebox serve of yours\n", only);
            goto out;
        }
        url = server_url(dir, only);
        if (!url) {
            fprintf(stderr,
                    "glovebox view: glovebox serve pid %ld does not serve HTTP (start it "
                    "with --http)\n",
                    only);
            goto out;
        }
    } else {
        pid_t *pids;
        int n = pidfile_scan(dir, &pids), found = 0;
        for (int i = 0; i < n; i++) {
            char *u = server_url(dir, pids[i]);
            if (!u)
                continue;
            if (found++) {
                if (found == 2)
                    fprintf(stderr,
                            "glovebox view: several servers serve HTTP; choose one with --pid:\n"
                            "  %ld\n",
                            only);
                fprintf(stderr, "  %ld\n", (long)pids[i]);
                free(u);
            } else {
                url = u;
                only = pids[i];
            }
        }
        free(n > 0 ? pids : NULL);
        if (found != 1) {
            if (!found)
                fprintf(stderr,
                        "glovebox view: no running glovebox serve with --http found (files in "
                        "%s)\n",
                        dir);
            free(url);
            goto out;
        }
    }
    struct view_link l = {.role = role, .once = once, .expires = (int64_t)time(NULL) + ttl};
    snprintf(l.session, sizeof l.session, "%s", session);
    char secret[VIEW_SECRET_LEN + 1];
    char *err = NULL;
    if (!view_random_hex(l.id, VIEW_ID_LEN / 2) || !view_random_secret(secret)) {
        fprintf(stderr, "glovebox view: no random bytes available\n");
        free(url);
        goto out;
    }
    view_sha256_hex(secret, strlen(secret), l.hash);
    if (!view_link_save(dir, &l, &err)) {
        fprintf(stderr, "glovebox view: %s\n", err);
        free(err);
        free(url);
        goto out;
    }
    printf("%s/view#%s.%s\n", url, l.id, secret);
    fprintf(stderr, "viewer link %s: %s, %s, valid %lds%s; revoke: glovebox view --revoke %s\n",
            l.id, view_role_name(role), session[0] ? session : "every session", ttl,
            once ? ", opens one page" : "", l.id);
    free(url);
    rc = EXIT_OK;
out:
    free(dir);
    return rc;
}
