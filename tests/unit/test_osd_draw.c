/* SPDX-License-Identifier: GPL-2.0-or-later */
/* OSD model pixel tests (§7.2, §7.3): every drawing command at every depth, palette alpha
 * levels, hidden windows, move/show/hide, stacking, clipping at window and screen edges, the
 * generation counter. Each step is checked against the naive reference of test_osd_ref.h. */
#include <errno.h>
#include <limits.h>

#include "test_osd_ref.h"

static struct ffdvb_osd *osd;

#define CMD(...) CHECK_EQ(osd_ctl(osd, __VA_ARGS__), 0)

static void set_window(int n)
{
	CMD(FFDVB_OSD_SetWindow, n, 0, 0, 0, 0);
}

/* a palette of 2^bpp entries with every alpha level class: transparent (0x00, 0x0f),
 * faint (0x10), half (0x7f, 0x99) and opaque (0xff) */
static void palette(int n, int bpp)
{
	static const uint8_t alpha[] = { 0x00, 0xff, 0x99, 0x7f, 0x10, 0x0f, 0xff, 0xc3 };
	int count = 1 << bpp;
	uint32_t pal[256];

	for (int i = 0; i < count; i++) {
		pal[i] = (uint32_t)alpha[i % 8] << 24 | (uint32_t)(i * 7 + 1) << 16 |
			 (uint32_t)(255 - i) << 8 | (uint32_t)(i * 3 + 5);
		ref_word(n, (unsigned int)i, pal[i]);
	}
	CHECK_EQ(osd_cmd(osd, FFDVB_OSD_SetPalette, count - 1, 0, 0, 0, 0, pal, 4 * (size_t)count),
		 0);
}

