/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drawing into one window's pixel indices. Every primitive clips to the window in 64-bit
 * arithmetic, so any int32 coordinates from a client are safe; a window without pixels (not
 * open, or a raw type) ignores them. Indices are stored masked to the window's depth. */
#include <stdio.h>
#include <string.h>

#include "ffdvb/log.h"
#include "osd_internal.h"

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

void osd_fill_box(struct osd_window *w, int64_t x, int64_t y, int64_t bw, int64_t bh,
		  uint32_t index)
{
	int64_t x0, y0, x1, y1; /* clipped, x1/y1 exclusive */

	if (!w->pix || bw <= 0 || bh <= 0)
		return;
	x0 = max64(x, 0);
	y0 = max64(y, 0);
	x1 = min64(x + bw, w->w); /* |x|, bw < 2^33: no overflow */
	y1 = min64(y + bh, w->h);
	for (int64_t r = y0; r < y1; r++)
		if (x1 > x0)
			memset(w->pix + r * w->w + x0, (int)(index & w->mask), (size_t)(x1 - x0));
}

static void put(struct osd_window *w, int64_t x, int64_t y, uint8_t v)
{
	if (x >= 0 && y >= 0 && x < w->w && y < w->h)
		w->pix[y * w->w + x] = v;
}

/* Bresenham from (x0,y0) to (x1,y1), both ends included: along the major axis (the longer
 * one, x on a tie) step i moves the minor coordinate by round(i * dminor / dmajor), halves
 * rounded away from the start. Only the steps whose major coordinate lies in the window are
 * visited, so a line between extreme coordinates costs at most a window's width. */
void osd_line(struct osd_window *w, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
	      uint32_t index)
{
	uint8_t v = (uint8_t)(index & w->mask);
	int64_t dx = x1 >= x0 ? x1 - x0 : x0 - x1, dy = y1 >= y0 ? y1 - y0 : y0 - y1;
	int sx = x1 >= x0 ? 1 : -1, sy = y1 >= y0 ? 1 : -1;
	int x_major = dx >= dy;
	int64_t dmaj = x_major ? dx : dy, dmin = x_major ? dy : dx;
	int64_t maj0 = x_major ? x0 : y0, min0 = x_major ? y0 : x0;
	int smaj = x_major ? sx : sy, smin = x_major ? sy : sx;
	int64_t extent = x_major ? w->w : w->h, lo, hi;

	if (!w->pix)
		return;
	if (dmaj == 0) {
		put(w, x0, y0, v);
		return;
	}
	/* steps i in [0, dmaj] whose major coordinate maj0 + smaj * i is in [0, extent) */
	if (smaj > 0) {
		lo = max64(0, -maj0);
		hi = min64(dmaj, extent - 1 - maj0);
	} else {
		lo = max64(0, maj0 - (extent - 1));
		hi = min64(dmaj, maj0);
	}
	for (int64_t i = lo; i <= hi; i++) {
		/* 2 * i * dmin needs up to 67 bits for int32 endpoints */
		unsigned __int128 num = (unsigned __int128)(2 * (uint64_t)i) * (uint64_t)dmin +
					(uint64_t)dmaj;
		int64_t off = (int64_t)(num / (2 * (uint64_t)dmaj));
		int64_t maj = maj0 + smaj * i, mn = min0 + smin * off;

		if (x_major)
			put(w, maj, mn, v);
		else
			put(w, mn, maj, v);
	}
}

void osd_blit(struct osd_window *w, int64_t x, int64_t y, int bw, int bh, const uint8_t *src)
{
	int64_t c0, c1, r0, r1;

	if (!w->pix)
		return;
	c0 = max64(0, -x);
	c1 = min64(bw, w->w - x);
	r0 = max64(0, -y);
	r1 = min64(bh, w->h - y);
	for (int64_t r = r0; r < r1; r++) {
		const uint8_t *s = src + r * bw;
		uint8_t *d = w->pix + (y + r) * w->w; /* x + c is inside the row */

		if (w->mask == 0xff && c1 > c0)
			memcpy(d + (x + c0), s + c0, (size_t)(c1 - c0));
		else
			for (int64_t c = c0; c < c1; c++)
				d[x + c] = s[c] & w->mask;
	}
}

void osd_text(struct ffdvb_osd *osd, struct osd_window *w, int64_t x, int64_t y, int font,
	      const uint8_t *s, size_t len, uint32_t fg, uint32_t bg)
{
	const struct osd_font *f = &osd->font[font];
	uint8_t vf = (uint8_t)(fg & w->mask), vb = (uint8_t)(bg & w->mask);
	int cw, ch;

	if (!w->pix)
		return;
	osd_font_cell(f, font, &cw, &ch);
	if (!f->glyphs && !osd->font_warned) {
		osd->font_warned = 1;
		ffdvb_log(FFDVB_LOG_WARNING, "osd: no console font %d found (set FFDVB_FONT_DIR or install "
			"console-setup-linux): OSD_Text draws boxes", font);
	}
	for (size_t i = 0; i < len && i < OSD_TEXT_CHARS && s[i]; i++, x += cw) {
		int g = f->glyphs ? f->glyph_of[s[i]] : -1;

		if (x >= w->w)
			break;
		if (!f->glyphs) {
			osd_fill_box(w, x, y, cw, ch, vf);
			continue;
		}
		for (int r = 0; r < ch; r++) {
			const uint8_t *row = g >= 0 ? f->glyphs + (size_t)g * f->glyph_bytes +
							      (size_t)r * f->row_bytes
						    : NULL;

			for (int c = 0; c < cw; c++)
				put(w, x + c, y + r,
				    row && (row[c >> 3] >> (7 - (c & 7)) & 1) ? vf : vb);
		}
	}
}
