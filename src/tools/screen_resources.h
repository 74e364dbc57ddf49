/* Resources backed by sessions and recordings:
 *   glovebox://session/{id}/screen  — the screen as a PNG, rendered when read
 *   glovebox://session/{id}/text    — the screen as text
 *   glovebox://session/{id}/events  — its recent events (JSON)
 *   glovebox://recording/{id}       — a finished recording (GIF) */
#pragma once

void screen_resources_register(void);

/* Tells the subscribers of a session's resources that they changed
 * (session_registry_observe). */
struct session_observer;
const struct session_observer *screen_resources_observer(void);