static void every_command_at_depth(int bpp)
{
	char what[64];
	int n = bpp == 8 ? 4 : bpp; /* windows 1, 2, 4 and 4 again */
	int w = 200, h = 120;
	uint8_t block[64 * 10];

	set_window(n);
	CMD(FFDVB_OSD_Open, 30 + 10 * bpp, 40 + 5 * bpp, 30 + 10 * bpp + w - 1,
	    40 + 5 * bpp + h - 1, bpp);
	ref_open(n, 30 + 10 * bpp, 40 + 5 * bpp, w, h, bpp, 0);
	palette(n, bpp);
	snprintf(what, sizeof what, "%d bpp: open + palette", bpp);
	ref_compare(osd, what);

	/* Fill: every pixel, index masked to the depth */
	CMD(FFDVB_OSD_Fill, 0, 0, 0, 0, 0x101 | (1 << bpp));
	ref_box(n, 0, 0, w, h, 0x101 | (1u << bpp));
	snprintf(what, sizeof what, "%d bpp: fill", bpp);
	ref_compare(osd, what);

	/* FillBlock (inclusive corners) and FillRow (height = y1) */
	CMD(FFDVB_OSD_FillBlock, 5, 6, 44, 30, 2);
	ref_box(n, 5, 6, 40, 25, 2);
	CMD(FFDVB_OSD_FillRow, 50, 10, 99, 7, 3);
	ref_box(n, 50, 10, 50, 7, 3);
	CMD(FFDVB_OSD_FillRow, 50, 40, 99, 0, 0); /* height 0: nothing */
	CMD(FFDVB_OSD_FillBlock, 60, 60, 59, 70, 0); /* x1 < x0: nothing */
	snprintf(what, sizeof what, "%d bpp: fill block / fill row", bpp);
	ref_compare(osd, what);

	/* SetPixel, Line in all eight octants and degenerate ones */
	CMD(FFDVB_OSD_SetPixel, 3, 100, 0, 0, 1);
	ref_px(n, 3, 100, 1);
	static const int lines[][4] = {
		{ 100, 60, 190, 80 }, { 100, 60, 120, 115 }, { 100, 60, 80, 119 },
		{ 100, 60, 10, 75 },  { 100, 60, 10, 45 },   { 100, 60, 90, 0 },
		{ 100, 60, 140, 2 },  { 100, 60, 199, 40 },  { 150, 100, 150, 100 },
		{ 20, 110, 180, 110 }, { 180, 5, 180, 95 },  { 0, 0, 199, 119 },
		{ 7, 3, 12, 5 },      { 12, 5, 7, 3 },
	};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		CMD(FFDVB_OSD_Line, lines[i][0], lines[i][1], lines[i][2], lines[i][3], (int)i + 1);
		ref_line(n, lines[i][0], lines[i][1], lines[i][2], lines[i][3], (unsigned int)i + 1);
	}
	snprintf(what, sizeof what, "%d bpp: set pixel / lines", bpp);
	ref_compare(osd, what);

	/* SetBlock: one byte per pixel, values above the depth masked; SetRow = one row */
	for (size_t i = 0; i < sizeof block; i++)
		block[i] = (uint8_t)(i * 37 + 11);
	CHECK_EQ(osd_cmd(osd, FFDVB_OSD_SetBlock, 120, 70, 183, 79, 0, block, 64 * 10), 0);
	for (int r = 0; r < 10; r++)
		for (int c = 0; c < 64; c++)
			ref_px(n, 120 + c, 70 + r, block[r * 64 + c]);
	CHECK_EQ(osd_cmd(osd, FFDVB_OSD_SetRow, 10, 115, 73, 0, 0, block + 64, 64), 0);
	for (int c = 0; c < 64; c++)
		ref_px(n, 10 + c, 115, block[64 + c]);
	snprintf(what, sizeof what, "%d bpp: set block / set row", bpp);
	ref_compare(osd, what);

	/* SetColor: index, R, G, B, opacity */
	CMD(FFDVB_OSD_SetColor, 0x12, 0x34, 0x56, 0xf0, 1);
	ref_color(n, 1, 0x12, 0x34, 0x56, 0xf0);
	CMD(FFDVB_OSD_SetColor, 0x12, 0x34, 0x56, 0x20, 0); /* index 0 becomes L = 2 */
	ref_color(n, 0, 0x12, 0x34, 0x56, 0x20);
	snprintf(what, sizeof what, "%d bpp: set color", bpp);
	ref_compare(osd, what);

	/* Clear: index 0 everywhere */
	CMD(FFDVB_OSD_Clear, 0, 0, 0, 0, 7);
	ref_box(n, 0, 0, w, h, 0);
	snprintf(what, sizeof what, "%d bpp: clear", bpp);
	ref_compare(osd, what);
	CMD(FFDVB_OSD_Close, 0, 0, 0, 0, 0);
	ref_close(n);
	ref_compare(osd, "close");
}

static void alpha_levels(void)
{
	uint32_t pal[4] = { 0x0fffffffu, 0x10203040u, 0x99010203u, 0xff0a0b0cu };
	uint8_t row[4] = { 0, 1, 2, 3 };
	uint32_t got[SW * SH];

	set_window(1);
	CMD(FFDVB_OSD_Open, 0, 0, 3, 0, 2);
	CHECK_EQ(osd_cmd(osd, FFDVB_OSD_SetPalette, 3, 0, 0, 0, 0, pal, sizeof pal), 0);
	CHECK_EQ(osd_cmd(osd, FFDVB_OSD_SetRow, 0, 0, 3, 0, 0, row, 4), 0);
	ffdvb_osd_render(osd, got);
	/* alpha 0x0f: level 0 = transparent; 0x10: level 1 = A 17; BBGGRR swapped to RRGGBB */
	CHECK_EQ(got[0], 0);
	CHECK_EQ(got[1], 0x11403020u);
	CHECK_EQ(got[2], 0x99030201u);
	CHECK_EQ(got[3], 0xff0c0b0au);
	/* SetColor opacity 1..15 is level 0 as well; 0x80 is level 8 = A 136 */
	CMD(FFDVB_OSD_SetColor, 1, 2, 3, 15, 3);
	CMD(FFDVB_OSD_SetColor, 1, 2, 3, 0x80, 2);
	ffdvb_osd_render(osd, got);
	CHECK_EQ(got[3], 0);
	CHECK_EQ(got[2], 0x88010203u);
	/* entries past the window's palette (4 for 2 bpp) are ignored, also by SetColor */
	uint32_t big[16];

	for (int i = 0; i < 16; i++)
		big[i] = 0xff000000u | (uint32_t)i;
	CHECK_EQ(osd_cmd(osd, FFDVB_OSD_SetPalette, 15, 0, 0, 0, 2, big, 4 * 14), 0);
	ffdvb_osd_render(osd, got);
	CHECK_EQ(got[2], 0xff000000u); /* entry 2 = word 0 */
	CHECK_EQ(got[3], 0xff010000u);
	CMD(FFDVB_OSD_SetColor, 9, 9, 9, 255, 4);
	CMD(FFDVB_OSD_Close, 0, 0, 0, 0, 0);
}

