/* Shared by the files of a desktop session's clipboard: clipboard.c (the X
 * connection, its events and the queue of calls), clipboard_ops.c (running a
 * get or a set), clipboard_serve.c (answering other programs' requests for
 * what glovebox owns) and clipboard_text.c (the text held). */
#pragma once
#include "backend/desktop/internal.h"
#include "core/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>
#include <xcb/xcb.h>

/* How long an owner has to answer a request (and, in an incremental
 * transfer, to send each next piece). */
#define ANSWER_TIMEOUT_MS 2000
/* The most text taken in either direction: a bound on memory, far above any
 * clipboard a person makes (the text to set is also bounded by the server's
 * --max-message, 16 MiB by default). */
#define MAX_TEXT (64u << 20)
/* Text longer than this goes to a requestor in pieces (INCR), as ICCCM asks
 * for data larger than a request may carry; smaller when the X server's
 * maximum request is. Small enough that one piece fits the socket's buffer:
 * xcb writes block, and a busy X server must not stall the loop. */
#define MAX_PIECE (64u << 10)
/* Requestors being fed in pieces at once; more are refused. */
#define MAX_TRANSFERS 16
/* A requestor that has not taken the next piece for this long has given up. */
#define TRANSFER_IDLE_MS 30000
#define MAX_WAITING      32

enum sel { SEL_CLIPBOARD, SEL_PRIMARY, SEL_COUNT };
/* The selection's name as the tools' "selection" argument, and in X. */
extern const char *const clip_sel_arg[SEL_COUNT];
extern const char *const clip_sel_x_name[SEL_COUNT];

enum atom {
    A_CLIPBOARD,
    A_TARGETS,
    A_UTF8_STRING,
    A_TEXT,
    A_MIME_UTF8,
    A_MIME_TEXT,
    A_TIMESTAMP,
    A_INCR,
    A_PROP,  /* where owners put what we asked for */
    A_STAMP, /* touched to learn the server's time */
    A_COUNT
};

/* Text shared by the selection and the transfers still sending it. */
struct text {
    int refs;
    bool latin1; /* every character fits ISO 8859-1 (the STRING target) */
    bool ascii;
    size_t len;
    char data[];
};

/* A requestor fed in pieces (ICCCM INCR): each time it deletes the property
 * the next piece is written, and an empty piece ends it. */
struct transfer {
    xcb_window_t requestor;
    xcb_atom_t property, type;
    struct text *text;
    size_t sent;
    uint64_t last_ms; /* uv_now of the last piece */
    struct transfer *next;
};

enum step {
    STEP_WAITING, /* queued */
    STEP_STAMP,   /* learning the time, to own or ask with */
    STEP_OWNER,   /* asked who owns the selection */
    STEP_CONVERT, /* asked the owner for text; waiting for SelectionNotify */
    STEP_READ,    /* reading the answer */
    STEP_INCR,    /* reading an answer that comes in pieces */
    STEP_NAMING,  /* the answer is not text: asking the name of its type */
};

struct op {
    struct backend_call *bc;
    struct desktop_clipboard *cb;
    bool set;
    enum sel sel;
    struct text *text; /* set: what to own */
    enum step step;
    xcb_timestamp_t time;
    xcb_window_t owner;     /* get: the window that owns the selection */
    xcb_atom_t target;      /* get: UTF8_STRING, then STRING */
    xcb_atom_t type;        /* get: the type the owner answered with */
    bool reading;           /* a GetProperty is out */
    bool piece_ready;       /* a piece arrived while it was */
    struct strbuf received; /* get */
    struct op *next;
};

enum reply_kind { R_ATOM, R_OWNER_SET, R_OWNER_GET, R_PROPERTY, R_TYPE_NAME };

struct pending {
    unsigned int seq;
    enum reply_kind kind;
    int index;       /* R_ATOM: which atom */
    unsigned int id; /* the op it is for (ops that gave up ignore it) */
};

struct desktop_clipboard {
    struct desktop *d; /* NULL once closed */
    struct app *app;
    xcb_connection_t *c; /* NULL once closed */
    xcb_window_t win;
    char display[32];
    uint32_t piece; /* bytes per property write */
    uv_poll_t poll;
    uv_timer_t timer;
    int open_handles; /* freed when the last one has closed */
    int atoms_left;   /* interning; operations wait until 0 */
    xcb_atom_t atom[A_COUNT];
    xcb_atom_t sel_atom[SEL_COUNT];
    struct {
        struct text *text; /* NULL: glovebox does not own it */
        xcb_timestamp_t since;
    } own[SEL_COUNT];
    /* Replies awaited, oldest first. Grows: an X server that stopped
     * answering leaves one per timed-out call. */
    struct pending *pending;
    int n_pending, cap_pending;
    struct transfer *transfers;
    struct op *op; /* running */
    unsigned int op_id;
    struct op *waiting; /* FIFO */
    int n_waiting;
};

/* Text (clipboard_text.c). */
struct text *clip_text_new(const char *s, size_t n); /* copies s */
struct text *clip_text_ref(struct text *t);
void clip_text_unref(struct text *t); /* NULL ok */
/* t as ISO 8859-1 (t->latin1 must hold). */
struct text *clip_text_latin1(const struct text *t);

/* The connection (clipboard.c). */
/* Handle everything that has arrived and send what that produced. */
void clip_pump(struct desktop_clipboard *cb);
/* A reply to request seq is awaited. */
void clip_expect(struct desktop_clipboard *cb, unsigned int seq, enum reply_kind kind, int index);
/* Fail every call with why, forget what glovebox owns and disconnect. */
void clip_close(struct desktop_clipboard *cb, const char *why);
/* Which selection atom a is, or -1. */
int clip_sel_of(const struct desktop_clipboard *cb, xcb_atom_t a);

/* Running the calls (clipboard_ops.c). */
void clip_op_free(struct op *op);
/* Start the waiting calls, one at a time, once the atoms are known. */
void clip_start_next(struct desktop_clipboard *cb);
/* The running call fails with "cannot set/read the clipboard: <message>". */
void clip_op_fail(struct desktop_clipboard *cb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same with a code (docs/errors.md); clip_op_fail gives ERROR_TOOL_FAILED. */
void clip_op_fail_code(struct desktop_clipboard *cb, enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The server's time arrived (PropertyNotify on our window). */
void clip_got_time(struct desktop_clipboard *cb, xcb_timestamp_t time);
void clip_read_property(struct desktop_clipboard *cb);
void clip_ask_owner(struct desktop_clipboard *cb);
void clip_got_reply(struct desktop_clipboard *cb, const struct pending *p, void *reply);
void clip_timed_out(uv_timer_t *t);

/* Answering requests (clipboard_serve.c). */
void clip_selection_request(struct desktop_clipboard *cb, const xcb_selection_request_event_t *e);
/* The requestor deleted property on window: it took a piece; send the next. */
void clip_piece_taken(struct desktop_clipboard *cb, xcb_window_t window, xcb_atom_t property);
/* The window is gone (BadWindow): stop feeding it. */
void clip_forget_requestor(struct desktop_clipboard *cb, xcb_window_t window);
/* The connection is closing: free every transfer without telling X. */
void clip_drop_transfers(struct desktop_clipboard *cb);
