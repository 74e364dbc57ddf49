/* Resources backed by sessions and recordings:
 *   glovebox://session/{id}/screen  — the screen as a PNG, rendered when read
 *   glovebox://session/{id}/text    — the screen as text
 *   glovebox://session/{id}/events  — its recent events (JSON)
 *   glovebox://recording/{id}       — a finished recording (GIF) */
#pragma once

void screen_resources_register(void);

/* Answers r with the file at path (read and base64-encoded on the worker
 * pool, at most 64 MiB) as mime (static storage); name is for messages.
 * Recordings and a browser's downloads. */
struct resource_read;
void screen_resources_read_file(struct resource_read *r, const char *uri, const char *name,
                                const char *path, const char *mime);

/* Tells the subscribers of a session's resources that they changed
 * (session_registry_observe). */
struct session_observer;
const struct session_observer *screen_resources_observer(void);
