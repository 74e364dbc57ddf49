/* VeNCrypt/TLS done by glovebox in front of libgvnc, for a CA file of the
 * connection's own (ca_file) or no certificate check (tls_verify: false),
 * which libgvnc cannot be told. See tls_front.c. */
#pragma once
#include "core/error_code.h"

#include <pthread.h>
#include <stdbool.h>

struct tls_front;

/* Starts the front's thread towards host:port; *fd is the end libgvnc
 * opens (vnc_connection_open_fd), which it then owns. NULL with *err. */
struct tls_front *vnc_tls_front_start(const char *host, int port, int timeout_ms,
                                      const char *ca_file, bool verify, int *fd, char **err);
/* Why the front failed (malloc'd, with *code), or NULL. Any thread. */
char *vnc_tls_front_error(struct tls_front *f, enum error_code *code);
/* The VeNCrypt subtype it chose ("vencrypt-x509-vnc", …), or NULL. */
const char *vnc_tls_front_security(struct tls_front *f);
/* Drops the session's reference; the thread holds its own. NULL: nothing. */
void vnc_tls_front_release(struct tls_front *f);
