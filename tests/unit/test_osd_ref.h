/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The OSD tests' reference: an independent, deliberately naive model of what the screen must
 * show (one pixel at a time, every access bounds-checked, screen composed pixel by pixel from
 * the top window down), written from docs/av7110.md §7 and not from src/osd. Tests apply a
 * command to the OSD under test AND its definition to this reference, then compare the whole
 * 720x576 picture that ffdvb_osd_render() produced with the reference's, pixel by pixel
 * (ref_compare, ref_pixel). */
#ifndef TEST_OSD_REF_H
#define TEST_OSD_REF_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ffdvb/osd.h"

#define SW 720
#define SH 576

struct ref_win {
	int open, visible;
	long x, y;
	int w, h, bpp;
	uint8_t *pix;     /* w * h indices */
	uint32_t pal[256]; /* ARGB as the screen shows it, 0 = transparent */
};

static struct ref_win R[8];

static inline void ref_close(int n)
{
	free(R[n].pix);
	memset(&R[n], 0, sizeof(R[n]));
}

static inline void ref_reset(void)
{
	for (int n = 1; n <= 7; n++)
		ref_close(n);
}

/* OSD_Open of a w x h window: visible at (x, y) unless hidden */
static inline void ref_open(int n, long x, long y, int w, int h, int bpp, int hidden)
{
	ref_close(n);
	R[n].open = 1;
	R[n].visible = !hidden;
	R[n].x = hidden ? 0 : x;
	R[n].y = hidden ? 0 : y;
	R[n].w = w;
	R[n].h = h;
	R[n].bpp = bpp;
	R[n].pix = calloc((size_t)w * (size_t)h, 1);
}

static inline void ref_move(int n, long x, long y)
{
	R[n].x = x;
	R[n].y = y;
	R[n].visible = 1;
}

/* one pixel of window n, window-relative; outside the window nothing happens */
static inline void ref_px(int n, long long x, long long y, unsigned int idx)
{
	struct ref_win *w = &R[n];

	if (!w->open || x < 0 || y < 0 || x >= w->w || y >= w->h)
		return;
	w->pix[y * w->w + x] = (uint8_t)(idx % (1u << w->bpp));
}

static inline unsigned int ref_get(int n, long long x, long long y)
{
	return R[n].pix[y * R[n].w + x];
}

/* palette entry from 8-bit R, G, B and alpha: level L = alpha / 16, shown as A = 17 * L */
static inline void ref_color(int n, unsigned int i, unsigned int r, unsigned int g,
			     unsigned int b, unsigned int a)
{
	unsigned int level = (a & 0xff) / 16;

	if (!R[n].open || i >= (1u << R[n].bpp))
		return;
	R[n].pal[i] = level ? (17 * level) << 24 | (r & 0xff) << 16 | (g & 0xff) << 8 | (b & 0xff)
			    : 0;
}

/* a palette word as VDR sends it: 0xAABBGGRR */
static inline void ref_word(int n, unsigned int i, uint32_t v)
{
	ref_color(n, i, v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24);
}

static inline uint32_t ref_pixel(int sx, int sy)
{
	for (int n = 7; n >= 1; n--) {
		struct ref_win *w = &R[n];
		long x = sx - w->x, y = sy - w->y;

		if (!w->open || !w->visible || x < 0 || y < 0 || x >= w->w || y >= w->h)
			continue;
		if (w->pal[ref_get(n, x, y)])
			return w->pal[ref_get(n, x, y)];
	}
	return 0;
}

static uint32_t screen_got[SW * SH];

/* renders the OSD and compares all pixels with the reference; reports the first difference */
static inline void ref_compare(const struct ffdvb_osd *osd, const char *what)
{
	long bad = 0;
	int fx = -1, fy = -1;
	uint32_t fgot = 0, fwant = 0;

	ffdvb_osd_render(osd, screen_got);
	for (int y = 0; y < SH; y++)
		for (int x = 0; x < SW; x++) {
			uint32_t want = ref_pixel(x, y);

			if (screen_got[y * SW + x] != want && bad++ == 0) {
				fx = x, fy = y;
				fgot = screen_got[y * SW + x];
				fwant = want;
			}
		}
	checks++;
	if (bad) {
		failures++;
		printf("FAIL %s: %ld pixels differ, first at (%d,%d): got 0x%08x, expected 0x%08x\n",
		       what, bad, fx, fy, fgot, fwant);
	}
}

/* ---- commands on the OSD under test ---------------------------------------------------- */

static inline int osd_cmd(struct ffdvb_osd *osd, int c, int x0, int y0, int x1, int y1,
			  int color, const void *data, size_t len)
{
	struct ffdvb_osd_cmd oc = { c, x0, y0, x1, y1, color, (void *)data };

	return ffdvb_osd_command(osd, &oc, data, len, 0);
}

static inline int osd_ctl(struct ffdvb_osd *osd, int c, int x0, int y0, int x1, int y1,
			  int color)
{
	return osd_cmd(osd, c, x0, y0, x1, y1, color, NULL, 0);
}

/* reference Bresenham, iterated along the major axis (x on a tie) from (x0,y0): the minor
 * coordinate advances once the accumulated error reaches half a step, both ends drawn */
static inline void ref_line(int n, long long x0, long long y0, long long x1, long long y1,
			    unsigned int idx)
{
	long long dx = llabs(x1 - x0), dy = llabs(y1 - y0);
	int sx = x1 >= x0 ? 1 : -1, sy = y1 >= y0 ? 1 : -1;
	long long x = x0, y = y0;

	if (dx >= dy) {
		long long acc = dx; /* 2 * dx * (fraction + 1/2) */

		for (long long i = 0; i <= dx; i++) {
			ref_px(n, x, y, idx);
			x += sx;
			acc += 2 * dy;
			if (acc >= 2 * dx) {
				y += sy;
				acc -= 2 * dx;
			}
		}
	} else {
		long long acc = dy;

		for (long long i = 0; i <= dy; i++) {
			ref_px(n, x, y, idx);
			y += sy;
			acc += 2 * dx;
			if (acc >= 2 * dy) {
				x += sx;
				acc -= 2 * dy;
			}
		}
	}
}

static inline void ref_box(int n, long long x, long long y, long long w, long long h,
			   unsigned int idx)
{
	for (long long r = 0; r < h; r++)
		for (long long c = 0; c < w; c++)
			ref_px(n, x + c, y + r, idx);
}

#endif
