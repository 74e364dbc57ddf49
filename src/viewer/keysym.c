/* A browser's KeyboardEvent (its key and code) as an X11 keysym, for a
 * person typing on a desktop they took over. key says what the person
 * meant (layout applied: "é", "?", "Enter"); code says which key it was,
 * used only to tell left from right modifiers. */
#include "viewer/internal.h"

#include "core/utf8.h"

#include <string.h>

static const struct {
    const char *key;
    uint32_t keysym;
} named[] = {
    {"Enter", 0xff0d},      {"Tab", 0xff09},       {"Backspace", 0xff08},   {"Escape", 0xff1b},
    {"Delete", 0xffff},     {"Insert", 0xff63},    {"Home", 0xff50},        {"End", 0xff57},
    {"PageUp", 0xff55},     {"PageDown", 0xff56},  {"ArrowLeft", 0xff51},   {"ArrowUp", 0xff52},
    {"ArrowRight", 0xff53}, {"ArrowDown", 0xff54}, {"CapsLock", 0xffe5},    {"NumLock", 0xff7f},
    {"ScrollLock", 0xff14}, {"Pause", 0xff13},     {"PrintScreen", 0xff61}, {"ContextMenu", 0xff67},
    {"AltGraph", 0xfe03},   {"Clear", 0xff0b},     {"Help", 0xff6a},
};

/* Modifiers: the left keysym; the right one is the next (Shift_L 0xffe1,
 * Shift_R 0xffe2; Control, Alt, Super alike). */
static const struct {
    const char *key;
    uint32_t left;
} modifiers[] = {
    {"Shift", 0xffe1}, {"Control", 0xffe3},
    {"Alt", 0xffe9},   {"Meta", 0xffeb}, /* Super_L: the Windows/Command key */
    {"OS", 0xffeb},
};

uint32_t viewer_keysym(const char *key, const char *code, bool *is_char)
{
    *is_char = false;
    if (!key || !*key)
        return 0;
    size_t len = strlen(key);
    uint32_t cp;
    /* One character (the layout applied): its keysym, Latin-1 as itself,
     * the rest of Unicode as 0x01000000 + the code point. */
    if (utf8_decode((const unsigned char *)key, len, &cp) == len) {
        *is_char = true;
        if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff))
            return cp;
        if (cp < 0x20 || cp == 0x7f)
            return *is_char = false, 0;
        return 0x01000000u | cp;
    }
    for (size_t i = 0; i < sizeof named / sizeof *named; i++)
        if (strcmp(key, named[i].key) == 0)
            return named[i].keysym;
    for (size_t i = 0; i < sizeof modifiers / sizeof *modifiers; i++)
        if (strcmp(key, modifiers[i].key) == 0) {
            bool right = code && strstr(code, "Right");
            return modifiers[i].left + (right ? 1 : 0);
        }
    /* F1 … F35 (consecutive keysyms from 0xffbe). */
    if (key[0] == 'F' && key[1] >= '1' && key[1] <= '9') {
        int n = 0;
        const char *p = key + 1;
        while (*p >= '0' && *p <= '9' && n < 100)
            n = n * 10 + (*p++ - '0');
        if (!*p && n >= 1 && n <= 35)
            return 0xffbe + (uint32_t)(n - 1);
    }
    return 0; /* "Dead", "Unidentified", media keys: nothing */
}
