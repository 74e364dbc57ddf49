/* The one list of the kinds of screen glovebox drives: what each needs on
 * this machine, its module and the tools that start its sessions. The only
 * file outside a kind's folder that names it; meson's -D<kind>= options say
 * which kinds are built (GLOVEBOX_KIND_<KIND>). */
#define LOG_MODULE "backend"
#include "backend/backend.h"
#include "backend/requirements.h"
#include "core/log.h"
#include "core/module.h"
#include "core/xmalloc.h"

#if GLOVEBOX_KIND_TERMINAL
#include "backend/terminal/terminal.h"
#endif
#if GLOVEBOX_KIND_DESKTOP
#include "backend/desktop/desktop.h"
#endif
#if GLOVEBOX_KIND_WEBDRIVER
#include "backend/webdriver/webdriver.h"
#endif
#if GLOVEBOX_KIND_ANDROID
#include "backend/android/android.h"
#endif
#if GLOVEBOX_KIND_VNC
#include "backend/vnc/vnc.h"
#endif

#include <fontconfig/fontconfig.h>
#include <string.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

static bool has_ptmx(void)
{
    return requirement_file("/dev/ptmx");
}

static bool has_mono_font(void)
{
    return requirement_font("DejaVu Sans Mono");
}

static bool has_xvfb(void)
{
    return requirement_program("Xvfb");
}

static bool has_dbus(void)
{
    return requirement_program("dbus-daemon");
}

static bool has_atspi(void)
{
    return requirement_file("/usr/libexec/at-spi-bus-launcher");
}

static bool has_tesseract_eng(void)
{
    return requirement_file("/usr/share/tesseract-ocr/5/tessdata/eng.traineddata") ||
           requirement_file("/usr/share/tesseract-ocr/4.00/tessdata/eng.traineddata");
}

static bool has_chromium(void)
{
    return requirement_program("chromium");
}

static bool has_chromedriver(void)
{
    return requirement_program("chromedriver");
}

static bool has_adb(void)
{
    return requirement_program("adb");
}

/* The Debian package that installs glovebox-<module>.so. */
static const char *module_package(const char *module)
{
    static const char *const packages[][2] = {
        {"terminal", "glovebox"},          {"desktop", "glovebox-desktop"}, {"ocr", "glovebox-ocr"},
        {"webdriver", "glovebox-browser"}, {"android", "glovebox-android"}, {"vnc", "glovebox-vnc"},
    };
    for (size_t i = 0; i < sizeof packages / sizeof packages[0]; i++)
        if (strcmp(packages[i][0], module) == 0)
            return packages[i][1];
    return "glovebox";
}

#if GLOVEBOX_HAVE_OCR
static bool has_ocr_module(void)
{
    return module_installed("ocr");
}
#define OCR_MODULE_NEED {"the OCR module (glovebox-ocr.so)", "glovebox-ocr", has_ocr_module},
#else
#define OCR_MODULE_NEED
#endif

static const struct backend_requirement terminal_needs[] = {
    {"pseudo-terminals (/dev/ptmx)", "the kernel's devpts", has_ptmx},
    {"DejaVu Sans Mono font", "fonts-dejavu-core", has_mono_font},
    {NULL, NULL, NULL},
};

static const struct backend_requirement desktop_needs[] = {
    {"Xvfb (private desktops)", "xvfb", has_xvfb},
    {"D-Bus session bus", "dbus", has_dbus},
    {"AT-SPI accessibility bus", "at-spi2-core", has_atspi},
    {"Tesseract English data (OCR)", "tesseract-ocr-eng", has_tesseract_eng},
    OCR_MODULE_NEED{NULL, NULL, NULL},
};

/* read_text and wait_for on vnc sessions are OCR. */
static const struct backend_requirement vnc_needs[] = {
    {"Tesseract English data (OCR)", "tesseract-ocr-eng", has_tesseract_eng},
    OCR_MODULE_NEED{NULL, NULL, NULL},
};

