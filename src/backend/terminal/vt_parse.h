/* A DEC/ECMA-48 parser for program output (after the VT500 state diagram):
 * UTF-8 text, C0 controls, escape sequences, CSI with parameters,
 * sub-parameters (':') and intermediates, and OSC, DCS, SOS, PM and APC
 * strings. Everything a program prints is untrusted: parameters are capped,
 * their count is bounded, strings longer than VT_STRING_MAX are dropped
 * whole, and nothing is allocated for input. A sequence split between feeds
 * continues where it stopped.
 *
 * Runs of printable ASCII go to the handler in one call (the fast path for
 * text); other characters one at a time, invalid UTF-8 as U+FFFD. C1
 * controls (U+0080-U+009F), raw or encoded, are never acted upon. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VT_MAX_PARAMS 32
#define VT_PARAM_MAX  65535 /* larger values are capped */
#define VT_MAX_INTER  2     /* intermediate bytes of one sequence */
#define VT_STRING_MAX 4096  /* bytes of one OSC or DCS string */

/* A CSI sequence, or a DCS string's header. */
struct vt_csi {
    int params[VT_MAX_PARAMS]; /* -1 where left empty */
    uint32_t sub;              /* bit i: params[i] followed a ':' (a sub-parameter) */
    int nparams;
    char leader; /* '?', '>', '<', '=' or 0 */
    char inter[VT_MAX_INTER];
    int ninter;
    char final;
};

struct vt_parse_ops {
    void (*print_ascii)(void *ud, const char *text, size_t len); /* 0x20-0x7E only */
    void (*print)(void *ud, uint32_t cp);                        /* one non-ASCII character */
    void (*execute)(void *ud, unsigned char c0);
    void (*esc)(void *ud, const char *inter, int ninter, char final);
    void (*csi)(void *ud, const struct vt_csi *csi);
    void (*osc)(void *ud, const char *data, size_t len); /* data not terminated */
    void (*dcs)(void *ud, const struct vt_csi *hdr, const char *data, size_t len);
};

struct vt_parser {
    const struct vt_parse_ops *ops;
    void *ud;
    int state;
    /* UTF-8 decoding in the ground state. */
    uint32_t cp;
    int need;             /* continuation bytes still wanted */
    unsigned char lo, hi; /* the range the next continuation byte must be in */
    struct vt_csi csi;
    bool ignore; /* the current sequence broke a limit: dropped at its end */
    char str[VT_STRING_MAX];
    size_t str_len;
    int str_kind; /* which string is being read: see vt_parse.c */
    uint64_t dropped;
};

void vt_parse_init(struct vt_parser *p, const struct vt_parse_ops *ops, void *ud);
void vt_parse_feed(struct vt_parser *p, const char *bytes, size_t len);
/* Back to the ground state, dropping whatever was half read (RIS). */
void vt_parse_reset(struct vt_parser *p);
/* Whether nothing is half read. */
bool vt_parse_idle(const struct vt_parser *p);
/* Sequences dropped for breaking a limit, cancelled (CAN, SUB, an ESC cutting
 * one short) or of a kind never acted upon (SOS, PM, APC, C1 controls). */
uint64_t vt_parse_dropped(const struct vt_parser *p);
