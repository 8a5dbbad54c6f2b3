/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Spec §7: osd0 commands (result and errno of each), pointer handling per command, and
 * OSD_GET_CAPABILITY. Window contents are not visible from user space. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"

static int o = -1;

static long osd(int cmd, int x0, int y0, int x1, int y1, int color, void *data)
{
	struct ffdvb_osd_cmd c = { .cmd = cmd, .x0 = x0, .y0 = y0, .x1 = x1, .y1 = y1,
				   .color = color, .data = data };

	return dev_ioctl(o, FFDVB_OSD_SEND_CMD, &c);
}

static void set_window(int w)
{
	osd(FFDVB_OSD_SetWindow, w, 0, 0, 0, 0, NULL);
}

static void windows(void)
{
	check_rc("osd.set_window_0_einval", -EINVAL, osd(FFDVB_OSD_SetWindow, 0, 0, 0, 0, 0, NULL));
	check_rc("osd.set_window_8_einval", -EINVAL, osd(FFDVB_OSD_SetWindow, 8, 0, 0, 0, 0, NULL));
	check_rc("osd.set_window_minus1_einval", -EINVAL,
		 osd(FFDVB_OSD_SetWindow, -1, 0, 0, 0, 0, NULL));
	for (int w = 1; w <= 7; w++)
		check_rc(cname("osd.set_window_%d", w), 0,
			 osd(FFDVB_OSD_SetWindow, w, 0, 0, 0, 0, NULL));

	static const struct {
		const char *name;
		int cmd;
	} not_impl[] = {
		{ "set_trans_9", FFDVB_OSD_SetTrans }, { "get_pixel_11", FFDVB_OSD_GetPixel },
		{ "query_17", FFDVB_OSD_Query },        { "test_18", FFDVB_OSD_Test },
		{ "unknown_cmd_0", 0 },                 { "unknown_cmd_23", 23 },
		{ "unknown_cmd_100", 100 },             { "unknown_cmd_minus1", -1 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(not_impl); i++)
		check_rc(cname("osd.%s_einval", not_impl[i].name), -EINVAL,
			 osd(not_impl[i].cmd, 0, 0, 10, 10, 1, NULL));
}

/* every command on an open 4-bit window, then on a closed one (returns 0: VDR relies on it) */
static void drawing(void)
{
	uint8_t block[64 * 16];
	uint32_t pal[16];
	const char *text = "ffdvb-conform";

	for (size_t i = 0; i < sizeof block; i++)
		block[i] = (uint8_t)(i % 16);
	for (int i = 0; i < 16; i++)
		pal[i] = 0xFF000000u | (uint32_t)(i * 0x111111);

	set_window(1);
	check_rc("osd.open_visible_data_null", 0, osd(FFDVB_OSD_Open, 100, 100, 163, 115, 4, NULL));
	check_rc("osd.close", 0, osd(FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL));
	/* data is a flag ("created hidden"), never dereferenced */
	check_rc("osd.open_hidden_data_1_not_dereferenced", 0,
		 osd(FFDVB_OSD_Open, 100, 100, 163, 115, 4, (void *)1));
	check_rc("osd.open_hidden_data_unmapped_not_dereferenced", 0,
		 osd(FFDVB_OSD_Open, 100, 100, 163, 115, 4, bad_page()));
	check_rc("osd.set_palette_16", 0, osd(FFDVB_OSD_SetPalette, 15, 0, 0, 0, 0, pal));
	check_rc("osd.set_palette_last_below_first_returns_0", 0,
		 osd(FFDVB_OSD_SetPalette, 0, 0, 0, 0, 5, pal));
	check_rc("osd.set_color", 0, osd(FFDVB_OSD_SetColor, 255, 0, 0, 255, 3, NULL));
	check_rc("osd.show", 0, osd(FFDVB_OSD_Show, 0, 0, 0, 0, 0, NULL));
	check_rc("osd.move_window", 0, osd(FFDVB_OSD_MoveWindow, 120, 130, 0, 0, 0, NULL));
	check_rc("osd.hide", 0, osd(FFDVB_OSD_Hide, 0, 0, 0, 0, 0, NULL));
	check_rc("osd.clear", 0, osd(FFDVB_OSD_Clear, 0, 0, 0, 0, 0, NULL));
	check_rc("osd.fill", 0, osd(FFDVB_OSD_Fill, 0, 0, 0, 0, 3, NULL));
	check_rc("osd.set_pixel", 0, osd(FFDVB_OSD_SetPixel, 1, 1, 0, 0, 2, NULL));
	check_rc("osd.set_row", 0, osd(FFDVB_OSD_SetRow, 0, 2, 63, 0, 0, block));
	check_rc("osd.set_block", 0, osd(FFDVB_OSD_SetBlock, 0, 0, 63, 15, 0, block));
	check_rc("osd.set_block_stride_from_color", 0,
		 osd(FFDVB_OSD_SetBlock, 0, 0, 31, 7, 64, block));
	check_rc("osd.fill_row_height_from_y1", 0, osd(FFDVB_OSD_FillRow, 0, 0, 63, 4, 5, NULL));
	check_rc("osd.fill_block", 0, osd(FFDVB_OSD_FillBlock, 2, 2, 20, 10, 6, NULL));
	check_rc("osd.line", 0, osd(FFDVB_OSD_Line, 0, 15, 63, 0, 7, NULL));
	check_rc("osd.text", 0, osd(FFDVB_OSD_Text, 2, 2, 1, 0, (0 << 16) | 15, (void *)text));
	check_rc("osd.text_font_clamped", 0, osd(FFDVB_OSD_Text, 2, 2, 9, 0, 15, (void *)text));

	/* pointers the driver reads: SetBlock/SetRow → EINVAL, SetPalette/Text → EFAULT; a
	   device fetching payloads by CUSE retries cannot tell unreadable memory before the
	   kernel answers EFAULT for it (NULL it can) */
	long unreadable = opts.by_retry ? -EFAULT : -EINVAL;

	check_rc(opts.by_retry ? "osd.set_block_unreadable_data_efault_by_retry"
			       : "osd.set_block_unreadable_data_einval_not_efault",
		 unreadable, osd(FFDVB_OSD_SetBlock, 0, 0, 63, 15, 0, bad_page()));
	check_rc("osd.set_block_null_data_einval", -EINVAL,
		 osd(FFDVB_OSD_SetBlock, 0, 0, 63, 15, 0, NULL));
	check_rc(opts.by_retry ? "osd.set_row_unreadable_data_efault_by_retry"
			       : "osd.set_row_unreadable_data_einval",
		 unreadable, osd(FFDVB_OSD_SetRow, 0, 0, 63, 0, 0, bad_page()));
	check_rc(opts.by_retry ? "osd.set_block_last_row_unreadable_efault_by_retry"
			       : "osd.set_block_last_row_unreadable_einval",
		 unreadable, osd(FFDVB_OSD_SetBlock, 0, 0, 63, 15, 0, page_end_buf(64 * 15 + 32)));
	check_rc("osd.set_block_data_ending_at_page_end", 0,
		 osd(FFDVB_OSD_SetBlock, 0, 0, 63, 15, 0, memcpy(page_end_buf(64 * 16), block,
								  64 * 16)));
	check_rc("osd.set_palette_unreadable_efault", -EFAULT,
		 osd(FFDVB_OSD_SetPalette, 15, 0, 0, 0, 0, bad_page()));
	check_rc("osd.set_palette_partly_unreadable_efault", -EFAULT,
		 osd(FFDVB_OSD_SetPalette, 15, 0, 0, 0, 0, page_end_buf(8 * 4)));
	check_rc("osd.set_palette_ending_at_page_end", 0,
		 osd(FFDVB_OSD_SetPalette, 15, 0, 0, 0, 0, memcpy(page_end_buf(16 * 4), pal, 64)));
	check_rc("osd.text_unreadable_efault", -EFAULT,
		 osd(FFDVB_OSD_Text, 0, 0, 0, 0, 1, bad_page()));
	check_rc("osd.text_null_efault", -EFAULT, osd(FFDVB_OSD_Text, 0, 0, 0, 0, 1, NULL));
	check_rc("osd.text_ending_at_page_end", 0,
		 osd(FFDVB_OSD_Text, 0, 0, 0, 0, 1, memcpy(page_end_buf(4), "abc", 4)));
	char *longtext = malloc(400);

	memset(longtext, 'x', 399);
	longtext[399] = '\0';
	check_rc("osd.text_longer_than_240_accepted", 0,
		 osd(FFDVB_OSD_Text, 0, 0, 0, 0, 1, longtext));
	free(longtext);

	/* §7.4 SetBlock/SetRow size checks (w, h computed unsigned) */
	check_rc("osd.set_block_x1_below_x0_einval", -EINVAL,
		 osd(FFDVB_OSD_SetBlock, 10, 0, 9, 15, 0, block));
	check_rc("osd.set_block_y1_below_y0_einval", -EINVAL,
		 osd(FFDVB_OSD_SetBlock, 0, 10, 63, 9, 0, block));
	check_rc("osd.set_block_width_721_einval", -EINVAL,
		 osd(FFDVB_OSD_SetBlock, 0, 0, 720, 0, 0, block));
	check_rc("osd.set_block_height_577_einval", -EINVAL,
		 osd(FFDVB_OSD_SetBlock, 0, 0, 0, 576, 0, block));
	check_rc("osd.set_row_x1_below_x0_einval", -EINVAL,
		 osd(FFDVB_OSD_SetRow, 10, 0, 9, 0, 0, block));
	check_rc("osd.close_window_1", 0, osd(FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL));

	/* OpenRaw: window type 0..19 */
	set_window(2);
	check_rc("osd.open_raw_type_20_einval", -EINVAL,
		 osd(FFDVB_OSD_OpenRaw, 0, 0, 63, 15, 20, NULL));
	check_rc("osd.open_raw_type_minus1_einval", -EINVAL,
		 osd(FFDVB_OSD_OpenRaw, 0, 0, 63, 15, -1, NULL));
	check_rc("osd.open_raw_bitmap8_hidden", 0,
		 osd(FFDVB_OSD_OpenRaw, 0, 0, 63, 15, 3, (void *)1));
	check_rc("osd.close_raw", 0, osd(FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL));

	/* drawing into a window that is not open succeeds */
	set_window(7);
	osd(FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL);
	static const struct {
		const char *name;
		int cmd;
	} draw[] = {
		{ "clear", FFDVB_OSD_Clear },         { "fill", FFDVB_OSD_Fill },
		{ "set_pixel", FFDVB_OSD_SetPixel },  { "fill_block", FFDVB_OSD_FillBlock },
		{ "fill_row", FFDVB_OSD_FillRow },    { "line", FFDVB_OSD_Line },
		{ "set_color", FFDVB_OSD_SetColor },  { "show", FFDVB_OSD_Show },
		{ "hide", FFDVB_OSD_Hide },           { "move_window", FFDVB_OSD_MoveWindow },
		{ "close", FFDVB_OSD_Close },
	};
	for (size_t i = 0; i < ARRAY_SIZE(draw); i++)
		check_rc(cname("osd.closed_window_%s_returns_0", draw[i].name), 0,
			 osd(draw[i].cmd, 0, 0, 7, 7, 1, NULL));
	check_rc("osd.closed_window_set_block_returns_0", 0,
		 osd(FFDVB_OSD_SetBlock, 0, 0, 63, 15, 0, block));
	check_rc("osd.closed_window_set_palette_returns_0", 0,
		 osd(FFDVB_OSD_SetPalette, 15, 0, 0, 0, 0, pal));
	check_rc("osd.closed_window_text_returns_0", 0,
		 osd(FFDVB_OSD_Text, 0, 0, 0, 0, 1, (void *)text));
	set_window(1);
}

static void capability(void)
{
	struct ffdvb_osd_cap cap = { .cmd = FFDVB_OSD_CAP_MEMSIZE, .val = 0 };

	check_rc("osd.get_capability_memsize_returns", 0,
		 dev_ioctl(o, FFDVB_OSD_GET_CAPABILITY, &cap));
	check("osd.get_capability_memsize_positive", cap.val > 0, "> 0 (92000 or 1000000)",
	      "%ld", (long)cap.val);
	if (cap.val != 92000 && cap.val != 1000000)
		note("OSD memory %ld differs from av7110's 92000 / 1000000", (long)cap.val);
	cap.cmd = 2;
	check_rc("osd.get_capability_cmd_2_einval", -EINVAL,
		 dev_ioctl(o, FFDVB_OSD_GET_CAPABILITY, &cap));
	cap.cmd = 0;
	check_rc("osd.get_capability_cmd_0_einval", -EINVAL,
		 dev_ioctl(o, FFDVB_OSD_GET_CAPABILITY, &cap));
	check_rc("osd.get_capability_unreadable_arg_efault", -EFAULT,
		 dev_ioctl(o, FFDVB_OSD_GET_CAPABILITY, bad_page()));
	check_rc("osd.send_cmd_unreadable_arg_efault", -EFAULT,
		 dev_ioctl(o, FFDVB_OSD_SEND_CMD, bad_page()));
	check_rc("osd.send_cmd_null_arg_efault", -EFAULT, dev_ioctl(o, FFDVB_OSD_SEND_CMD, NULL));

	/* any other request: EINVAL, not ENOTTY (after dvb-core's copy of a sized argument) */
	uint8_t buf[64] = { 0 };
	static const struct {
		const char *name;
		unsigned long req;
	} other[] = {
		{ "unknown_IO_o_162", _IO('o', 162) },
		{ "unknown_IOR_o_170_int", _IOR('o', 170, int) },
		{ "VIDEO_PLAY_number", FFDVB_VIDEO_PLAY },
		{ "VIDEO_GET_STATUS_number", FFDVB_VIDEO_GET_STATUS },
		{ "AUDIO_STOP_number", FFDVB_AUDIO_STOP },
	};
	for (size_t i = 0; i < ARRAY_SIZE(other); i++)
		check_rc(cname("osd.other_ioctl_%s_einval", other[i].name), -EINVAL,
			 _IOC_SIZE(other[i].req) ? dev_ioctl(o, other[i].req, buf)
						 : dev_ioctl_val(o, other[i].req, 0));
	check_rc("osd.other_ioctl_unreadable_arg_efault_first", -EFAULT,
		 dev_ioctl(o, _IOR('o', 170, int), bad_page()));
}

void group_osd(void)
{
	o = dev_open("osd0", O_RDWR);
	check_rc("osd.open", 0, o < 0 ? o : 0);
	if (o < 0)
		return;
	capability();
	windows();
	drawing();
	/* §2.4: closing osd0 keeps the current window; reopen and check SetWindow still works */
	dev_close(&o);
	o = dev_open("osd0", O_RDWR);
	check_rc("osd.reopen_after_close", 0, o < 0 ? o : 0);
	dev_close(&o);
}
