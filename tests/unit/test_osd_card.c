/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The OSD through the card's osd0 (OSD_SEND_CMD as the transport delivers it) in VDR's
 * sequences (docs/av7110.md, clients §2.8): activation (SetWindow + Clear on all 7 windows),
 * Open hidden,
 * SetPalette with the colours used so far, SetBlock of the bitmap and of widened dirty
 * rectangles at the bitmap's stride, MoveWindow to show, Close. Once with the default memory
 * size (one 8-bit window) and once with 92000 (VDR's "sttng" layout: 5 windows of 2, 1, 2, 2
 * and 4 bits). The picture is compared with the reference of test_osd_ref.h after each step. */
#include "test_card_util.h"
#include "test_osd_ref.h"

#include "ffdvb/checksum.h"

static void *osd0;

static int osd_send(int c, int x0, int y0, int x1, int y1, int color, const void *data)
{
	struct ffdvb_osd_cmd oc = { c, x0, y0, x1, y1, color, (void *)data };

	return io_buf(osd0, FFDVB_OSD_SEND_CMD, &oc, 0);
}

/* OSD_SetPalette(first 0, last n - 1) of VDR's ARGB colours, sent as 0xAABBGGRR */
static void set_palette(int win, const uint32_t *argb, int n)
{
	uint32_t words[256];
	struct ffdvb_osd_cmd oc = { FFDVB_OSD_SetPalette, n - 1, 0, 0, 0, 0, words };

	for (int i = 0; i < n; i++) {
		uint32_t a = argb[i];

		words[i] = (a & 0xff000000u) | (a & 0xff) << 16 | (a & 0xff00) | (a >> 16 & 0xff);
		ref_word(win, (unsigned int)i, words[i]);
	}
	CHECK_EQ(io_data(osd0, FFDVB_OSD_SEND_CMD, &oc, words, 4 * (size_t)n, 0), 0);
	CHECK_EQ(E.card->last_osd_data.cmd, FFDVB_OSD_SetPalette);
	CHECK_EQ(E.card->last_osd_data.size, 4 * (uint32_t)n);
}

/* OSD_SetBlock of the rectangle (x0,y0)-(x1,y1) of a bitmap `stride` bytes wide, starting at
 * src = &pixel(x0,y0): the transport fetches w bytes of each row (stride apart) */
static void set_block(int win, int x0, int y0, int x1, int y1, int stride, const uint8_t *src)
{
	static uint8_t packed[720 * 576];
	int w = x1 - x0 + 1, h = y1 - y0 + 1;
	struct ffdvb_osd_cmd oc = { FFDVB_OSD_SetBlock, x0, y0, x1, y1, stride, (void *)src };

	for (int r = 0; r < h; r++)
		memcpy(packed + (size_t)r * w, src + (size_t)r * stride, (size_t)w);
	CHECK_EQ(io_data(osd0, FFDVB_OSD_SEND_CMD, &oc, packed, (size_t)w * h, 0), 0);
	CHECK_EQ(E.card->last_osd_data.cmd, FFDVB_OSD_SetBlock);
	CHECK_EQ(E.card->last_osd_data.size, (uint32_t)(w * h));
	CHECK_EQ(E.card->last_osd_data.fnv1a,
		 ffdvb_fnv1a(FFDVB_FNV1A_INIT, packed, (size_t)w * h));
	for (int r = 0; r < h; r++)
		for (int c = 0; c < w; c++)
			ref_px(win, x0 + c, y0 + r, src[(size_t)r * stride + c]);
}

static void activate(void)
{
	for (int i = 1; i <= 7; i++) {
		CHECK_EQ(osd_send(FFDVB_OSD_SetWindow, i, 0, 0, 0, 0, NULL), 0);
		CHECK_EQ(osd_send(FFDVB_OSD_Clear, 0, 0, 0, 0, 0, NULL), 0);
	}
}

struct area {
	int x0, y0, x1, y1, bpp;
	uint8_t *bitmap; /* VDR's cBitmap: one byte per pixel */
	int colors;      /* colours used so far */
};

static void draw_bitmap(struct area *a, int seed)
{
	int w = a->x1 - a->x0 + 1, h = a->y1 - a->y0 + 1;

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			a->bitmap[y * w + x] = (uint8_t)(((x / 8 + y / 6 + seed) % a->colors));
}

