/* SPDX-License-Identifier: GPL-2.0-or-later */
/* osd0 (§7.2, §7.4, §7.5): errno of every OSD_SEND_CMD command, payload checks, window
 * bookkeeping, OSD_GET_CAPABILITY, other ioctls, read/write/poll. */
#include "test_card_util.h"

#include "ffdvb/checksum.h"

/* the OSD model's view of window n (the card keeps no window bookkeeping of its own) */
static struct ffdvb_osd_window_info win_info(int n)
{
	struct ffdvb_osd_window_info i = { 0 };

	ffdvb_osd_window(E.card->osd, n, &i);
	return i;
}

static void *osd;
static uint8_t column[576];

static uint8_t *big_block(void)
{
	return column;
}

static int cmd(int c, int x0, int y0, int x1, int y1, int color, void *data)
{
	struct ffdvb_osd_cmd oc = { c, x0, y0, x1, y1, color, data };

	return io_buf(osd, FFDVB_OSD_SEND_CMD, &oc, 0);
}

/* a command whose payload the transport fetched (or failed to) */
static int cmd_data(int c, int x0, int y0, int x1, int y1, int color, void *data, size_t len,
		    int fault)
{
	struct ffdvb_osd_cmd oc = { c, x0, y0, x1, y1, color, fault ? (void *)8 : data };

	return io_data(osd, FFDVB_OSD_SEND_CMD, &oc, data, len, fault);
}

