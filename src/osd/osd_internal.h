/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private state of the OSD model (src/osd only). */
#ifndef FFDVB_OSD_INTERNAL_H
#define FFDVB_OSD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ffdvb/osd.h"

#define OSD_FONTS 4          /* OSD_Text fonts 0..3 */
#define OSD_TEXT_CHARS 239   /* characters of one OSD_Text that are drawn */
#define OSD_RAW_TYPES 20     /* osd_raw_window_t OSD_BITMAP1 .. OSD_CURSOR */
#define OSD_RAW_BITMAPS 8    /* BITMAP1/2/4/8 and their HR variants have pixels */

struct osd_window {
	int open, visible, positioned;
	int x, y, w, h;  /* absolute position (0,0 until positioned), size in pixels */
	int bpp;         /* 1/2/4/8 */
	int raw_type;    /* OSD_OpenRaw type, -1 for OSD_Open */
	uint8_t mask;    /* (1 << bpp) - 1: stored indices are masked with it */
	uint8_t *pix;    /* w * h palette indices; NULL for raw types without pixels */
	/* palette as rendered: 0xAARRGGBB, A = L * 17, 0 for a transparent entry */
	uint32_t argb[256];
};

/* A PSF console font: `h` rows of `w` pixels per glyph, rows padded to whole bytes, MSB
 * first. glyph_of maps a Latin-1 byte to a glyph index (-1: no glyph). */
struct osd_font {
	int w, h;
	size_t row_bytes, glyph_bytes;
	unsigned int nglyphs;
	uint8_t *glyphs;
	int glyph_of[256];
};

struct ffdvb_osd {
	uint32_t memsize;
	int cur; /* current window 1..7 */
	uint64_t generation;
	struct osd_window win[FFDVB_OSD_MAX_WINDOWS + 1]; /* [0] unused */
	struct osd_font font[OSD_FONTS]; /* glyphs == NULL: font file not found */
	int font_warned;
};

/* osd_font.c: loads fonts 0..3 from $FFDVB_FONT_DIR, then the compiled-in directory. */
void osd_fonts_load(struct osd_font font[OSD_FONTS]);
void osd_fonts_free(struct osd_font font[OSD_FONTS]);
/* The cell size of font n whether or not it was found (boxes are drawn in that size). */
void osd_font_cell(const struct osd_font *f, int n, int *w, int *h);

/* osd_draw.c: drawing into a window's pixels, clipped to the window; coordinates are
 * window-relative and may be anything (64-bit so that no sum overflows). */
void osd_fill_box(struct osd_window *w, int64_t x, int64_t y, int64_t bw, int64_t bh,
		  uint32_t index);
void osd_line(struct osd_window *w, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
	      uint32_t index);
/* bw * bh source bytes, row after row */
void osd_blit(struct osd_window *w, int64_t x, int64_t y, int bw, int bh, const uint8_t *src);
/* Text: fg for glyph pixels, bg for the rest of each cell (bg is always drawn). */
void osd_text(struct ffdvb_osd *osd, struct osd_window *w, int64_t x, int64_t y, int font,
	      const uint8_t *s, size_t len, uint32_t fg, uint32_t bg);

#endif