static const uint32_t vdr_colors[16] = {
	0x00000000u, 0xff000000u, 0xffffffffu, 0x7f000000u, 0x99fcfcfcu, 0xcc3366ccu,
	0xff00fc00u, 0xfffc0000u, 0xfffcfc00u, 0x990000fcu, 0x7fb8b8b8u, 0xe0202020u,
	0x10ff00ffu, 0x0f00ffffu, 0xffc0c0c0u, 0x80808080u,
};

/* cDvbSdFfOsd::Flush for all areas: first time Open hidden + whole bitmap, then MoveWindow */
static void first_flush(struct area *areas, int n)
{
	for (int i = 0; i < n; i++) {
		struct area *a = &areas[i];
		int w = a->x1 - a->x0 + 1;

		CHECK_EQ(osd_send(FFDVB_OSD_SetWindow, i + 1, 0, 0, 0, 0, NULL), 0);
		CHECK_EQ(osd_send(FFDVB_OSD_Open, a->x0, a->y0, a->x1, a->y1, a->bpp, (void *)1), 0);
		ref_open(i + 1, a->x0, a->y0, w, a->y1 - a->y0 + 1, a->bpp, 1);
		set_palette(i + 1, vdr_colors, a->colors);
		set_block(i + 1, 0, 0, w - 1, a->y1 - a->y0, w, a->bitmap);
	}
	ref_compare(E.card->osd, "VDR flush before MoveWindow: nothing visible");
	for (int i = 0; i < n; i++) {
		CHECK_EQ(osd_send(FFDVB_OSD_SetWindow, i + 1, 0, 0, 0, 0, NULL), 0);
		CHECK_EQ(osd_send(FFDVB_OSD_MoveWindow, areas[i].x0, areas[i].y0, 0, 0, 0, NULL), 0);
		ref_move(i + 1, areas[i].x0, areas[i].y0);
	}
	ref_compare(E.card->osd, "VDR first flush");
}

/* a later flush of area i: more colours, a dirty rectangle widened to a multiple of 8 */
static void dirty_flush(struct area *areas, int i, int colors, int dx0, int dy0, int dx1, int dy1)
{
	struct area *a = &areas[i];
	int w = a->x1 - a->x0 + 1;

	a->colors = colors;
	for (int y = dy0; y <= dy1; y++)
		for (int x = dx0; x <= dx1; x++)
			a->bitmap[y * w + x] = (uint8_t)((x + 3 * y) % colors);
	CHECK_EQ(osd_send(FFDVB_OSD_SetWindow, i + 1, 0, 0, 0, 0, NULL), 0);
	set_palette(i + 1, vdr_colors, colors);
	set_block(i + 1, dx0, dy0, dx1, dy1, w, a->bitmap + dy0 * w + dx0);
	ref_compare(E.card->osd, "VDR dirty flush");
}

static void close_all(struct area *areas, int n)
{
	for (int i = 0; i < n; i++) {
		CHECK_EQ(osd_send(FFDVB_OSD_SetWindow, i + 1, 0, 0, 0, 0, NULL), 0);
		CHECK_EQ(osd_send(FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL), 0);
		ref_close(i + 1);
		free(areas[i].bitmap);
	}
	ref_compare(E.card->osd, "VDR close");
}

