/* Finding the touchscreen in `getevent -p`: outputs shaped as real devices
 * print them (a phone whose touchscreen is not the first node, an emulator,
 * an older build without ", resolution", a protocol A panel, a TV box with
 * keys only, garbage), and the event size per ABI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "backend/android/touch_probe.h"

/* A phone: power keys, a touchpad-like sensor without INPUT_PROP_DIRECT
 * listed first, then the real panel. */
static const char PHONE[] =
    "add device 1: /dev/input/event0\n"
    "  name:     \"qpnp_pon\"\n"
    "  events:\n"
    "    KEY (0001): 0072  0074 \n"
    "  input props:\n"
    "    <none>\n"
    "add device 2: /dev/input/event4\n"
    "  name:     \"fingerprint_gestures\"\n"
    "  events:\n"
    "    ABS (0003): 0035  : value 0, min 0, max 200, fuzz 0, flat 0, resolution 0\n"
    "                0036  : value 0, min 0, max 200, fuzz 0, flat 0, resolution 0\n"
    "  input props:\n"
    "    <none>\n"
    "add device 3: /dev/input/event2\n"
    "  name:     \"fts_ts\"\n"
    "  events:\n"
    "    KEY (0001): 0066  008b  009e  00ac  0145  014a  0152  0153 \n"
    "                0154  0156 \n"
    "    ABS (0003): 002f  : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0\n"
    "                0030  : value 0, min 0, max 255, fuzz 0, flat 0, resolution 0\n"
    "                0031  : value 0, min 0, max 255, fuzz 0, flat 0, resolution 0\n"
    "                0035  : value 0, min 0, max 1079, fuzz 0, flat 0, resolution 0\n"
    "                0036  : value 0, min 0, max 2339, fuzz 0, flat 0, resolution 0\n"
    "                0039  : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0\n"
    "                003a  : value 0, min 0, max 127, fuzz 0, flat 0, resolution 0\n"
    "  input props:\n"
    "    INPUT_PROP_DIRECT\n"
    "add device 4: /dev/input/event1\n"
    "  name:     \"gpio-keys\"\n"
    "  events:\n"
    "    KEY (0001): 0073* 0074 \n"
    "    SW  (0005): 0000 \n"
    "  input props:\n"
    "    <none>\n";

/* The emulator's multi-touch device: no pressure key bits, no BTN_TOUCH,
 * CRLF line ends as `adb shell` with a pty would give them. */
static const char EMULATOR[] =
    "could not get driver version for /dev/input/mice, Not a typewriter\r\n"
    "add device 1: /dev/input/event2\r\n"
    "  name:     \"virtio_input_multi_touch_1\"\r\n"
    "  events:\r\n"
    "    ABS (0003): 002f  : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0\r\n"
    "                0035  : value 0, min 0, max 32767, fuzz 0, flat 0, resolution 0\r\n"
    "                0036  : value 0, min 0, max 32767, fuzz 0, flat 0, resolution 0\r\n"
    "                0039  : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0\r\n"
    "  input props:\r\n"
    "    INPUT_PROP_DIRECT\r\n";

/* An older build (no ", resolution"), negative minimums. */
static const char OLDER[] = "add device 1: /dev/input/event3\n"
                            "  name:     \"sec_touchscreen\"\n"
                            "  events:\n"
                            "    KEY (0001): 014a \n"
                            "    ABS (0003): 002f  : value 0, min 0, max 9, fuzz 0 flat 0\n"
                            "                0035  : value 0, min -5, max 719, fuzz 0 flat 0\n"
                            "                0036  : value 0, min 0, max 1279, fuzz 0 flat 0\n"
                            "                0039  : value 0, min 0, max 65535, fuzz 0 flat 0\n"
                            "  input props:\n"
                            "    INPUT_PROP_DIRECT\n";

/* Protocol A: positions, SYN_MT_REPORT, no slots or tracking ids. */
static const char PROTOCOL_A[] =
    "add device 1: /dev/input/event1\n"
    "  name:     \"synaptics-rmi-touchscreen\"\n"
    "  events:\n"
    "    KEY (0001): 014a \n"
    "    ABS (0003): 0030  : value 0, min 0, max 15, fuzz 0, flat 0, resolution 0\n"
    "                0035  : value 0, min 0, max 480, fuzz 0, flat 0, resolution 0\n"
    "                0036  : value 0, min 0, max 800, fuzz 0, flat 0, resolution 0\n"
    "  input props:\n"
    "    INPUT_PROP_DIRECT\n";

/* A TV box: a remote's keys, nothing to touch. */
static const char NO_TOUCH[] = "add device 1: /dev/input/event0\n"
                               "  name:     \"ir-keypad\"\n"
                               "  events:\n"
                               "    KEY (0001): 0001  0002  0003  0004  0005  0006  0007  0008 \n"
                               "                0066  0067  0069  006a  006c  0074 \n"
                               "    MSC (0004): 0004 \n"
                               "  input props:\n"
                               "    <none>\n";

