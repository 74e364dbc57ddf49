/* The model's coordinate space of a screen (computer.h): the size its
 * screenshots are scaled to, and the mapping of coordinates both ways. */
#include "tools/computer.h"

#include <math.h>

void computer_space_of(int width, int height, struct computer_space *sp)
{
    double k = 1, side = width > height ? width : height, area = (double)width * height;
    if (side > COMPUTER_MAX_SIDE)
        k = COMPUTER_MAX_SIDE / side;
    if (area * k * k > COMPUTER_MAX_PIXELS)
        k = sqrt(COMPUTER_MAX_PIXELS / area);
    int mw = k < 1 ? (int)floor(width * k) : width;
    if (mw < 1)
        mw = 1;
    /* The height the frame pipeline gives an image mw wide (image/scale.c). */
    int mh = width ? (int)(((long long)height * mw + width / 2) / width) : 0;
    *sp = (struct computer_space){
        .width = width,
        .height = height,
        .model_width = mw,
        .model_height = mh > 0 ? mh : 1,
        .scale = width ? (double)mw / width : 1,
    };
}

/* A model pixel covers w/mw screen pixels: its centre is the one taken. */
static int to_screen(double v, int screen, int model)
{
    int s = (int)floor((v + 0.5) * screen / model);
    return s >= screen ? screen - 1 : s;
}

bool computer_to_screen(const struct computer_space *sp, double x, double y, int *sx, int *sy)
{
    if (!(x >= 0 && y >= 0 && x < sp->model_width && y < sp->model_height))
        return false;
    *sx = to_screen(x, sp->width, sp->model_width);
    *sy = to_screen(y, sp->height, sp->model_height);
    return true;
}

/* The model pixel holding the screen pixel's centre (and so the one that
 * maps back to it). */
static int to_model(int s, int screen, int model)
{
    int m = (int)floor((s + 0.5) * model / screen);
    return m >= model ? model - 1 : m < 0 ? 0 : m;
}

void computer_to_model(const struct computer_space *sp, int sx, int sy, int *x, int *y)
{
    *x = to_model(sx, sp->width, sp->model_width);
    *y = to_model(sy, sp->height, sp->model_height);
}
