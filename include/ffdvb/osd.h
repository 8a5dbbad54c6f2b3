/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb OSD: the av7110 on-screen display model (docs/av7110.md §7): up to 7 windows of
 * 1/2/4/8-bit palette bitmaps with per-window palettes, the OSD_SEND_CMD command set with its
 * errno, a built-in text font, and the rendering of the visible windows into one 720x576 ARGB
 * plane that the output blends over the video (include/ffdvb/output.h).
 *
 * Single-threaded: the card calls it from its event loop. The OSD outlives the close of osd0
 * (as on the card): only ffdvb_osd_free() or ffdvb_osd_reset() forget the windows. */
#ifndef FFDVB_OSD_H
#define FFDVB_OSD_H

#include <stddef.h>
#include <stdint.h>

#include "ffdvb/abi.h"

#define FFDVB_OSD_MAX_WINDOWS 7
#define FFDVB_OSD_SCREEN_W 720
#define FFDVB_OSD_SCREEN_H 576

struct ffdvb_osd;

/* memsize: the OSD_CAP_MEMSIZE value the card reports (the model does not enforce it: every
 * window of up to 720x576 gets its memory, one byte per pixel).
 * Loads the OSD_Text fonts 0..3 (8x8, 8x14, 8x16, 16x32 PSF console fonts, Debian package
 * console-setup-linux) from $FFDVB_FONT_DIR if set, else from the compiled-in directory
 * (CMake FFDVB_FONT_DIR, default /usr/share/consolefonts). Without them OSD_Text still returns
 * 0 but draws a box in the foreground colour per character (logged once to stderr). Text cells
 * are drawn whole: glyph pixels in fg, the rest in bg, also when bg is index 0. */
struct ffdvb_osd *ffdvb_osd_new(uint32_t memsize);
void ffdvb_osd_free(struct ffdvb_osd *osd);
/* Closes every window and selects window 1 (a fresh card). */
void ffdvb_osd_reset(struct ffdvb_osd *osd);

/* One OSD_SEND_CMD. data/data_len is what the transport fetched from c->data for the commands
 * that carry data (SetPalette: the palette words; SetBlock/SetRow: the h rows of w bytes
 * concatenated WITHOUT the stride gaps, so data_len == w * h; Text: the string bytes up to and
 * including its NUL, or what could be read), NULL/0 otherwise; data_fault != 0 when c->data could
 * not be read. Open/OpenRaw never read data (non-NULL c->data only means "start hidden").
 * Returns 0 or the -errno av7110 returned (§7.2: EINVAL, EFAULT; -ENOMEM if a window's memory
 * cannot be had). Choices where the card's behaviour is unknown (fresh palettes transparent,
 * windows beyond 720x576 not created, raw non-bitmap types without pixels, ...) are listed at
 * the top of src/osd/osd.c. */
int ffdvb_osd_command(struct ffdvb_osd *osd, const struct ffdvb_osd_cmd *c, const void *data,
		      size_t data_len, int data_fault);

/* Counts every change of what ffdvb_osd_render() would produce; starts at 0. */
uint64_t ffdvb_osd_generation(const struct ffdvb_osd *osd);
/* Current window (1..7) selected with OSD_SetWindow. */
int ffdvb_osd_current_window(const struct ffdvb_osd *osd);

/* Renders the visible windows into argb[FFDVB_OSD_SCREEN_W * FFDVB_OSD_SCREEN_H], 0xAARRGGBB
 * (not premultiplied; A = L * 17 for the blend level L = palette alpha >> 4, 0 = transparent),
 * windows clipped to the screen, higher window numbers over lower ones. */
void ffdvb_osd_render(const struct ffdvb_osd *osd, uint32_t *argb);

struct ffdvb_osd_window_info {
	int open, visible, positioned;
	int x, y, w, h;   /* absolute position (when positioned) and size */
	int bpp;          /* 1/2/4/8 */
	int raw_type;     /* OSD_OpenRaw type, -1 for OSD_Open */
};
/* Returns 0 and fills *info for window 1..7, -EINVAL otherwise. */
int ffdvb_osd_window(const struct ffdvb_osd *osd, int win, struct ffdvb_osd_window_info *info);
/* The window's pixels as ARGB (w * h words, malloc'ed, caller frees) for `ffdvbctl osd-dump`.
 * Returns 0, -EINVAL (no such window or not open) or -ENOMEM. */
int ffdvb_osd_window_argb(const struct ffdvb_osd *osd, int win, uint32_t **argb);

#endif