static void hidden_move_show_hide(void)
{
	uint64_t g0;

	set_window(3);
	g0 = ffdvb_osd_generation(osd);
	CHECK_EQ(osd_cmd(osd, FFDVB_OSD_Open, 100, 100, 163, 131, 4, (void *)1, 0), 0);
	ref_open(3, 100, 100, 64, 32, 4, 1);
	palette(3, 4);
	CMD(FFDVB_OSD_FillBlock, 0, 0, 63, 31, 1);
	ref_box(3, 0, 0, 64, 32, 1);
	CMD(FFDVB_OSD_Line, 0, 0, 63, 31, 2);
	ref_line(3, 0, 0, 63, 31, 2);
	ref_compare(osd, "hidden window is not shown");
	CHECK_EQ(ffdvb_osd_generation(osd), g0); /* drawing into a hidden window */
	struct ffdvb_osd_window_info info;

	CHECK_EQ(ffdvb_osd_window(osd, 3, &info), 0);
	CHECK(info.open && !info.visible && !info.positioned);
	CHECK_EQ(info.bpp, 4);
	CHECK_EQ(info.raw_type, -1);

	CMD(FFDVB_OSD_MoveWindow, 300, 200, 0, 0, 0);
	ref_move(3, 300, 200);
	ref_compare(osd, "MoveWindow shows the hidden window");
	CHECK(ffdvb_osd_generation(osd) > g0);
	CHECK_EQ(ffdvb_osd_window(osd, 3, &info), 0);
	CHECK(info.open && info.visible && info.positioned && info.x == 300 && info.y == 200);

	g0 = ffdvb_osd_generation(osd);
	CMD(FFDVB_OSD_Hide, 0, 0, 0, 0, 0);
	R[3].visible = 0;
	ref_compare(osd, "hide");
	CHECK(ffdvb_osd_generation(osd) > g0);
	g0 = ffdvb_osd_generation(osd);
	set_window(5);
	set_window(3);
	CHECK_EQ(ffdvb_osd_generation(osd), g0); /* SetWindow changes no picture */
	CMD(FFDVB_OSD_Show, 0, 0, 0, 0, 0);
	R[3].visible = 1;
	ref_compare(osd, "show at the same place");
	CHECK(ffdvb_osd_generation(osd) > g0);
	g0 = ffdvb_osd_generation(osd);
	CMD(FFDVB_OSD_SetPixel, 5, 5, 0, 0, 9);
	ref_px(3, 5, 5, 9);
	ref_compare(osd, "pixel in a visible window");
	CHECK(ffdvb_osd_generation(osd) > g0);

	/* Show before any position: at (0,0) */
	set_window(6);
	CHECK_EQ(osd_cmd(osd, FFDVB_OSD_Open, 400, 400, 415, 415, 8, (void *)8, 0), 0);
	ref_open(6, 0, 0, 16, 16, 8, 1);
	palette(6, 8);
	CMD(FFDVB_OSD_Fill, 0, 0, 0, 0, 1);
	ref_box(6, 0, 0, 16, 16, 1);
	CMD(FFDVB_OSD_Show, 0, 0, 0, 0, 0);
	R[6].visible = 1;
	ref_compare(osd, "show of an unpositioned window");
	CMD(FFDVB_OSD_Close, 0, 0, 0, 0, 0);
	ref_close(6);
	set_window(3);
	CMD(FFDVB_OSD_Close, 0, 0, 0, 0, 0);
	ref_close(3);
	ref_compare(osd, "all closed");
}

