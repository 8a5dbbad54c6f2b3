/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bad input to the OSD model (§7.2, §7.4): the errno av7110 gives, and nothing else changes.
 * Window numbers out of range, coordinates outside, depths not in {1,2,4,8}, palette ranges
 * past the end, NULL or unreadable data, sizes that overflow. The ASan/UBSan build runs this
 * too (FFDVB_SANITIZE=ON): no access outside the buffers, no signed overflow. */
#include <errno.h>
#include <limits.h>

#include "test_osd_ref.h"

static struct ffdvb_osd *osd;

static int cmdf(int c, int x0, int y0, int x1, int y1, int color, const void *data, size_t len,
		int fault)
{
	struct ffdvb_osd_cmd oc = { c, x0, y0, x1, y1, color, fault ? (void *)8 : (void *)data };

	return ffdvb_osd_command(osd, &oc, fault ? NULL : data, fault ? 0 : len, fault);
}

static void no_change(const char *what, uint64_t gen)
{
	ref_compare(osd, what);
	EXPECT_EQ(what, ffdvb_osd_generation(osd), gen);
}

int main(void)
{
	static uint8_t block[720 * 576];
	uint32_t pal[256];
	uint64_t gen;

	osd = ffdvb_osd_new(92000);
	for (size_t i = 0; i < sizeof block; i++)
		block[i] = (uint8_t)(i * 13);
	for (int i = 0; i < 256; i++)
		pal[i] = 0xff000000u | (uint32_t)i * 0x10101u;

	/* a visible 4-bit window with content: every rejected command must leave it alone */
	CHECK_EQ(cmdf(FFDVB_OSD_Open, 100, 100, 299, 199, 4, NULL, 0, 0), 0);
	ref_open(1, 100, 100, 200, 100, 4, 0);
	CHECK_EQ(cmdf(FFDVB_OSD_SetPalette, 15, 0, 0, 0, 0, pal, 64, 0), 0);
	for (int i = 0; i < 16; i++)
		ref_word(1, (unsigned int)i, pal[i]);
	CHECK_EQ(cmdf(FFDVB_OSD_Fill, 0, 0, 0, 0, 5, NULL, 0, 0), 0);
	ref_box(1, 0, 0, 200, 100, 5);
	gen = ffdvb_osd_generation(osd);
	no_change("setup", gen);

	/* window numbers: SetWindow 1..7 only */
	static const int bad_windows[] = { 0, 8, -1, INT_MIN, INT_MAX, 100 };

	for (size_t i = 0; i < sizeof bad_windows / sizeof bad_windows[0]; i++)
		CHECK_EQ(cmdf(FFDVB_OSD_SetWindow, bad_windows[i], 0, 0, 0, 0, NULL, 0, 0), -EINVAL);
	CHECK_EQ(ffdvb_osd_current_window(osd), 1);

	/* unknown and unimplemented commands */
	static const int bad_cmds[] = { 0, -1, 23, 100, INT_MIN, INT_MAX, FFDVB_OSD_SetTrans,
					 FFDVB_OSD_GetPixel, FFDVB_OSD_Query, FFDVB_OSD_Test };

	for (size_t i = 0; i < sizeof bad_cmds / sizeof bad_cmds[0]; i++)
		CHECK_EQ(cmdf(bad_cmds[i], 0, 0, 10, 10, 1, NULL, 0, 0), -EINVAL);

	/* OpenRaw types outside 0..19 */
	CHECK_EQ(cmdf(FFDVB_OSD_OpenRaw, 0, 0, 9, 9, 20, NULL, 0, 0), -EINVAL);
	CHECK_EQ(cmdf(FFDVB_OSD_OpenRaw, 0, 0, 9, 9, -1, NULL, 0, 0), -EINVAL);
	CHECK_EQ(cmdf(FFDVB_OSD_OpenRaw, 0, 0, 9, 9, INT_MIN, NULL, 0, 0), -EINVAL);
	no_change("rejected window / command numbers", gen);

	/* SetBlock / SetRow: w, h computed unsigned; 0 or > 720 / 576 -> EINVAL */
	static const int bad_rects[][4] = {
		{ 10, 0, 9, 15 },         /* x1 < x0 */
		{ 0, 10, 63, 9 },         /* y1 < y0 */
		{ 0, 0, 720, 0 },         /* w 721 */
		{ 0, 0, 0, 576 },         /* h 577 */
		{ 0, 0, INT_MAX, 0 },     /* huge */
		{ INT_MIN, 0, INT_MAX, 0 }, /* w wraps to 0 */
		{ -1, 0, INT_MAX, 0 },
		{ 0, INT_MIN, 0, INT_MAX },
		{ 5, 0, 4, 0 },           /* w 0 */
	};
	for (size_t i = 0; i < sizeof bad_rects / sizeof bad_rects[0]; i++) {
		const int *r = bad_rects[i];

		CHECK_EQ(cmdf(FFDVB_OSD_SetBlock, r[0], r[1], r[2], r[3], 0, block, sizeof block, 0),
			 -EINVAL);
		/* SetRow: a bad width, or (y1 unused, h = 1) a length that is not w bytes */
		CHECK_EQ(cmdf(FFDVB_OSD_SetRow, r[0], r[1], r[2], r[3], 0, block, sizeof block, 0),
			 -EINVAL);
	}
	/* data: NULL, unreadable, or not w * h bytes -> EINVAL (not EFAULT) */
	CHECK_EQ(cmdf(FFDVB_OSD_SetBlock, 0, 0, 63, 15, 0, NULL, 0, 0), -EINVAL);
	CHECK_EQ(cmdf(FFDVB_OSD_SetBlock, 0, 0, 63, 15, 0, NULL, 0, 1), -EINVAL);
	CHECK_EQ(cmdf(FFDVB_OSD_SetBlock, 0, 0, 63, 15, 0, block, 64 * 16 - 1, 0), -EINVAL);
	CHECK_EQ(cmdf(FFDVB_OSD_SetBlock, 0, 0, 63, 15, 0, block, 64 * 16 + 1, 0), -EINVAL);
	CHECK_EQ(cmdf(FFDVB_OSD_SetRow, 0, 0, 63, 0, 0, NULL, 0, 1), -EINVAL);
	CHECK_EQ(cmdf(FFDVB_OSD_SetRow, 0, 0, 63, 99, 0, block, 64 * 100, 0), -EINVAL); /* y1 unused */
	no_change("rejected SetBlock / SetRow", gen);

	/* SetPalette: first = color & 0xff, last = x0 & 0xff; data must hold them -> EFAULT */
	CHECK_EQ(cmdf(FFDVB_OSD_SetPalette, 15, 0, 0, 0, 0, NULL, 0, 1), -EFAULT);
	CHECK_EQ(cmdf(FFDVB_OSD_SetPalette, 15, 0, 0, 0, 0, NULL, 0, 0), -EFAULT);
	CHECK_EQ(cmdf(FFDVB_OSD_SetPalette, 15, 0, 0, 0, 0, pal, 63, 0), -EFAULT);
	CHECK_EQ(cmdf(FFDVB_OSD_SetPalette, 255, 0, 0, 0, 0, pal, 1020, 0), -EFAULT);
	CHECK_EQ(cmdf(FFDVB_OSD_SetPalette, -1, 0, 0, 0, -256, pal, 1020, 0), -EFAULT);
	no_change("rejected SetPalette", gen);
	/* last < first: nothing loaded, nothing read, 0 */
	CHECK_EQ(cmdf(FFDVB_OSD_SetPalette, 1, 0, 0, 0, 5, NULL, 0, 1), 0);
	CHECK_EQ(cmdf(FFDVB_OSD_SetPalette, 0x100, 0, 0, 0, 0x0ff, NULL, 0, 0), 0);
	/* a range past the 16 entries of the window: the extra words are ignored */
	CHECK_EQ(cmdf(FFDVB_OSD_SetPalette, 0x1ff, 0, 0, 0, 0x10e, pal, 4 * 242, 0), 0);
	ref_word(1, 14, pal[0]);
	ref_word(1, 15, pal[1]);
	ref_compare(osd, "palette range past the end");
	gen = ffdvb_osd_generation(osd);

	/* Text: NULL or unreadable string -> EFAULT */
	CHECK_EQ(cmdf(FFDVB_OSD_Text, 0, 0, 0, 0, 1, NULL, 0, 1), -EFAULT);
	CHECK_EQ(cmdf(FFDVB_OSD_Text, 0, 0, 0, 0, 1, NULL, 0, 0), -EFAULT);
	no_change("rejected Text", gen);
	CHECK_EQ(cmdf(FFDVB_OSD_Text, 0, 0, 0, 0, 1, "", 0, 0), 0); /* empty: nothing drawn */
	ref_compare(osd, "empty text");

	/* depths not in {1,2,4,8}: av7110 makes a 1-bit window of colors 3, 5, 6, 7 */
	CHECK_EQ(cmdf(FFDVB_OSD_SetWindow, 2, 0, 0, 0, 0, NULL, 0, 0), 0);
	static const int colors[] = { 3, 5, 6, 7, 9, 16, -1, INT_MIN, INT_MAX };
	static const int bpp_of_index[8] = { 1, 2, 1, 4, 1, 1, 1, 8 };

	for (size_t i = 0; i < sizeof colors / sizeof colors[0]; i++) {
		struct ffdvb_osd_window_info info;

		CHECK_EQ(cmdf(FFDVB_OSD_Open, 0, 0, 63, 15, colors[i], (void *)1, 0, 0), 0);
		CHECK_EQ(ffdvb_osd_window(osd, 2, &info), 0);
		EXPECT_EQ("depth of an odd Open color", info.bpp,
			  bpp_of_index[((unsigned int)colors[i] - 1) & 7]);
		/* drawing with indices past the depth stays within the window's memory */
		CHECK_EQ(cmdf(FFDVB_OSD_Fill, 0, 0, 0, 0, INT_MAX, NULL, 0, 0), 0);
		CHECK_EQ(cmdf(FFDVB_OSD_SetBlock, 0, 0, 719, 575, 0, block, sizeof block, 0), 0);
	}
	/* overflowing window sizes: accepted (0), but no window comes of them */
	static const int sizes[][4] = {
		{ 0, 0, INT_MAX, INT_MAX }, { INT_MIN, INT_MIN, INT_MAX, INT_MAX },
		{ INT_MAX, 0, INT_MIN, 10 }, { 100, 100, 0, 0 }, { 0, 0, 720, 0 }, { 0, 0, 0, 576 },
	};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		struct ffdvb_osd_window_info info;
		const int *s = sizes[i];

		CHECK_EQ(cmdf(FFDVB_OSD_Open, s[0], s[1], s[2], s[3], 8, NULL, 0, 0), 0);
		CHECK_EQ(ffdvb_osd_window(osd, 2, &info), 0);
		CHECK(!info.open);
		CHECK_EQ(cmdf(FFDVB_OSD_Fill, 0, 0, 0, 0, 1, NULL, 0, 0), 0);
		CHECK_EQ(cmdf(FFDVB_OSD_Text, 0, 0, 3, 0, 1, "x", 2, 0), 0);
		CHECK_EQ(cmdf(FFDVB_OSD_SetBlock, 0, 0, 9, 9, 0, block, 100, 0), 0);
	}
	/* coordinates outside window and screen */
	CHECK_EQ(cmdf(FFDVB_OSD_SetWindow, 1, 0, 0, 0, 0, NULL, 0, 0), 0);
	CHECK_EQ(cmdf(FFDVB_OSD_SetPixel, 200, 0, 0, 0, 1, NULL, 0, 0), 0);
	CHECK_EQ(cmdf(FFDVB_OSD_SetPixel, 0, 100, 0, 0, 1, NULL, 0, 0), 0);
	CHECK_EQ(cmdf(FFDVB_OSD_SetPixel, -1, -1, 0, 0, 1, NULL, 0, 0), 0);
	CHECK_EQ(cmdf(FFDVB_OSD_SetBlock, 200, 100, 919, 675, 0, block, sizeof block, 0), 0);
	CHECK_EQ(cmdf(FFDVB_OSD_SetBlock, -720, -576, -1, -1, 0, block, sizeof block, 0), 0);
	CHECK_EQ(cmdf(FFDVB_OSD_FillBlock, 200, 100, INT_MAX, INT_MAX, 1, NULL, 0, 0), 0);
	CHECK_EQ(cmdf(FFDVB_OSD_FillRow, 0, 0, 199, INT_MIN, 1, NULL, 0, 0), 0);
	CHECK_EQ(cmdf(FFDVB_OSD_Line, INT_MIN, 0, INT_MIN + 5, 99, 1, NULL, 0, 0), 0);
	CHECK_EQ(cmdf(FFDVB_OSD_Text, INT_MAX, INT_MAX, 3, 0, 1, "text", 5, 0), 0);
	ref_compare(osd, "drawing outside the window changes nothing");
	CHECK_EQ(cmdf(FFDVB_OSD_MoveWindow, INT_MAX, INT_MIN, 0, 0, 0, NULL, 0, 0), 0);
	ref_move(1, INT_MAX, INT_MIN);
	ref_compare(osd, "window moved far away");

	ffdvb_osd_free(osd);
	ref_reset();
	return finish("test_osd_errors");
}
