/* SPDX-License-Identifier: GPL-2.0-or-later */
/* png_rgba.c: ARGB words (0xAARRGGBB) to an RGBA PNG file. */
#ifndef FFDVBCTL_PNG_RGBA_H
#define FFDVBCTL_PNG_RGBA_H

#include <stdint.h>
#include <stdio.h>

/* Writes w x h pixels to f: 32-bit ARGB in host order, at any alignment (osd-dump's come
 * after a text header). Returns 0 or -errno. */
int png_write_argb(FILE *f, const void *argb, int w, int h);

#endif