/* windows 2 and 5 overlap: 5 is on top, its transparent pixels show 2 */
static void stacking(void)
{
	set_window(5);
	CMD(FFDVB_OSD_Open, 100, 100, 299, 199, 8);
	ref_open(5, 100, 100, 200, 100, 8, 0);
	palette(5, 8);
	CMD(FFDVB_OSD_Fill, 0, 0, 0, 0, 1);
	ref_box(5, 0, 0, 200, 100, 1);
	CMD(FFDVB_OSD_FillBlock, 10, 10, 59, 59, 0); /* index 0: transparent */
	ref_box(5, 10, 10, 50, 50, 0);
	set_window(2);
	CMD(FFDVB_OSD_Open, 50, 50, 179, 179, 4);
	ref_open(2, 50, 50, 130, 130, 4, 0);
	palette(2, 4);
	CMD(FFDVB_OSD_Fill, 0, 0, 0, 0, 3);
	ref_box(2, 0, 0, 130, 130, 3);
	ref_compare(osd, "window 5 over window 2");
	CMD(FFDVB_OSD_Close, 0, 0, 0, 0, 0);
	ref_close(2);
	set_window(5);
	CMD(FFDVB_OSD_Close, 0, 0, 0, 0, 0);
	ref_close(5);
}

static void clipping(void)
{
	uint8_t block[720];

	for (int i = 0; i < 720; i++)
		block[i] = (uint8_t)(i + 1);
	/* a window partly off the right and bottom screen edges */
	set_window(1);
	CMD(FFDVB_OSD_Open, 600, 500, 799, 599, 8);
	ref_open(1, 600, 500, 200, 100, 8, 0);
	palette(1, 8);
	CMD(FFDVB_OSD_Fill, 0, 0, 0, 0, 6);
	ref_box(1, 0, 0, 200, 100, 6);
	/* drawing across the window's edges */
	CMD(FFDVB_OSD_FillBlock, -10, -10, 30, 30, 2);
	ref_box(1, -10, -10, 41, 41, 2);
	CMD(FFDVB_OSD_FillBlock, 180, 90, 260, 150, 3);
	ref_box(1, 180, 90, 81, 61, 3);
	CMD(FFDVB_OSD_Line, -50, 20, 250, 60, 7);
	ref_line(1, -50, 20, 250, 60, 7);
	CMD(FFDVB_OSD_SetPixel, 200, 5, 0, 0, 1);
	CMD(FFDVB_OSD_SetPixel, -1, 5, 0, 0, 1);
	CHECK_EQ(osd_cmd(osd, FFDVB_OSD_SetBlock, 150, 95, 150 + 99, 95 + 6, 0, block, 700), 0);
	for (int r = 0; r < 7; r++)
		for (int c = 0; c < 100; c++)
			ref_px(1, 150 + c, 95 + r, block[r * 100 + c]);
	CHECK_EQ(osd_cmd(osd, FFDVB_OSD_SetRow, -5, 50, 14, 0, 0, block, 20), 0);
	for (int c = 0; c < 20; c++)
		ref_px(1, -5 + c, 50, block[c]);
	ref_compare(osd, "clipped at window and screen edges");

	/* extreme coordinates: the whole window, a line through it, nothing outside */
	CMD(FFDVB_OSD_FillBlock, INT_MIN, INT_MIN, INT_MAX, INT_MAX, 4);
	ref_box(1, 0, 0, 200, 100, 4);
	ref_compare(osd, "FillBlock INT_MIN..INT_MAX");
	CMD(FFDVB_OSD_FillRow, INT_MIN, 3, INT_MAX, INT_MAX, 5);
	ref_box(1, 0, 3, 200, 97, 5);
	ref_compare(osd, "FillRow INT_MIN..INT_MAX, height INT_MAX");
	CMD(FFDVB_OSD_Line, INT_MIN, INT_MIN, INT_MAX, INT_MAX, 9);
	/* the diagonal: x == y */
	for (int i = 0; i < 100; i++)
		ref_px(1, i, i, 9);
	ref_compare(osd, "Line INT_MIN..INT_MAX diagonal");
	CMD(FFDVB_OSD_Line, INT_MIN, INT_MAX, INT_MAX, INT_MIN, 9); /* passes (-1..0, 0..-1) */
	CMD(FFDVB_OSD_Line, 0, INT_MAX, 0, 50, 10);
	for (int y = 50; y < 100; y++)
		ref_px(1, 0, y, 10);
	ref_compare(osd, "Line from far away");
	CMD(FFDVB_OSD_SetPixel, INT_MAX, INT_MIN, 0, 0, 1);
	/* SetBlock w = (unsigned)INT_MIN - INT_MAX + 1 = 2: valid for av7110, drawn far away */
	CHECK_EQ(osd_cmd(osd, FFDVB_OSD_SetBlock, INT_MAX, 0, INT_MIN, 1, 0, block, 4), 0);
	ref_compare(osd, "wrapped SetBlock width draws nothing inside");

	/* moved partly off the top left */
	CMD(FFDVB_OSD_MoveWindow, -50, -30, 0, 0, 0);
	ref_move(1, -50, -30);
	ref_compare(osd, "window at negative position");
	CMD(FFDVB_OSD_MoveWindow, INT_MIN, INT_MAX, 0, 0, 0);
	ref_move(1, INT_MIN, INT_MAX);
	ref_compare(osd, "window far off screen");
	CMD(FFDVB_OSD_MoveWindow, 719, 575, 0, 0, 0);
	ref_move(1, 719, 575);
	ref_compare(osd, "window with one pixel on screen");
	CMD(FFDVB_OSD_Close, 0, 0, 0, 0, 0);
	ref_close(1);
}

