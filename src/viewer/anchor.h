/* Where elements named by refs (from snapshot, find, element_at) are on the
 * screen now: each ref looked at again with the session's own inspect
 * operation (desktops: AT-SPI), one after another. Used by overlays anchored
 * to a ref and by the marker of an approval card. Loop thread. */
#pragma once
#include "core/error_code.h"

#include <jansson.h>
#include <stdbool.h>

struct app;
struct session;

/* bounds: an array of {x, y, width, height}, one per ref (stolen), or NULL
 * when refs[failed] could not be found (code, err say why). With partial,
 * a ref that cannot be found gets null in bounds instead, and the rest are
 * still looked at. */
typedef void (*anchor_fn)(void *ud, json_t *bounds, int failed, enum error_code code,
                          const char *err);

/* refs: an array of ref strings (borrowed; copied). done runs exactly once,
 * maybe before anchor_resolve returns. */
void anchor_resolve(struct app *app, struct session *s, const json_t *refs, bool partial,
                    anchor_fn done, void *ud);