static const struct backend_requirement webdriver_needs[] = {
    {"chromium", "chromium", has_chromium},
    {"chromedriver", "chromium-driver", has_chromedriver},
    {NULL, NULL, NULL},
};

static const struct backend_requirement android_needs[] = {
    {"adb", "adb", has_adb},
    {NULL, NULL, NULL},
};

#if GLOVEBOX_KIND_TERMINAL
static const struct tool *const terminal_tools[] = {&tool_terminal_start, &tool_terminal_run, NULL};
#define TERMINAL_MODULE .module = "terminal", .tools = terminal_tools
#else
#define TERMINAL_MODULE .module = NULL
#endif

#if GLOVEBOX_KIND_DESKTOP
static const struct tool *const desktop_tools[] = {&tool_desktop_start, &tool_launch_app, NULL};
#define DESKTOP_MODULE .module = "desktop", .tools = desktop_tools
#else
#define DESKTOP_MODULE .module = NULL
#endif

#if GLOVEBOX_KIND_WEBDRIVER
static const struct tool *const webdriver_tools[] = {
    &tool_webdriver_connect, &tool_open_url,    &tool_browser_logs, &tool_storage_save,
    &tool_storage_load,      &tool_upload_file, &tool_downloads,    NULL};
static const struct resource_provider *const webdriver_resources[] = {&webdriver_download_provider,
                                                                      NULL};
#define WEBDRIVER_MODULE                                                                           \
    .module = "webdriver", .tools = webdriver_tools, .resources = webdriver_resources
#define WEBDRIVER_SWEEP .sweep_orphans = webdriver_sweep_orphans,
#else
#define WEBDRIVER_MODULE .module = NULL
#define WEBDRIVER_SWEEP
#endif

#if GLOVEBOX_KIND_ANDROID
static const struct tool *const android_tools[] = {&tool_android_connect,
                                                   &tool_device_list,
                                                   &tool_press_button,
                                                   &tool_app_list,
                                                   &tool_app_stop,
                                                   &tool_app_reset,
                                                   &tool_app_install,
                                                   &tool_app_uninstall,
                                                   &tool_orientation,
                                                   &tool_set_network,
                                                   NULL};
#define ANDROID_MODULE .module = "android", .tools = android_tools
#else
#define ANDROID_MODULE .module = NULL
#endif

#if GLOVEBOX_KIND_VNC
static const struct tool *const vnc_tools[] = {&tool_vnc_connect, NULL};
#define VNC_MODULE .module = "vnc", .tools = vnc_tools
#else
#define VNC_MODULE .module = NULL
#endif

static const struct backend_kind kinds[] = {
    {.kind = "terminal",
     .summary = "programs in a pseudo-terminal, rendered by glovebox's own terminal emulator",
     .requirements = terminal_needs,
     .has_option = true,
     .tool_names = (const char *const[]){"terminal_start", "terminal_run", NULL},
     TERMINAL_MODULE},
    {.kind = "desktop",
     .summary = "X11 desktops: private Xvfb sandboxes or an existing display",
     .requirements = desktop_needs,
     .has_option = true,
     .tool_names = (const char *const[]){"desktop_start", "launch_app", NULL},
     DESKTOP_MODULE},
    {.kind = "vnc",
     .summary = "remote desktops over RFB (VNC)",
     .requirements = vnc_needs,
     .has_option = true,
     .tool_names = (const char *const[]){"vnc_connect", NULL},
     VNC_MODULE},
    {.kind = "webdriver",
     .summary = "browsers and devices through WebDriver or Appium",
     .requirements = webdriver_needs,
     .has_option = true,
     .tool_names =
         (const char *const[]){"webdriver_connect", "open_url", "browser_logs", "storage_save",
                               "storage_load", "upload_file", "downloads", NULL},
     WEBDRIVER_SWEEP WEBDRIVER_MODULE},
    {.kind = "android",
     .summary = "Android devices and emulators through the adb server",
     .requirements = android_needs,
     .has_option = true,
     .tool_names = (const char *const[]){"android_connect", "device_list", "press_button",
                                         "app_list", "app_stop", "app_reset", "app_install",
                                         "app_uninstall", "orientation", "set_network", NULL},
     ANDROID_MODULE},
};

