/* What the android module (glovebox-android.so) exports to the core. */
#include "core/module.h"
#include "backend/android/android.h"

static const struct android_api api = {.connect = android_connect, .list = android_list};

MODULE_EXPORT(android, &api, NULL);
