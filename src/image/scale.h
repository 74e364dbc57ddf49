/* High-quality downscaling by area averaging (every source pixel contributes
 * to the destination pixel it falls in, weighted by overlap), in fixed point:
 * every channel within one level of the exact average, flat areas exact. */
#pragma once
#include "image/frame.h"

/* Scale src to dst_width wide, keeping the aspect ratio; dst is allocated.
 * dst_width must be <= src->width (no upscaling). */
void image_downscale(const struct frame *src, uint32_t dst_width, struct frame *dst);
