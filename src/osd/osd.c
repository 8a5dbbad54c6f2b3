/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The OSD model: windows, palettes and the OSD_SEND_CMD command set with av7110's argument
 * checks (docs/av7110.md §7.2). What the firmware did silently (a window that is not open,
 * coordinates outside the window, palette entries past the window's palette) returns 0 and
 * changes nothing; only the driver's own checks give an errno.
 *
 * Choices where the card's behaviour is unknown (documented here once):
 * - palettes start fully transparent, for a new window and after OSD_Open on an open one;
 * - OSD_Open/OpenRaw on an open window replace it; a size outside 1..720 x 1..576 (computed
 *   in 64 bits) cannot be created: the window is closed and 0 returned (av7110 does not check);
 * - raw window types 8..19 (YCrCb, video, cursor) exist for position and visibility but hold no
 *   pixels: drawing into them does nothing and they render transparent; the HR bitmap types
 *   render at full resolution;
 * - a window shown with OSD_Show before any position appears at (0,0);
 * - FillBlock with x1 < x0 or y1 < y0 and FillRow with y1 <= 0 or x1 < x0 draw nothing;
 * - the memory size (OSD_CAP_MEMSIZE) is reported only, never enforced. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "osd_internal.h"

#define OSD_SET_BLOCK_MAX_W 720 /* §7.4: w > 720 or h > 576 -> EINVAL */
#define OSD_SET_BLOCK_MAX_H 576

struct ffdvb_osd *ffdvb_osd_new(uint32_t memsize)
{
	struct ffdvb_osd *osd = calloc(1, sizeof(*osd));

	if (!osd)
		return NULL;
	osd->memsize = memsize;
	osd->cur = 1;
	osd_fonts_load(osd->font);
	return osd;
}

static void close_window(struct osd_window *w)
{
	free(w->pix);
	memset(w, 0, sizeof(*w));
}

void ffdvb_osd_free(struct ffdvb_osd *osd)
{
	if (!osd)
		return;
	for (int i = 1; i <= FFDVB_OSD_MAX_WINDOWS; i++)
		close_window(&osd->win[i]);
	osd_fonts_free(osd->font);
	free(osd);
}

void ffdvb_osd_reset(struct ffdvb_osd *osd)
{
	for (int i = 1; i <= FFDVB_OSD_MAX_WINDOWS; i++)
		close_window(&osd->win[i]);
	osd->cur = 1;
	osd->generation++;
}

uint64_t ffdvb_osd_generation(const struct ffdvb_osd *osd)
{
	return osd->generation;
}

int ffdvb_osd_current_window(const struct ffdvb_osd *osd)
{
	return osd->cur;
}

/* a change of the window's pixels or palette shows only if the window is on screen */
static void touched(struct ffdvb_osd *osd, const struct osd_window *w)
{
	if (w->open && w->visible)
		osd->generation++;
}

/* OSD_Open / OSD_OpenRaw: data is only a flag (non-NULL: hidden and unpositioned) */
static int open_window(struct ffdvb_osd *osd, const struct ffdvb_osd_cmd *c, int bpp,
		       int raw_type)
{
	struct osd_window *w = &osd->win[osd->cur];
	int64_t ww = (int64_t)c->x1 - c->x0 + 1, hh = (int64_t)c->y1 - c->y0 + 1;
	int has_pixels = raw_type < OSD_RAW_BITMAPS;

	touched(osd, w);
	close_window(w);
	if (ww < 1 || ww > FFDVB_OSD_SCREEN_W || hh < 1 || hh > FFDVB_OSD_SCREEN_H)
		return 0; /* the firmware cannot create it; av7110 reports nothing */
	if (has_pixels) {
		w->pix = calloc((size_t)(ww * hh), 1);
		if (!w->pix)
			return -ENOMEM;
	}
	w->open = 1;
	w->w = (int)ww;
	w->h = (int)hh;
	w->bpp = bpp;
	w->mask = (uint8_t)((1u << bpp) - 1);
	w->raw_type = raw_type;
	if (!c->data) {
		w->x = c->x0;
		w->y = c->y0;
		w->positioned = w->visible = 1;
		osd->generation++;
	}
	return 0;
}

/* 0xAARRGGBB with A = L * 17 for the blend level L (0..15); level 0 is fully transparent */
static uint32_t entry(uint32_t r, uint32_t g, uint32_t b, uint32_t alpha8)
{
	uint32_t level = (alpha8 & 0xff) >> 4;

	if (!level)
		return 0;
	return (level * 17) << 24 | (r & 0xff) << 16 | (g & 0xff) << 8 | (b & 0xff);
}

static int set_palette(struct ffdvb_osd *osd, const struct ffdvb_osd_cmd *c, const void *data,
		       size_t data_len, int data_fault)
{
	struct osd_window *w = &osd->win[osd->cur];
	int first = c->color & 0xff, last = c->x0 & 0xff;
	size_t len = last >= first ? 4 * (size_t)(last - first + 1) : 0;

	if (!len)
		return 0; /* nothing loaded (the firmware still gets the command) */
	if (data_fault || !data || data_len < len)
		return -EFAULT;
	if (!w->open)
		return 0;
	for (int i = first; i <= last && i <= w->mask; i++) {
		uint32_t v; /* 0xAABBGGRR in host order */

		memcpy(&v, (const uint8_t *)data + 4 * (size_t)(i - first), 4);
		w->argb[i] = entry(v, v >> 8, v >> 16, v >> 24);
	}
	touched(osd, w);
	return 0;
}

/* SetBlock / SetRow (§7.4): data is the h rows of w bytes without the stride gaps */
static int set_block(struct ffdvb_osd *osd, const struct ffdvb_osd_cmd *c, int32_t y1,
		     const void *data, size_t data_len, int data_fault)
{
	struct osd_window *w = &osd->win[osd->cur];
	uint32_t bw = (uint32_t)c->x1 - (uint32_t)c->x0 + 1;
	uint32_t bh = (uint32_t)y1 - (uint32_t)c->y0 + 1;

	if (bw == 0 || bw > OSD_SET_BLOCK_MAX_W || bh == 0 || bh > OSD_SET_BLOCK_MAX_H)
		return -EINVAL;
	if (data_fault || !data || data_len != (size_t)bw * bh)
		return -EINVAL; /* an unreadable block is EINVAL on av7110, not EFAULT */
	osd_blit(w, c->x0, c->y0, (int)bw, (int)bh, data);
	touched(osd, w);
	return 0;
}

static int text(struct ffdvb_osd *osd, const struct ffdvb_osd_cmd *c, const void *data,
		size_t data_len, int data_fault)
{
	struct osd_window *w = &osd->win[osd->cur];
	/* clamped to <= 3; a negative font reaches the firmware as an 8-bit number */
	int font = c->x1 > 3 ? 3 : c->x1 < 0 ? (c->x1 & 0xff) : c->x1;

	if (data_fault || !data)
		return -EFAULT;
	if (font > 3)
		font = 3; /* unknown firmware fonts: the largest one */
	osd_text(osd, w, c->x0, c->y0, font, data, data_len, (uint32_t)c->color,
		 (uint32_t)c->color >> 16);
	touched(osd, w);
	return 0;
}

/* Show, Hide, MoveWindow: placement and visibility */
static int show(struct ffdvb_osd *osd, int visible, const int32_t *pos)
{
	struct osd_window *w = &osd->win[osd->cur];

	if (!w->open)
		return 0;
	if (pos) {
		w->x = pos[0];
		w->y = pos[1];
		w->positioned = 1;
	}
	if (w->visible || visible)
		osd->generation++;
	w->visible = visible;
	return 0;
}

int ffdvb_osd_command(struct ffdvb_osd *osd, const struct ffdvb_osd_cmd *c, const void *data,
		      size_t data_len, int data_fault)
{
	struct osd_window *w = &osd->win[osd->cur];

	switch (c->cmd) {
	case FFDVB_OSD_Close:
		touched(osd, w);
		close_window(w);
		return 0;
	case FFDVB_OSD_Open: {
		/* depth index (color - 1) & 7: color 1/2/4/8 -> 1/2/4/8 bit, 0 -> 8 bit; 3, 5, 6
		 * and 7 give a 1-bit window on av7110 (no error) */
		static const int bpp_of_index[8] = { 1, 2, 1, 4, 1, 1, 1, 8 };

		return open_window(osd, c, bpp_of_index[((uint32_t)c->color - 1) & 7], -1);
	}
	case FFDVB_OSD_OpenRaw:
		if (c->color < 0 || c->color >= OSD_RAW_TYPES)
			return -EINVAL;
		return open_window(osd, c, c->color < OSD_RAW_BITMAPS ? 1 << (c->color & 3) : 1,
				   c->color);
	case FFDVB_OSD_Show:
		return show(osd, 1, NULL);
	case FFDVB_OSD_Hide:
		return show(osd, 0, NULL);
	case FFDVB_OSD_MoveWindow:
		return show(osd, 1, (const int32_t[2]){ c->x0, c->y0 });
	case FFDVB_OSD_SetWindow:
		if (c->x0 < 1 || c->x0 > FFDVB_OSD_MAX_WINDOWS)
			return -EINVAL;
		osd->cur = c->x0;
		return 0;
	case FFDVB_OSD_Clear:
	case FFDVB_OSD_Fill:
		osd_fill_box(w, 0, 0, w->w, w->h, c->cmd == FFDVB_OSD_Clear ? 0 : (uint32_t)c->color);
		touched(osd, w);
		return 0;
	case FFDVB_OSD_SetColor: {
		int i = c->color & 0xff;

		if (w->open && i <= w->mask) {
			w->argb[i] = entry((uint32_t)c->x0, (uint32_t)c->y0, (uint32_t)c->x1,
					   (uint32_t)c->y1);
			touched(osd, w);
		}
		return 0;
	}
	case FFDVB_OSD_SetPalette:
		return set_palette(osd, c, data, data_len, data_fault);
	case FFDVB_OSD_SetPixel:
		osd_fill_box(w, c->x0, c->y0, 1, 1, (uint32_t)c->color);
		touched(osd, w);
		return 0;
	case FFDVB_OSD_SetBlock:
		return set_block(osd, c, c->y1, data, data_len, data_fault);
	case FFDVB_OSD_SetRow:
		return set_block(osd, c, c->y0, data, data_len, data_fault);
	case FFDVB_OSD_FillRow: /* height = y1: the driver's quirk */
		osd_fill_box(w, c->x0, c->y0, (int64_t)c->x1 - c->x0 + 1, c->y1, (uint32_t)c->color);
		touched(osd, w);
		return 0;
	case FFDVB_OSD_FillBlock:
		osd_fill_box(w, c->x0, c->y0, (int64_t)c->x1 - c->x0 + 1,
			     (int64_t)c->y1 - c->y0 + 1, (uint32_t)c->color);
		touched(osd, w);
		return 0;
	case FFDVB_OSD_Line:
		osd_line(w, c->x0, c->y0, c->x1, c->y1, (uint32_t)c->color);
		touched(osd, w);
		return 0;
	case FFDVB_OSD_Text:
		return text(osd, c, data, data_len, data_fault);
	case FFDVB_OSD_SetTrans: /* in the firmware, not reachable through av7110 */
	case FFDVB_OSD_GetPixel:
	case FFDVB_OSD_Query:
	case FFDVB_OSD_Test:
	default:
		return -EINVAL;
	}
}

int ffdvb_osd_window(const struct ffdvb_osd *osd, int win, struct ffdvb_osd_window_info *info)
{
	const struct osd_window *w;

	if (win < 1 || win > FFDVB_OSD_MAX_WINDOWS)
		return -EINVAL;
	w = &osd->win[win];
	*info = (struct ffdvb_osd_window_info){
		.open = w->open, .visible = w->visible, .positioned = w->positioned,
		.x = w->x, .y = w->y, .w = w->w, .h = w->h, .bpp = w->bpp,
		.raw_type = w->open ? w->raw_type : -1,
	};
	return 0;
}
