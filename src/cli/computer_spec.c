/* glovebox computer-spec: the tool definition a computer-use loop passes to
 * the model API (Anthropic's computer_20251124), in the model's coordinate
 * space of a screen of the given size, so that the model's actions can go
 * to glovebox's computer tool verbatim (docs/computer.md). */
#include "cli/cli.h"
#include "tools/computer.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *to)
{
    fputs("Usage: glovebox computer-spec [--width W --height H]\n"
          "\n"
          "Prints the computer-use tool definition for a screen of W x H pixels (default\n"
          "1280 x 800, desktop_start's default) as one JSON object:\n"
          "{type: \"computer_20251124\", name: \"computer\", display_width_px,\n"
          "display_height_px, enable_zoom: true}, the sizes in the model's coordinate space\n"
          "(long side at most 1568 px, at most 1.15 megapixels) that the computer tool's\n"
          "screenshots have. A session's size is in session_list (width, height).\n"
          "\n"
          "Options:\n"
          "  --width W, --height H   the screen's size in pixels (16-16384)\n"
          "  --session ID            not available yet: pass the session's --width/--height\n"
          "  -h, --help              show this help\n"
          "\n"
          "Exit status: 0 on success, 2 on a usage error.\n",
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

int cli_computer_spec(int argc, char **argv)
{
    int w = 1280, h = 800;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        }
        if (!strcmp(a, "--width") || !strcmp(a, "--height")) {
            if (!parse_size(a, i + 1 < argc ? argv[i + 1] : NULL, a[2] == 'w' ? &w : &h))
                return EXIT_USAGE;
            i++;
        } else if (!strcmp(a, "--session")) {
            fputs("glovebox computer-spec: --session is not available yet; pass the session's "
                  "size with --width and --height (session_list shows them)\n",
                  stderr);
            return EXIT_USAGE;
        } else {
            fprintf(stderr, "glovebox computer-spec: unknown option \"%s\"\n\n", a);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
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