static void vdr_session(struct area *areas, int n, uint32_t memsize)
{
	struct ffdvb_osd_cap cap = { .cmd = FFDVB_OSD_CAP_MEMSIZE };
	long need = 0;
	uint64_t gen;

	CHECK_EQ(io_buf(osd0, FFDVB_OSD_GET_CAPABILITY, &cap, 0), 0);
	CHECK_EQ(cap.val, memsize);
	for (int i = 0; i < n; i++) {
		struct area *a = &areas[i];
		int w = a->x1 - a->x0 + 1, h = a->y1 - a->y0 + 1;

		need += (long)w * h * a->bpp / 8; /* VDR's CanHandleAreas */
		CHECK(w % (8 / a->bpp) == 0);
		a->bitmap = calloc((size_t)w * h, 1);
		draw_bitmap(a, i);
	}
	CHECK(need <= cap.val);
	gen = ffdvb_osd_generation(E.card->osd);
	activate();
	CHECK_EQ(ffdvb_osd_generation(E.card->osd), gen); /* nothing open, nothing changes */
	first_flush(areas, n);
	CHECK(ffdvb_osd_generation(E.card->osd) > gen);

	/* non-dirty flushes still select the windows: no visible change */
	gen = ffdvb_osd_generation(E.card->osd);
	for (int i = 0; i < n; i++)
		CHECK_EQ(osd_send(FFDVB_OSD_SetWindow, i + 1, 0, 0, 0, 0, NULL), 0);
	CHECK_EQ(ffdvb_osd_generation(E.card->osd), gen);

	/* a dirty rectangle in every area, widened to multiples of 8 pixels */
	for (int i = 0; i < n; i++) {
		int w = areas[i].x1 - areas[i].x0 + 1, h = areas[i].y1 - areas[i].y0 + 1;
		int colors = 1 << areas[i].bpp > 16 ? 16 : 1 << areas[i].bpp;

		dirty_flush(areas, i, colors, 16, h / 4, w / 2 + 7 - (w / 2) % 8 + 8, h / 2);
		CHECK(ffdvb_osd_generation(E.card->osd) > gen);
	}

	/* osd0 closed and reopened: the OSD stays (§2.4) */
	xclose(osd0);
	ref_compare(E.card->osd, "osd0 closed: windows stay");
	osd0 = xopen(FFDVB_NODE_OSD, O_RDWR, NULL);
	CHECK(osd0 != NULL);
	CHECK_EQ(ffdvb_osd_current_window(E.card->osd), n);
	close_all(areas, n);
}

/* default memory: one 8-bit window at VDR's default OSD position */
static void vdr_default_memsize(void)
{
	struct area a[1] = { { 58, 46, 681, 529, 8, NULL, 12 } };

	env_setup(0);
	osd0 = xopen(FFDVB_NODE_OSD, O_RDWR, NULL);
	vdr_session(a, 1, FFDVB_DEFAULT_OSD_MEMSIZE);
	/* the progress bar: a small 8-bit window at y 325..529 over the closed menu */
	struct area bar[1] = { { 58, 440, 681, 529, 8, NULL, 6 } };

	vdr_session(bar, 1, FFDVB_DEFAULT_OSD_MEMSIZE);
	xclose(osd0);
	env_teardown();
}

/* memsize 92000: VDR splits the menu into 1/2/4-bit windows */
static void vdr_small_memsize(void)
{
	struct ffdvb_card_config cfg = { .osd_memsize = 92000 };
	struct area a[5] = {
		{ 58, 46, 681, 105, 2, NULL, 4 },   { 58, 106, 681, 405, 1, NULL, 2 },
		{ 58, 406, 681, 445, 2, NULL, 3 },  { 58, 446, 681, 485, 2, NULL, 4 },
		{ 58, 486, 681, 529, 4, NULL, 11 },
	};

	memset(&E, 0, sizeof(E));
	E.base = event_base_new();
	E.card = ffdvb_card_new(E.base, &cfg);
	E.ops = ffdvb_card_node_ops(FFDVB_NODE_OSD);
	osd0 = xopen(FFDVB_NODE_OSD, O_RDWR, NULL);
	vdr_session(a, 5, 92000);
	xclose(osd0);
	env_teardown();
}

