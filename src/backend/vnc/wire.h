/* The framed protocol between the vnc module and a connection's own
 * process (glovebox-vnc-worker, worker_main.c) over a socket pair: each
 * message is a header {payload length, type} and a payload of fields (u32
 * numbers and length-prefixed byte strings, host byte order: both ends are
 * one machine). The framebuffer travels once per size as a memfd
 * (SCM_RIGHTS) the worker paints into and the module maps read-only.
 *
 * The module treats what the worker sends as untrusted (the worker parses
 * the server's bytes): every field is bounds-checked on reading. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most cut text kept from, or sent to, the server. */
#define VNC_MAX_CUT_TEXT (1u << 20)
/* The largest remote screen accepted (a hostile server could announce
 * 65535 x 65535, 16 GiB of framebuffer): 8K UHD with room to spare. */
#define VNC_MAX_PIXELS (8192u * 8192u)
/* The largest pointer shape kept from the server (a shape is usually
 * 16-64 pixels a side; larger ones are not drawn). */
#define VNC_MAX_CURSOR 256
/* The largest payload either side accepts (cut text is at most 1 MiB,
 * a pointer shape 256 KiB). */
#define VNC_WIRE_MAX (2u << 20)
/* How long a message may take to be written before the peer counts as
 * hung. */
#define VNC_WIRE_SEND_MS 5000

enum vnc_wire_type {
    /* module -> worker */
    VNC_WIRE_CONNECT = 1, /* u32 port, timeout_ms, tls_verify; str host, password, username,
                             ca_file (empty: none) */
    VNC_WIRE_INPUT,       /* events: u32 kind (0 key, 1 pointer, 2 cut text), then
                             key: u32 down, keysym; pointer: u32 buttons, x, y; cut: str */
    VNC_WIRE_SHUTDOWN,    /* close the connection: DISCONNECTED follows */
    /* worker -> module */
    VNC_WIRE_FRAMEBUFFER = 16, /* u32 width, height; with a memfd of width*height*4 bytes,
                                  sealed against shrinking */
    VNC_WIRE_INITIALIZED,      /* str security, server name */
    VNC_WIRE_UPDATE,           /* u32 x, y, w, h */
    VNC_WIRE_CURSOR,           /* u32 w, h, hot_x, hot_y; str ARGB words (w = 0: none) */
    VNC_WIRE_CUT_TEXT,         /* str Latin-1 */
    VNC_WIRE_DISCONNECTED,     /* u32 error code; str reason (for the user), detail (the
                                  library's words, for a reconnect's log) */
};

enum vnc_wire_input { VNC_WIRE_KEY, VNC_WIRE_POINTER, VNC_WIRE_CUT };

/* A message being built. */
struct vnc_wire_out {
    uint8_t *buf;
    size_t len, cap;
};
void vnc_wire_begin(struct vnc_wire_out *o, uint32_t type);
void vnc_wire_u32(struct vnc_wire_out *o, uint32_t v);
void vnc_wire_str(struct vnc_wire_out *o, const void *s, size_t n);
struct vnc_wire_reader;
/* Writes the message (and fd, when >= 0) on sock, waiting at most
 * VNC_WIRE_SEND_MS while the peer does not read; wipes and frees the
 * buffer. With also_read, what the peer sends meanwhile is read into it
 * (to be taken with vnc_wire_next later): two ends writing to each other
 * at once cannot both wait for ever. False: the peer is gone or hung. */
bool vnc_wire_send(int sock, struct vnc_wire_out *o, int fd, struct vnc_wire_reader *also_read);

/* A message's payload being read. Any field past the end marks it bad and
 * reads as 0 / empty. */
struct vnc_wire_in {
    const uint8_t *p;
    size_t left;
    bool bad;
};
uint32_t vnc_wire_get_u32(struct vnc_wire_in *in);
/* Points into the payload; *n its length. */
const uint8_t *vnc_wire_get_str(struct vnc_wire_in *in, size_t *n);
/* A copy, NUL-terminated (NUL bytes inside become '?'); NULL when empty. */
char *vnc_wire_get_cstr(struct vnc_wire_in *in);

/* Bytes and descriptors read from a nonblocking socket. */
struct vnc_wire_reader {
    uint8_t *buf;
    size_t start, len, cap; /* buf[start, len): not yet handed out */
    int fds[4];             /* received, not yet taken; -1: none */
    int n_fds;
};
void vnc_wire_reader_init(struct vnc_wire_reader *r);
void vnc_wire_reader_finish(struct vnc_wire_reader *r);
/* Reads what is there. 1: read some; 0: nothing now; -1: end of stream or
 * error. */
int vnc_wire_fill(int sock, struct vnc_wire_reader *r);
/* The next whole message: true with *type and in; its bytes stay valid
 * until the next vnc_wire_fill. False: none yet, or *bad (a length over
 * VNC_WIRE_MAX). */
bool vnc_wire_next(struct vnc_wire_reader *r, uint32_t *type, struct vnc_wire_in *in, bool *bad);
/* Moves the bytes from holds (read by vnc_wire_send's also_read) to the
 * end of r, where vnc_wire_next finds them; not while a message r handed
 * out is in use. */
void vnc_wire_reader_take(struct vnc_wire_reader *r, struct vnc_wire_reader *from);
/* The oldest descriptor received, or -1. The caller owns it. */
int vnc_wire_take_fd(struct vnc_wire_reader *r);
