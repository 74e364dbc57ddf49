/* Base64 (RFC 4648, with padding) for image content in MCP results. */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* A new NUL-terminated string the caller frees. */
char *base64_encode(const uint8_t *data, size_t len);
/* Decode padded base64; NULL if text is not valid base64. The result is
 * NUL-terminated (not counted in *out_len); the caller frees it. */
char *base64_decode(const char *text, size_t len, size_t *out_len);
