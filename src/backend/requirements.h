/* Checks of what this machine has, shared by `glovebox doctor` and the
 * status tool. Each is cheap (a stat or a fontconfig lookup). */
#pragma once
#include <stdbool.h>

/* An executable named name on $PATH (or at an absolute path). */
bool requirement_program(const char *name);
/* fontconfig resolves family to a font of that family. */
bool requirement_font(const char *family);
/* A readable file. */
bool requirement_file(const char *path);