static void open_sizes_and_types(void)
{
	struct ffdvb_osd_window_info info;
	uint8_t full[720];

	set_window(7);
	/* no size check on av7110: 0, but the firmware cannot create such a window */
	CMD(FFDVB_OSD_Open, 0, 0, INT_MAX, INT_MAX, 8);
	CHECK_EQ(ffdvb_osd_window(osd, 7, &info), 0);
	CHECK(!info.open);
	CMD(FFDVB_OSD_Open, 100, 100, 0, 0, 4);
	CHECK_EQ(ffdvb_osd_window(osd, 7, &info), 0);
	CHECK(!info.open);
	CMD(FFDVB_OSD_Open, INT_MIN, 0, INT_MAX, 10, 8);
	CHECK_EQ(ffdvb_osd_window(osd, 7, &info), 0);
	CHECK(!info.open);
	CMD(FFDVB_OSD_Fill, 0, 0, 0, 0, 1); /* not open: 0, nothing */
	ref_compare(osd, "no window");

	/* a full-screen 8-bit window, then Open again on it replaces it (palette too) */
	CMD(FFDVB_OSD_Open, 0, 0, 719, 575, 0); /* color 0 -> 8 bit */
	ref_open(7, 0, 0, 720, 576, 8, 0);
	palette(7, 8);
	for (int i = 0; i < 720; i++)
		full[i] = (uint8_t)i;
	CHECK_EQ(osd_cmd(osd, FFDVB_OSD_SetRow, 0, 575, 719, 0, 0, full, 720), 0);
	for (int i = 0; i < 720; i++)
		ref_px(7, i, 575, full[i]);
	ref_compare(osd, "full screen window");
	CMD(FFDVB_OSD_Open, 10, 10, 19, 19, 3); /* color 3: a 1-bit window on av7110 */
	ref_open(7, 10, 10, 10, 10, 1, 0);
	CHECK_EQ(ffdvb_osd_window(osd, 7, &info), 0);
	CHECK_EQ(info.bpp, 1);
	ref_compare(osd, "reopened window has a fresh (transparent) palette");

	/* OpenRaw bitmap types and HR variants set the depth; others hold no pixels */
	static const int raw_bpp[8] = { 1, 2, 4, 8, 1, 2, 4, 8 };

	for (int t = 0; t < 8; t++) {
		CMD(FFDVB_OSD_OpenRaw, 40, 40, 71, 55, t);
		ref_open(7, 40, 40, 32, 16, raw_bpp[t], 0);
		CHECK_EQ(ffdvb_osd_window(osd, 7, &info), 0);
		CHECK_EQ(info.bpp, raw_bpp[t]);
		CHECK_EQ(info.raw_type, t);
		palette(7, raw_bpp[t]);
		CMD(FFDVB_OSD_FillBlock, 1, 1, 20, 9, 1);
		ref_box(7, 1, 1, 20, 9, 1);
		ref_compare(osd, "OpenRaw bitmap");
	}
	CMD(FFDVB_OSD_OpenRaw, 40, 40, 71, 55, 8);
	ref_close(7);
	CMD(FFDVB_OSD_Fill, 0, 0, 0, 0, 1);
	CHECK_EQ(ffdvb_osd_window(osd, 7, &info), 0);
	CHECK(info.open && info.visible);
	CHECK_EQ(info.raw_type, 8);
	ref_compare(osd, "raw YCrCb window shows nothing");
	uint32_t *argb = NULL;

	CHECK_EQ(ffdvb_osd_window_argb(osd, 7, &argb), 0);
	CHECK(argb && argb[0] == 0);
	free(argb);
	CMD(FFDVB_OSD_Close, 0, 0, 0, 0, 0);
	CHECK_EQ(ffdvb_osd_window_argb(osd, 7, &argb), -EINVAL);
	CHECK_EQ(ffdvb_osd_window_argb(osd, 8, &argb), -EINVAL);
	CHECK_EQ(ffdvb_osd_window(osd, 0, &info), -EINVAL);
	CHECK_EQ(ffdvb_osd_window(osd, 8, &info), -EINVAL);
}

