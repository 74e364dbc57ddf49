/* A client of the adb server's smart-socket protocol on the libuv loop: one
 * TCP connection per step, as the adb program does (a host query; or a
 * transport switch to one device followed by exactly one service). Nothing
 * here runs the adb program. Loop thread only. */
#pragma once
#include "core/error_code.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

/* Where the adb server listens. */
struct adb_server {
    char host[64]; /* a numeric loopback address */
    int port;
};

/* spec "host:port" or "tcp:host:port" (ADB_SERVER_SOCKET's form); NULL: the
 * environment (ADB_SERVER_SOCKET, then ANDROID_ADB_SERVER_PORT), else
 * 127.0.0.1:5037. Only loopback addresses unless remote_ok (the policy
 * lists the host; then spec's host must be an IP address): the adb server
 * has no authentication, anyone who reaches it drives the phones. False with *err
 * (caller frees) naming field and what was expected. */
bool adb_server_resolve(const char *spec, const char *field, bool remote_ok, struct adb_server *out,
                        char **err);

enum adb_mode {
    ADB_HOST,      /* host query: OKAY + 4 hex digits of length + payload */
    ADB_EXEC,      /* exec: service: raw output until the device closes */
    ADB_SHELL_V2,  /* shell,v2,raw: packets, ends with an exit packet */
    ADB_SYNC_PUSH, /* sync: SEND of adb_push's data, answered OKAY or FAIL */
    ADB_STREAM,    /* shell,v2: kept open: stdin written, packets passed on (adb_stream_open) */
};

struct adb_reply {
    bool ok;
    enum error_code code; /* when !ok */
    const char *error;    /* when !ok: for the user */
    bool device_lost;     /* the device went away mid-call: end its session */
    const uint8_t *out;   /* payload / stdout (NUL-terminated past out_len) */
    size_t out_len;
    const uint8_t *err; /* shell v2 stderr (NUL-terminated past err_len) */
    size_t err_len;
    int exit_code; /* shell v2 */
    bool opened;   /* the device service said OKAY (a stream that ends may have run things) */
    void *req;     /* the request's, for adb_reply_take_out */
};

/* Takes the output buffer (caller frees; *len set): out is gone after. */
uint8_t *adb_reply_take_out(const struct adb_reply *reply, size_t *len);

/* reply and its buffers live only during the call. */
typedef void (*adb_done_fn)(void *ud, const struct adb_reply *reply);

/* Send request (a host service when serial is NULL, else a device service
 * after host:tport:serial:<serial>) and call done exactly once, always
 * later (never from inside adb_request). timeout_ms bounds the whole
 * exchange; max_bytes the output kept (more is an error). */
void adb_request(uv_loop_t *loop, const struct adb_server *srv, const char *serial,
                 const char *request, enum adb_mode mode, uint64_t timeout_ms, size_t max_bytes,
                 adb_done_fn done, void *ud);

/* Bytes of a push the socket took so far, of total; called after each MiB
 * while more is to come (never for the last part: done follows). */
typedef void (*adb_progress_fn)(void *ud, size_t sent, size_t total);

/* Write data (len bytes, borrowed until done) to remote (a path on the
 * device) with mode (e.g. 0644) through the sync: service, as `adb push`
 * does: SEND, DATA chunks of 64 KiB, DONE; progress (may be NULL) as it
 * goes; done as for adb_request (reply->ok once the device said OKAY). */
void adb_push(uv_loop_t *loop, const struct adb_server *srv, const char *serial, const char *remote,
              unsigned mode, const uint8_t *data, size_t len, uint64_t timeout_ms,
              adb_progress_fn progress, adb_done_fn done, void *ud);

/* A device service kept open (ADB_STREAM): `shell,v2,raw:` with no command
 * is the device's sh reading stdin, so commands written one after another
 * run without a new connection (and a new sh) each. */
struct adb_stream;
/* A shell v2 packet from the device: 1 stdout, 2 stderr (data borrowed). */
typedef void (*adb_packet_fn)(void *ud, int id, const uint8_t *data, size_t len);
/* Open request on serial's device. packet is called as output comes; done
 * exactly once when the stream ends (the device's exit packet: ok; a
 * failure; adb_stream_close), always later; the stream is gone after.
 * open_timeout_ms bounds reaching the device (not the stream's life). */
struct adb_stream *adb_stream_open(uv_loop_t *loop, const struct adb_server *srv,
                                   const char *serial, const char *request,
                                   uint64_t open_timeout_ms, adb_packet_fn packet, adb_done_fn done,
                                   void *ud);
/* Write len bytes to the stream's stdin (copied; held until the device
 * service has answered). */
void adb_stream_write(struct adb_stream *s, const char *data, size_t len);
/* Close the stream's stdin (the device's sh runs what it has, then exits:
 * done follows with its exit status). */
void adb_stream_end_input(struct adb_stream *s);
/* End the stream: done follows, with ok false and why (copied). */
void adb_stream_close(struct adb_stream *s, enum error_code code, const char *why);
