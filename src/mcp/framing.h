/* Splits a byte stream into JSON-RPC messages. Two framings exist on stdio:
 * newline-delimited JSON (the MCP default) and LSP-style Content-Length
 * headers, which some clients send. The first byte decides: 'C' means
 * Content-Length, anything else newline-delimited. Replies use the same
 * framing. The decoder never buffers more than max_message bytes of one
 * message: an oversized message is skipped and reported, and the stream
 * carries on at the next message. */
#pragma once
#include "core/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

enum framing_mode { FRAMING_UNKNOWN, FRAMING_NDJSON, FRAMING_CONTENT_LENGTH };

enum framing_event {
    FRAMING_NEED_MORE,  /* no complete message buffered yet */
    FRAMING_MESSAGE,    /* msg and len hold one message body */
    FRAMING_TOO_LARGE,  /* a message over the limit was skipped; *len is its size */
    FRAMING_BAD_HEADER, /* Content-Length header block malformed; the block was dropped */
};

struct framing {
    enum framing_mode mode;
    size_t max_message;   /* bytes; bodies larger than this are skipped */
    struct strbuf buf;    /* bytes received, not yet returned */
    size_t scan;          /* NDJSON: bytes of buf already searched for '\n' */
    size_t skipping;      /* bytes still to discard (Content-Length body over the limit) */
    bool discarding_line; /* NDJSON: dropping an oversized line until '\n' */
    size_t discarded;     /* bytes dropped of the current oversized message */
    size_t consumed;      /* bytes of buf to drop before the next call */
};

void framing_init(struct framing *f, size_t max_message);
void framing_finish(struct framing *f);
void framing_push(struct framing *f, const char *data, size_t len);
/* Returns the next event. For FRAMING_MESSAGE, *msg points into the decoder's
 * buffer and stays valid until the next call. Empty NDJSON lines are skipped. */
enum framing_event framing_next(struct framing *f, const char **msg, size_t *len);
/* Bytes buffered but not yet returned as a message (for EOF diagnostics). */
size_t framing_pending(const struct framing *f);
/* Wrap a message body for sending in mode (NDJSON adds '\n'). */
void framing_encode(enum framing_mode mode, const char *body, size_t len, struct strbuf *out);
