/* glovebox computer-spec: the tool definition a computer-use loop passes to
 * the model API (Anthropic's computer_20251124), in the model's coordinate
 * space of a screen of the given size, so that the model's actions can go
 * to glovebox's computer tool verbatim (docs/computer.md). */
#include "cli/cli.h"
#include "core/paths.h"
#include "core/xmalloc.h"
#include "tools/computer.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *to)
{
    fputs("Usage: glovebox computer-spec [--width W --height H | --session ID [--data-dir DIR]]\n"
          "\n"
          "Prints the computer-use tool definition for a screen of W x H pixels (default\n"
          "1280 x 800, desktop_start's default) as one JSON object:\n"
          "{type: \"computer_20251124\", name: \"computer\", display_width_px,\n"
          "display_height_px, enable_zoom: true}, the sizes in the model's coordinate space\n"
          "(long side at most 1568 px, at most 1.15 megapixels) that the computer tool's\n"
          "screenshots have.\n"
          "\n"
          "Options:\n"
          "  --width W, --height H   the screen's size in pixels (16-16384)\n"
          "  --session ID            the size of a running server's session, from the session\n"
          "                          table in the data folder (a live session of that id)\n"
          "  --data-dir DIR          the server's data folder (default $XDG_DATA_HOME/glovebox)\n"
          "  -h, --help              show this help\n"
          "\n"
          "Exit status: 0 on success, 1 when the session is not found or has no pixels,\n"
          "2 on a usage error.\n",
          to);
}

static bool parse_size(const char *flag, const char *v, int *out)
{
    char *end = NULL;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || *end || n < 16 || n > 16384) {
        fprintf(stderr,
                "glovebox computer-spec: %s needs a number of pixels from 16 to 16384%s%s\n", flag,
                v ? ", got " : "", v ? v : "");
        return false;
    }
    *out = (int)n;
    return true;
}

/* The screen size of the newest live session `id` in the session table of
 * data_dir (servers sharing that folder write it: docs/rest.md); false
 * after saying why. */
static bool session_size(const char *data_dir, const char *id, int *w, int *h)
{
    char *dir = data_dir ? xstrdup(data_dir) : paths_default_data_dir();
    char *path = dir ? xasprintf("%s/sessions.db", dir) : NULL;
    free(dir);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    bool found = false, sized = false;
    if (path && sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db,
                           "SELECT width, height FROM sessions WHERE id = ? AND state != 'ended' "
                           "ORDER BY created_ms DESC LIMIT 1",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(db, 2000);
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) {
            found = true;
            *w = sqlite3_column_int(st, 0);
            *h = sqlite3_column_int(st, 1);
            sized = *w >= 16 && *h >= 16;
        }
    }
    if (!found)
        fprintf(stderr,
                "glovebox computer-spec: no live session \"%s\" in %s (the session table of "
                "servers using that data folder; --data-dir picks another)\n",
                id, path ? path : "the data folder (set XDG_DATA_HOME or HOME)");
    else if (!sized)
        fprintf(stderr,
                "glovebox computer-spec: session \"%s\" has no screen in pixels (a terminal "
                "takes type, key and screenshot only)\n",
                id);
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(path);
    return found && sized;
}

int cli_computer_spec(int argc, char **argv)
{
    int w = 1280, h = 800;
    const char *session = NULL, *data_dir = NULL;
    bool sized = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        }
        if (!strcmp(a, "--width") || !strcmp(a, "--height")) {
            if (!parse_size(a, i + 1 < argc ? argv[i + 1] : NULL, a[2] == 'w' ? &w : &h))
                return EXIT_USAGE;
            sized = true;
            i++;
        } else if (!strcmp(a, "--session") || !strcmp(a, "--data-dir")) {
            const char *v = i + 1 < argc ? argv[i + 1] : NULL;
            if (!v || !*v) {
                fprintf(stderr, "glovebox computer-spec: %s needs a value\n", a);
                return EXIT_USAGE;
            }
            *(a[2] == 's' ? &session : &data_dir) = v;
            i++;
        } else {
            fprintf(stderr, "glovebox computer-spec: unknown option \"%s\"\n\n", a);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (session && sized) {
        fputs("glovebox computer-spec: give --session or --width/--height, not both\n", stderr);
        return EXIT_USAGE;
    }
    if (data_dir && !session) {
        fputs("glovebox computer-spec: --data-dir goes with --session\n", stderr);
        return EXIT_USAGE;
    }
    if (session && !session_size(data_dir, session, &w, &h))
        return EXIT_FAILURE_RUNTIME;
    struct computer_space sp;
    computer_space_of(w, h, &sp);
    json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:b}", "type", "computer_20251124", "name",
                          "computer", "display_width_px", sp.model_width, "display_height_px",
                          sp.model_height, "enable_zoom", 1);
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    puts(s);
    free(s);
    json_decref(o);
    return EXIT_OK;
}
