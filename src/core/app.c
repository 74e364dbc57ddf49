#include "core/app.h"

#include "core/paths.h"

uint64_t app_uptime_ms(const struct app *app)
{
    return uv_now(app->loop) - app->started_ms;
}

bool app_ensure_data_dir(struct app *app, char **err)
{
    return paths_mkdir_p(app->data_dir, err);
}
