/* SPDX-License-Identifier: GPL-2.0-or-later */
/* png_rgba.c: ARGB words (0xAARRGGBB) to an RGBA PNG file. */
#ifndef FFDVBCTL_PNG_RGBA_H
#define FFDVBCTL_PNG_RGBA_H

#include <stdint.h>
#include <stdio.h>

/* Writes w x h pixels to f. Returns 0 or -errno. */
int png_write_argb(FILE *f, const uint32_t *argb, int w, int h);

#endif
