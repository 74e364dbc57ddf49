/* type_text on vnc sessions: which characters are typed and which pasted.
 * RFB cut text is Latin-1 on the wire, and libgvnc 1.3 has no extended
 * clipboard (UTF-8), so nothing beyond U+00FF can be pasted; Apple's
 * server turns keysyms into key presses of its keyboard layout, so it
 * cannot type what the layout lacks (é on a US layout), which pasting
 * carries. */
#include "backend/vnc/type_plan.h"

#include "core/utf8.h"
#include "core/xmalloc.h"

#include <string.h>

bool vnc_via_parse(const char *s, enum vnc_via *out)
{
    static const char *const names[] = {"auto", "keys", "paste"};
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (enum vnc_via)i;
            return true;
        }
    return false;
}

/* What a macOS keyboard layout surely has: ASCII, and the keys of Enter,
 * Tab, Backspace and Escape. */
static bool apple_types(uint32_t cp)
{
    return (cp >= 0x20 && cp <= 0x7e) || cp == '\n' || cp == '\r' || cp == '\t' || cp == '\b' ||
           cp == 0x1b;
}

bool vnc_type_plan(const char *text, enum vnc_via via, bool apple, struct vnc_typed **out,
                   size_t *n, size_t *n_paste, char **err)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t len = strlen(text);
    struct vnc_typed *t = xmalloc((len + 1) * sizeof *t);
    size_t k = 0, pasted = 0, index = 0;
    for (size_t i = 0; i < len; index++) {
        uint32_t cp;
        size_t step = utf8_decode(s + i, len - i, &cp);
        if (step == 0) {
            step = 1;
            cp = 0xfffd;
        }
        i += step;
        bool paste = via == VNC_VIA_PASTE || (via == VNC_VIA_AUTO && apple && !apple_types(cp));
        if (paste && cp > 0xff) {
            free(t);
            *err = via == VNC_VIA_PASTE
                       ? xasprintf("argument \"text\": character %zu (U+%04X) is outside Latin-1, "
                                   "and via \"paste\" sends RFB cut text, which carries Latin-1 "
                                   "only; give via \"keys\" (or \"auto\") to type it as a Unicode "
                                   "keysym",
                                   index, (unsigned)cp)
                       : xasprintf("argument \"text\": character %zu (U+%04X) can be neither "
                                   "typed nor pasted with via \"auto\" on this server: macOS "
                                   "Screen Sharing types only what its keyboard layout has, and "
                                   "a paste (RFB cut text) carries Latin-1 only; give via "
                                   "\"keys\" to send it as a Unicode keysym anyway (the server "
                                   "may drop it), or leave it out",
                                   index, (unsigned)cp);
            return false;
        }
        /* Typed, CR LF is one Enter; pasted, the text goes as it is. */
        if (!paste && cp == '\r' && i < len && s[i] == '\n')
            continue;
        t[k++] = (struct vnc_typed){.cp = cp, .paste = paste};
        pasted += paste;
    }
    *out = t;
    *n = k;
    *n_paste = pasted;
    return true;
}