static void phone_panel_is_found(void **state)
{
    (void)state;
    struct touch_screen t;
    char *why = NULL;
    assert_true(touch_probe_parse(PHONE, &t, &why));
    assert_string_equal(t.node, "/dev/input/event2");
    assert_string_equal(t.name, "fts_ts");
    assert_true(t.direct);
    assert_int_equal(t.x.min, 0);
    assert_int_equal(t.x.max, 1079);
    assert_int_equal(t.y.max, 2339);
    assert_true(t.slot.present);
    assert_int_equal(t.slot.max, 9);
    assert_true(t.tracking.present);
    assert_true(t.pressure.present);
    assert_int_equal(t.pressure.max, 127);
    assert_true(t.major.present);
    assert_int_equal(t.major.max, 255);
    /* BTN_TOUCH and BTN_TOOL_FINGER are on the first line of the key list. */
    assert_true(t.btn_touch);
    assert_true(t.btn_tool_finger);
}

static void emulator_with_crlf(void **state)
{
    (void)state;
    struct touch_screen t;
    char *why = NULL;
    assert_true(touch_probe_parse(EMULATOR, &t, &why));
    assert_string_equal(t.node, "/dev/input/event2");
    assert_int_equal(t.x.max, 32767);
    assert_int_equal(t.y.max, 32767);
    assert_false(t.pressure.present);
    assert_false(t.major.present);
    assert_false(t.btn_touch);
    assert_false(t.btn_tool_finger);
}

static void older_format_negative_min(void **state)
{
    (void)state;
    struct touch_screen t;
    char *why = NULL;
    assert_true(touch_probe_parse(OLDER, &t, &why));
    assert_string_equal(t.node, "/dev/input/event3");
    assert_int_equal(t.x.min, -5);
    assert_int_equal(t.x.max, 719);
    assert_int_equal(t.y.max, 1279);
    assert_true(t.btn_touch);
    assert_false(t.btn_tool_finger);
}

static void protocol_a_is_refused(void **state)
{
    (void)state;
    struct touch_screen t;
    char *why = NULL;
    assert_false(touch_probe_parse(PROTOCOL_A, &t, &why));
    assert_non_null(strstr(why, "protocol A"));
    assert_non_null(strstr(why, "/dev/input/event1"));
    free(why);
}

static void no_touchscreen(void **state)
{
    (void)state;
    struct touch_screen t;
    char *why = NULL;
    assert_false(touch_probe_parse(NO_TOUCH, &t, &why));
    assert_non_null(strstr(why, "no touchscreen"));
    free(why);
}

static void garbage_and_empty(void **state)
{
    (void)state;
    struct touch_screen t;
    const char *inputs[] = {
        "",
        "/system/bin/sh: getevent: inaccessible or not found\n",
        "add device\n  name: \"x\n    ABS (0003): 0035\n",
        "add device 1: /dev/input/event9\n    ABS (zz03): 0035  : value 0, min 0, max 9\n",
        "add device 1: /dev/input/event9\n    ABS (0003): 0035  : min 0 max\n"
        "                0036  : value 0, min 0, max 0\n"
        "                002f  : value 0, min 0, max 9\n"
        "                0039  : value 0, min 0, max 9\n",
        "\x01\x02\xff\xfe add device 1: \n\n\n",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        char *why = NULL;
        assert_false(touch_probe_parse(inputs[i], &t, &why));
        assert_non_null(why);
        free(why);
    }
    char *why = NULL;
    assert_false(touch_probe_parse(NULL, &t, &why));
    free(why);
    /* A long line is cut, not overrun. */
    char *big = malloc(100000);
    memset(big, 'a', 99999);
    big[99999] = 0;
    memcpy(big, "add device 1: /dev/input/event1\n", 32);
    why = NULL;
    assert_false(touch_probe_parse(big, &t, &why));
    free(why);
    free(big);
}

static void event_size_by_abi(void **state)
{
    (void)state;
    assert_int_equal(touch_event_size("arm64-v8a"), 24);
    assert_int_equal(touch_event_size("x86_64"), 24);
    assert_int_equal(touch_event_size("armeabi-v7a"), 16);
    assert_int_equal(touch_event_size("x86"), 16);
    assert_int_equal(touch_event_size("mips"), 0);
    assert_int_equal(touch_event_size(""), 0);
    assert_int_equal(touch_event_size(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(phone_panel_is_found),
        cmocka_unit_test(emulator_with_crlf),
        cmocka_unit_test(older_format_negative_min),
        cmocka_unit_test(protocol_a_is_refused),
        cmocka_unit_test(no_touchscreen),
        cmocka_unit_test(garbage_and_empty),
        cmocka_unit_test(event_size_by_abi),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