static void window_argb_and_reset(void)
{
	uint32_t *argb = NULL;
	uint32_t pal[2] = { 0x00000000u, 0xff112233u };

	set_window(4);
	CMD(FFDVB_OSD_Open, 10, 10, 17, 11, 1);
	CHECK_EQ(osd_cmd(osd, FFDVB_OSD_SetPalette, 1, 0, 0, 0, 0, pal, 8), 0);
	CMD(FFDVB_OSD_SetPixel, 3, 1, 0, 0, 1);
	CHECK_EQ(ffdvb_osd_window_argb(osd, 4, &argb), 0);
	CHECK_EQ(argb[8 + 3], 0xff332211u);
	CHECK_EQ(argb[0], 0);
	free(argb);
	uint64_t g = ffdvb_osd_generation(osd);

	ffdvb_osd_reset(osd);
	ref_reset();
	CHECK(ffdvb_osd_generation(osd) > g);
	CHECK_EQ(ffdvb_osd_current_window(osd), 1);
	ref_compare(osd, "reset");
}

int main(void)
{
	osd = ffdvb_osd_new(1000000);
	if (!osd) {
		printf("FAIL: ffdvb_osd_new\n");
		return 1;
	}
	CHECK_EQ(ffdvb_osd_generation(osd), 0);
	CHECK_EQ(ffdvb_osd_current_window(osd), 1);
	ref_compare(osd, "empty OSD");
	for (int bpp = 1; bpp <= 8; bpp *= 2)
		every_command_at_depth(bpp);
	alpha_levels();
	hidden_move_show_hide();
	stacking();
	clipping();
	open_sizes_and_types();
	window_argb_and_reset();
	ffdvb_osd_free(osd);
	ref_reset();
	return finish("test_osd_draw");
}