static void errno_table(void)
{
	uint8_t pix[720 * 2];
	uint32_t pal[256];
	char text[] = "Hello";

	memset(pix, 3, sizeof(pix));
	for (int i = 0; i < 256; i++)
		pal[i] = 0xff000000u | (uint32_t)i;

	/* no-data commands, with and without an open window: 0 */
	CHECK_EQ(cmd(FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL), 0);
	CHECK_EQ(cmd(FFDVB_OSD_Show, 0, 0, 0, 0, 0, NULL), 0);
	CHECK_EQ(cmd(FFDVB_OSD_Hide, 0, 0, 0, 0, 0, NULL), 0);
	CHECK_EQ(cmd(FFDVB_OSD_Clear, 0, 0, 0, 0, 0, NULL), 0);
	CHECK_EQ(cmd(FFDVB_OSD_Fill, 0, 0, 0, 0, 1, NULL), 0);
	CHECK_EQ(cmd(FFDVB_OSD_SetColor, 255, 0, 0, 255, 1, NULL), 0);
	CHECK_EQ(cmd(FFDVB_OSD_SetPixel, 1, 1, 0, 0, 1, NULL), 0);
	CHECK_EQ(cmd(FFDVB_OSD_FillRow, 0, 0, 10, 2, 1, NULL), 0);
	CHECK_EQ(cmd(FFDVB_OSD_FillBlock, 0, 0, 10, 10, 1, NULL), 0);
	CHECK_EQ(cmd(FFDVB_OSD_Line, 0, 0, 10, 10, 1, NULL), 0);
	CHECK_EQ(cmd(FFDVB_OSD_MoveWindow, 5, 5, 0, 0, 0, NULL), 0);

	/* not implemented / unknown: EINVAL */
	CHECK_EQ(cmd(FFDVB_OSD_SetTrans, 0, 0, 0, 0, 0, NULL), -EINVAL);
	CHECK_EQ(cmd(FFDVB_OSD_GetPixel, 0, 0, 0, 0, 0, NULL), -EINVAL);
	CHECK_EQ(cmd(FFDVB_OSD_Query, 0, 0, 0, 0, 0, NULL), -EINVAL);
	CHECK_EQ(cmd(FFDVB_OSD_Test, 0, 0, 0, 0, 0, NULL), -EINVAL);
	CHECK_EQ(cmd(0, 0, 0, 0, 0, 0, NULL), -EINVAL);
	CHECK_EQ(cmd(23, 0, 0, 0, 0, 0, NULL), -EINVAL);
	CHECK_EQ(cmd(-1, 0, 0, 0, 0, 0, NULL), -EINVAL);

	/* SetWindow 1..7 */
	CHECK_EQ(cmd(FFDVB_OSD_SetWindow, 0, 0, 0, 0, 0, NULL), -EINVAL);
	CHECK_EQ(cmd(FFDVB_OSD_SetWindow, 8, 0, 0, 0, 0, NULL), -EINVAL);
	CHECK_EQ(cmd(FFDVB_OSD_SetWindow, -1, 0, 0, 0, 0, NULL), -EINVAL);
	CHECK_EQ(ffdvb_osd_current_window(E.card->osd), 1);
	CHECK_EQ(cmd(FFDVB_OSD_SetWindow, 7, 0, 0, 0, 0, NULL), 0);
	CHECK_EQ(ffdvb_osd_current_window(E.card->osd), 7);
	CHECK_EQ(cmd(FFDVB_OSD_SetWindow, 2, 0, 0, 0, 0, NULL), 0);

	/* Open / OpenRaw: data is a flag, never read */
	CHECK_EQ(cmd(FFDVB_OSD_Open, 58, 46, 681, 529, 8, (void *)1), 0);
	CHECK(win_info(2).open && !win_info(2).visible && !win_info(2).positioned);
	CHECK_EQ(win_info(2).w, 624);
	CHECK_EQ(win_info(2).h, 484);
	CHECK_EQ(win_info(2).bpp, 8);
	CHECK_EQ(cmd(FFDVB_OSD_MoveWindow, 58, 46, 0, 0, 0, NULL), 0);
	CHECK(win_info(2).visible && win_info(2).positioned && win_info(2).x == 58);
	CHECK_EQ(cmd(FFDVB_OSD_Hide, 0, 0, 0, 0, 0, NULL), 0);
	CHECK(!win_info(2).visible);
	CHECK_EQ(cmd(FFDVB_OSD_Show, 0, 0, 0, 0, 0, NULL), 0);
	CHECK(win_info(2).visible);
	CHECK_EQ(cmd(FFDVB_OSD_Open, 10, 10, 19, 19, 0, NULL), 0); /* color 0 -> 8 bit */
	CHECK_EQ(win_info(2).bpp, 8);
	CHECK(win_info(2).visible && win_info(2).x == 10);
	CHECK_EQ(cmd(FFDVB_OSD_Open, 10, 10, 19, 19, 2, NULL), 0);
	CHECK_EQ(win_info(2).bpp, 2);
	CHECK_EQ(cmd(FFDVB_OSD_Open, 10, 10, 19, 19, 3, NULL), 0); /* accepted, 1 bit */
	CHECK_EQ(win_info(2).bpp, 1);
	CHECK_EQ(cmd(FFDVB_OSD_OpenRaw, 0, 0, 9, 9, -1, NULL), -EINVAL);
	CHECK_EQ(cmd(FFDVB_OSD_OpenRaw, 0, 0, 9, 9, 20, NULL), -EINVAL);
	CHECK_EQ(cmd(FFDVB_OSD_OpenRaw, 0, 0, 9, 9, 19, NULL), 0);
	CHECK_EQ(cmd(FFDVB_OSD_OpenRaw, 0, 0, 9, 9, 2, (void *)1), 0); /* BITMAP4, hidden */
	CHECK_EQ(win_info(2).bpp, 4);
	CHECK(!win_info(2).visible);
	CHECK_EQ(cmd(FFDVB_OSD_OpenRaw, 0, 0, 9, 9, 7, NULL), 0); /* BITMAP8HR */
	CHECK_EQ(win_info(2).bpp, 8);
	CHECK_EQ(cmd(FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL), 0);
	CHECK(!win_info(2).open && !win_info(2).visible);

	/* SetBlock: w/h 1..720/1..576, data w*h bytes, bad data -> EINVAL */
	CHECK_EQ(cmd_data(FFDVB_OSD_SetBlock, 0, 0, 719, 1, 0, pix, 720 * 2, 0), 0);
	CHECK_EQ(E.card->last_osd_data.cmd, FFDVB_OSD_SetBlock);
	CHECK_EQ(E.card->last_osd_data.size, 720 * 2);
	CHECK_EQ(E.card->last_osd_data.fnv1a, ffdvb_fnv1a(FFDVB_FNV1A_INIT, pix, 720 * 2));
	CHECK_EQ(cmd_data(FFDVB_OSD_SetBlock, 0, 0, 720, 0, 0, pix, 721, 0), -EINVAL);
	CHECK_EQ(cmd_data(FFDVB_OSD_SetBlock, 5, 0, 4, 0, 0, pix, 0, 0), -EINVAL);  /* w 0 */
	CHECK_EQ(cmd_data(FFDVB_OSD_SetBlock, 5, 0, 3, 0, 0, pix, 0, 0), -EINVAL);  /* x1 < x0 */
	CHECK_EQ(cmd_data(FFDVB_OSD_SetBlock, 0, 5, 0, 4, 0, pix, 0, 0), -EINVAL);  /* h 0 */
	CHECK_EQ(cmd_data(FFDVB_OSD_SetBlock, 0, 0, 0, 576, 0, pix, 577, 0), -EINVAL);
	CHECK_EQ(cmd_data(FFDVB_OSD_SetBlock, 0, 0, 0, 575, 0, big_block(), 576, 0), 0);
	CHECK_EQ(cmd_data(FFDVB_OSD_SetBlock, 0, 0, 9, 9, 0, NULL, 0, 1), -EINVAL); /* fault */
	CHECK_EQ(cmd_data(FFDVB_OSD_SetBlock, 0, 0, 9, 9, 20, pix, 100, 0), 0); /* stride 20 */
	/* SetRow: like SetBlock with y1 := y0 */
	CHECK_EQ(cmd_data(FFDVB_OSD_SetRow, 0, 3, 99, 0, 0, pix, 100, 0), 0);
	CHECK_EQ(E.card->last_osd_data.cmd, FFDVB_OSD_SetRow);
	CHECK_EQ(E.card->last_osd_data.size, 100);
	CHECK_EQ(cmd_data(FFDVB_OSD_SetRow, 0, 3, 720, 0, 0, pix, 721, 0), -EINVAL);
	CHECK_EQ(cmd_data(FFDVB_OSD_SetRow, 0, 3, 9, 0, 0, NULL, 0, 1), -EINVAL);

	/* SetPalette: first = color & 0xff, last = x0 & 0xff; bad data -> EFAULT */
	CHECK_EQ(cmd_data(FFDVB_OSD_SetPalette, 15, 0, 0, 0, 0, pal, 64, 0), 0);
	CHECK_EQ(E.card->last_osd_data.cmd, FFDVB_OSD_SetPalette);
	CHECK_EQ(E.card->last_osd_data.size, 64);
	CHECK_EQ(E.card->last_osd_data.fnv1a, ffdvb_fnv1a(FFDVB_FNV1A_INIT, pal, 64));
	CHECK_EQ(cmd_data(FFDVB_OSD_SetPalette, 0x1ff, 0, 0, 0, 0x100, pal, 1024, 0), 0);
	CHECK_EQ(E.card->last_osd_data.size, 1024);
	CHECK_EQ(cmd_data(FFDVB_OSD_SetPalette, 3, 0, 0, 0, 0, NULL, 0, 1), -EFAULT);
	CHECK_EQ(cmd_data(FFDVB_OSD_SetPalette, 1, 0, 0, 0, 5, NULL, 0, 1), 0); /* last < first */

	/* Text: bad data -> EFAULT */
	CHECK_EQ(cmd_data(FFDVB_OSD_Text, 10, 10, 7, 0, 0x10001, text, sizeof(text), 0), 0);
	CHECK_EQ(E.card->last_osd_data.cmd, FFDVB_OSD_Text);
	CHECK_EQ(E.card->last_osd_data.size, sizeof(text));
	CHECK_EQ(cmd_data(FFDVB_OSD_Text, 10, 10, 0, 0, 1, NULL, 0, 1), -EFAULT);
}

