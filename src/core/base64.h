/* Base64 (RFC 4648, with padding) for image content in MCP results. */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* A new NUL-terminated string the caller frees. */
char *base64_encode(const uint8_t *data, size_t len);
