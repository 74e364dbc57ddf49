/* glovebox serve's session table (store/session_table.h): opened beside the
 * audit log, fed by the session registry. */
#pragma once

struct app;

/* Open DATA_DIR/sessions.db and record every session's changes in it. A
 * table that cannot be opened is reported and left out (app->session_table
 * stays NULL): the server serves on. */
void serve_sessions_start(struct app *app);
/* Once the loop has stopped. */
void serve_sessions_finish(struct app *app);