/* every depth through the card, and the drawing commands VDR never uses */
static void other_commands(void)
{
	uint8_t row[64];
	static const char txt[] = "osd0";

	env_setup(0);
	osd0 = xopen(FFDVB_NODE_OSD, O_RDWR, NULL);
	for (int bpp = 1, n = 1; bpp <= 8; bpp *= 2, n++) {
		CHECK_EQ(osd_send(FFDVB_OSD_SetWindow, n, 0, 0, 0, 0, NULL), 0);
		CHECK_EQ(osd_send(FFDVB_OSD_Open, 10 + 100 * n, 300, 10 + 100 * n + 63, 363, bpp, NULL),
			 0);
		ref_open(n, 10 + 100 * n, 300, 64, 64, bpp, 0);
		set_palette(n, vdr_colors, 1 << bpp > 16 ? 16 : 1 << bpp);
		CHECK_EQ(osd_send(FFDVB_OSD_Fill, 0, 0, 0, 0, 2, NULL), 0);
		ref_box(n, 0, 0, 64, 64, 2);
		CHECK_EQ(osd_send(FFDVB_OSD_SetColor, 0x10, 0x20, 0x30, 0xff, 3, NULL), 0);
		ref_color(n, 3, 0x10, 0x20, 0x30, 0xff);
		CHECK_EQ(osd_send(FFDVB_OSD_FillRow, 0, 4, 63, 3, 3, NULL), 0);
		ref_box(n, 0, 4, 64, 3, 3);
		CHECK_EQ(osd_send(FFDVB_OSD_FillBlock, 8, 10, 23, 30, 1, NULL), 0);
		ref_box(n, 8, 10, 16, 21, 1);
		CHECK_EQ(osd_send(FFDVB_OSD_Line, 0, 63, 63, 40, 4, NULL), 0);
		ref_line(n, 0, 63, 63, 40, 4);
		CHECK_EQ(osd_send(FFDVB_OSD_SetPixel, 60, 2, 0, 0, 5, NULL), 0);
		ref_px(n, 60, 2, 5);
		for (int i = 0; i < 64; i++)
			row[i] = (uint8_t)i;
		struct ffdvb_osd_cmd oc = { FFDVB_OSD_SetRow, 0, 50, 63, 0, 0, row };

		CHECK_EQ(io_data(osd0, FFDVB_OSD_SEND_CMD, &oc, row, 64, 0), 0);
		for (int i = 0; i < 64; i++)
			ref_px(n, i, 50, row[i]);
		oc = (struct ffdvb_osd_cmd){ FFDVB_OSD_Text, 0, 56, 0, 0, 1 | 0 << 16, (void *)txt };
		CHECK_EQ(io_data(osd0, FFDVB_OSD_SEND_CMD, &oc, (void *)txt, sizeof txt, 0), 0);
		CHECK_EQ(E.card->last_osd_data.cmd, FFDVB_OSD_Text);
		/* glyphs are test_osd_text's business: here the 4 cells of 8x8 (or boxes) hold
		 * only fg and bg, some fg; they go back into the reference as they are */
		uint32_t *argb = NULL;
		int fg = 0;

		CHECK_EQ(ffdvb_osd_window_argb(E.card->osd, n, &argb), 0);
		for (int y = 56; y < 64 && argb; y++)
			for (int x = 0; x < 32; x++) {
				uint32_t v = argb[y * 64 + x];

				CHECK(v == R[n].pal[1] || v == R[n].pal[0]);
				fg += v == R[n].pal[1];
				ref_px(n, x, y, v == R[n].pal[1] ? 1 : 0);
			}
		free(argb);
		CHECK(fg > 20);
		CHECK_EQ(osd_send(FFDVB_OSD_Hide, 0, 0, 0, 0, 0, NULL), 0);
		R[n].visible = 0;
		ref_compare(E.card->osd, "hidden through the card");
		CHECK_EQ(osd_send(FFDVB_OSD_Show, 0, 0, 0, 0, 0, NULL), 0);
		R[n].visible = 1;
		ref_compare(E.card->osd, "every depth through the card");
	}
	/* a failed command changes nothing and records nothing */
	uint32_t last = E.card->last_osd_data.fnv1a;
	uint64_t gen = ffdvb_osd_generation(E.card->osd);

	CHECK_EQ(osd_send(FFDVB_OSD_SetBlock, 0, 0, 720, 0, 0, row), -EINVAL);
	CHECK_EQ(osd_send(FFDVB_OSD_Test, 0, 0, 0, 0, 0, NULL), -EINVAL);
	CHECK_EQ(E.card->last_osd_data.fnv1a, last);
	CHECK_EQ(ffdvb_osd_generation(E.card->osd), gen);
	ref_compare(E.card->osd, "after failed commands");
	xclose(osd0);
	env_teardown();
	ref_reset();
}

int main(void)
{
	vdr_default_memsize();
	vdr_small_memsize();
	other_commands();
	return finish("test_osd_card");
}