static void capability_and_others(void)
{
	struct ffdvb_osd_cap cap = { .cmd = FFDVB_OSD_CAP_MEMSIZE };
	char c;

	CHECK_EQ(io_buf(osd, FFDVB_OSD_GET_CAPABILITY, &cap, 0), 0);
	CHECK_EQ(cap.val, FFDVB_DEFAULT_OSD_MEMSIZE);
	cap.cmd = 2;
	cap.val = 5;
	CHECK_EQ(io_buf(osd, FFDVB_OSD_GET_CAPABILITY, &cap, 0), -EINVAL);
	CHECK_EQ(io_arg(osd, FFDVB_VIDEO_PLAY, 0), -EINVAL);
	CHECK_EQ(io_arg(osd, _IO('o', 200), 0), -EINVAL);
	CHECK_EQ(E.ops->read(osd, &c, 1, 0), -EINVAL);
	CHECK_EQ(E.ops->write(osd, &c, 1, 0), -EINVAL);
	CHECK_EQ(E.ops->poll(osd), POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM);
}

static void memsize_config(void)
{
	struct ffdvb_card_config cfg = { .osd_memsize = 92000 };
	struct ffdvb_card *card = ffdvb_card_new(E.base, &cfg);
	struct ffdvb_osd_cap cap = { .cmd = FFDVB_OSD_CAP_MEMSIZE };
	struct ffdvb_ioctl io = { .cmd = FFDVB_OSD_GET_CAPABILITY, .buf = &cap };
	void *f = NULL;

	CHECK_EQ(E.ops->open(ffdvb_card_node(card, FFDVB_NODE_OSD), O_RDWR, &f), 0);
	CHECK_EQ(E.ops->ioctl(f, &io), 0);
	CHECK_EQ(cap.val, 92000);
	E.ops->release(f);
	ffdvb_card_free(card);
}

int main(void)
{
	env_setup(0);
	osd = xopen(FFDVB_NODE_OSD, O_RDWR, NULL);
	errno_table();
	capability_and_others();
	memsize_config();
	CHECK(E.card->nodes[FFDVB_NODE_OSD].errors > 10);
	xclose(osd);
	env_teardown();
	return finish("test_card_osd");
}
