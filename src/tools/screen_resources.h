/* Resources backed by sessions and recordings:
 *   glovebox://session/{id}/screen  — the screen as a PNG, rendered when read
 *   glovebox://session/{id}/text    — the screen as text
 *   glovebox://recording/{id}       — a finished recording (GIF) */
#pragma once

void screen_resources_register(void);
