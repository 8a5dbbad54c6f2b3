/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Composition of the visible windows into the 720x576 ARGB plane. Windows are placed at their
 * absolute position and clipped to the screen; window 7 is on top of 6 and so on. Where
 * windows overlap, the highest window whose pixel is not transparent wins (no blending between
 * windows: the stacking of the firmware is unknown, §7.1, and VDR never overlaps). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "osd_internal.h"

static void render_window(const struct osd_window *w, uint32_t *argb)
{
	int64_t c0 = w->x < 0 ? -(int64_t)w->x : 0, r0 = w->y < 0 ? -(int64_t)w->y : 0;
	int64_t c1 = (int64_t)FFDVB_OSD_SCREEN_W - w->x, r1 = (int64_t)FFDVB_OSD_SCREEN_H - w->y;

	if (c1 > w->w)
		c1 = w->w;
	if (r1 > w->h)
		r1 = w->h;
	for (int64_t r = r0; r < r1; r++) {
		const uint8_t *src = w->pix + r * w->w;
		uint32_t *dst = argb + (w->y + r) * FFDVB_OSD_SCREEN_W; /* column w->x + c */

		for (int64_t c = c0; c < c1; c++) {
			uint32_t v = w->argb[src[c]];

			if (v)
				dst[w->x + c] = v;
		}
	}
}

void ffdvb_osd_render(const struct ffdvb_osd *osd, uint32_t *argb)
{
	memset(argb, 0, sizeof(uint32_t) * FFDVB_OSD_SCREEN_W * FFDVB_OSD_SCREEN_H);
	for (int i = 1; i <= FFDVB_OSD_MAX_WINDOWS; i++) {
		const struct osd_window *w = &osd->win[i];

		if (w->open && w->visible && w->pix)
			render_window(w, argb);
	}
}

int ffdvb_osd_window_argb(const struct ffdvb_osd *osd, int win, uint32_t **argb)
{
	const struct osd_window *w;
	uint32_t *out;

	if (win < 1 || win > FFDVB_OSD_MAX_WINDOWS || !osd->win[win].open)
		return -EINVAL;
	w = &osd->win[win];
	out = malloc(sizeof(uint32_t) * (size_t)w->w * (size_t)w->h);
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < (size_t)w->w * (size_t)w->h; i++)
		out[i] = w->pix ? w->argb[w->pix[i]] : 0;
	*argb = out;
	return 0;
}
