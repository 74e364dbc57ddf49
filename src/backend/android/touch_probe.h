/* Finding a device's touchscreen in `getevent -p` (numeric output): the
 * evdev node whose absolute axes include the multi-touch position, with the
 * ranges and the events glovebox writes to it (touch_events.c). Pure text
 * parsing, no I/O. */
#pragma once
#include <stdbool.h>

/* Event codes from linux/input-event-codes.h (stable kernel ABI). */
#define TOUCH_EV_SYN            0x00
#define TOUCH_EV_KEY            0x01
#define TOUCH_EV_ABS            0x03
#define TOUCH_SYN_REPORT        0x00
#define TOUCH_BTN_TOOL_FINGER   0x145
#define TOUCH_BTN_TOUCH         0x14a
#define TOUCH_ABS_MT_SLOT       0x2f
#define TOUCH_ABS_MT_TOUCH_MAJ  0x30
#define TOUCH_ABS_MT_POSITION_X 0x35
#define TOUCH_ABS_MT_POSITION_Y 0x36
#define TOUCH_ABS_MT_TRACKING   0x39
#define TOUCH_ABS_MT_PRESSURE   0x3a

struct touch_axis {
    bool present;
    int min, max;
};

struct touch_screen {
    char node[96]; /* "/dev/input/eventN" */
    char name[64]; /* the driver's name, for messages ("" when absent) */
    struct touch_axis x, y, slot, tracking, pressure, major;
    bool btn_touch, btn_tool_finger;
    bool direct; /* INPUT_PROP_DIRECT: a screen, not a touchpad */
};

/* The touchscreen in getevent -p's output: among the nodes with
 * ABS_MT_POSITION_X and _Y, a direct one (INPUT_PROP_DIRECT) first, then
 * one with slots (protocol B). true with *out when that node can take
 * protocol B events (slots, tracking ids, both axes with max > min); false
 * with *why (static text or a message naming the node; caller frees)
 * otherwise: no touchscreen, or one that speaks only protocol A. */
bool touch_probe_parse(const char *getevent, struct touch_screen *out, char **why);

/* The size of struct input_event for a process of this ABI
 * (ro.product.cpu.abi): 24 for 64-bit (arm64-v8a, x86_64), 16 for 32-bit
 * (armeabi-v7a, armeabi, x86); 0 when unknown. */
int touch_event_size(const char *abi);