void backend_sweep_orphans(struct app *app, const json_t *orphans)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        json_t *mine = json_array();
        size_t k;
        const json_t *row;
        json_array_foreach(orphans, k, row)
        {
            if (!strcmp(json_string_value(json_object_get(row, "kind")), kinds[i].kind))
                json_array_append(mine, (json_t *)row);
        }
        if (json_array_size(mine) && kinds[i].sweep_orphans)
            kinds[i].sweep_orphans(app, mine);
        else if (json_array_size(mine))
            log_warn("%zu %s session(s) of a server that died left something remote; this build "
                     "cannot clean them up",
                     json_array_size(mine), kinds[i].kind);
        json_decref(mine);
    }
}

const struct backend_kind *backend_kinds(int *count)
{
    *count = (int)(sizeof kinds / sizeof kinds[0]);
    return kinds;
}

const void *backend_load(const char *kind, char **err)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (strcmp(kinds[i].kind, kind) != 0)
            continue;
        if (!kinds[i].module) {
            *err = xasprintf("this glovebox was built without %s sessions (meson -D%s=disabled)",
                             kind, kind);
            return NULL;
        }
        return module_get(kinds[i].module, err);
    }
    *err = xasprintf("unknown kind of session \"%s\"", kind);
    return NULL;
}

/* The checks search PATH and ask fontconfig; a status call should not pay
 * for that every time, and what is installed changes rarely. */
#define CHECK_CACHE_MS 2000
static json_t *cached_checks;
static struct timespec cached_at;

static int64_t ms_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)(now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

static json_t *check_all_now(void)
{
    json_t *out = json_array();
    int n;
    const struct backend_kind *k = backend_kinds(&n);
    for (int i = 0; i < n; i++) {
        json_t *missing = json_array();
        /* Each kind's module comes in its own Debian package (debian/control). */
        if (k[i].module && !module_installed(k[i].module))
            json_array_append_new(missing, json_pack("{s:o, s:s}", "what",
                                                     json_sprintf("the %s module (glovebox-%s.so)",
                                                                  k[i].kind, k[i].module),
                                                     "package", module_package(k[i].module)));
        for (const struct backend_requirement *r = k[i].requirements; r->what; r++) {
            if (!r->present())
                json_array_append_new(
                    missing, json_pack("{s:s, s:s}", "what", r->what, "package", r->package));
        }
        bool implemented = k[i].module != NULL;
        bool available = implemented && json_array_size(missing) == 0;
        json_array_append_new(out, json_pack("{s:s, s:s, s:b, s:b, s:o}", "kind", k[i].kind,
                                             "summary", k[i].summary, "implemented", implemented,
                                             "available", available, "missing", missing));
        if (!implemented && k[i].has_option)
            json_object_set_new(
                json_array_get(out, json_array_size(out) - 1), "not_built",
                json_sprintf("this build was configured without it (meson -D%s=disabled, or "
                             "its libraries were not installed)",
                             k[i].kind));
    }
    return out;
}

json_t *backend_check_all(void)
{
    if (!cached_checks || ms_since(&cached_at) >= CHECK_CACHE_MS) {
        json_decref(cached_checks);
        cached_checks = check_all_now();
        clock_gettime(CLOCK_MONOTONIC, &cached_at);
    }
    return json_deep_copy(cached_checks);
}

void backends_finish(void)
{
    json_decref(cached_checks);
    cached_checks = NULL;
    /* The modules' shared state: glyph renderer, Tesseract engines, … */
    module_finish_all();
    /* fontconfig keeps its configuration until told otherwise. */
    FcFini();
}
