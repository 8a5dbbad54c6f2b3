/* SPDX-License-Identifier: GPL-2.0-or-later */
/* OSD_Text (§7.2): x0,y0 = position, x1 = font (clamped to <= 3), color = (bg << 16) | fg, at
 * most 239 characters, clipped to the window. The glyphs are compared with bitmaps this test
 * reads itself from the same PSF console fonts (fonts 0..3 = Lat15-VGA8, -VGA14, -VGA16,
 * -VGA32x16 of console-setup-linux), characters taken as Latin-1, looked up in the font's
 * Unicode table; a printable character the font lacks shows as its '?', a control character
 * as an empty (bg) cell. Without font files OSD_Text draws one fg box per character cell
 * (8x8, 8x14, 8x16, 16x32): checked with FFDVB_FONT_DIR pointing at an empty directory.
 * Exit 77 (SKIP) when the fonts are not installed, after the fallback checks passed. */
#include <limits.h>
#include <unistd.h>

#include <zlib.h>

#include "test_osd_ref.h"

#ifndef TEST_FONT_DIR
#define TEST_FONT_DIR "/usr/share/consolefonts"
#endif

static const char *const files[4] = { "Lat15-VGA8.psf.gz", "Lat15-VGA14.psf.gz",
				      "Lat15-VGA16.psf.gz", "Lat15-VGA32x16.psf.gz" };
static const int cell[4][2] = { { 8, 8 }, { 8, 14 }, { 8, 16 }, { 16, 32 } };

struct tfont {
	int w, h, count, stride; /* stride: bytes per glyph row */
	uint8_t *bits;           /* glyph g, row r: bits + (g * h + r) * stride */
	uint8_t *table;          /* Unicode table as in the file */
	size_t table_len;
	int psf2;
};

static struct tfont fonts[4];
static struct ffdvb_osd *osd;

static unsigned int u32le(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (unsigned int)p[3] << 24;
}

static int load(struct tfont *f, const char *path)
{
	static uint8_t buf[1 << 20];
	gzFile gz = gzopen(path, "rb");
	int n, off;

	if (!gz)
		return -1;
	n = gzread(gz, buf, sizeof buf);
	gzclose(gz);
	if (n < 32)
		return -1;
	if (buf[0] == 0x36 && buf[1] == 0x04) {
		f->w = 8, f->h = buf[3], f->count = buf[2] & 1 ? 512 : 256, off = 4;
	} else if (u32le(buf) == 0x864ab572u) {
		f->psf2 = 1;
		off = (int)u32le(buf + 8);
		f->count = (int)u32le(buf + 16);
		f->h = (int)u32le(buf + 24);
		f->w = (int)u32le(buf + 28);
	} else {
		return -1;
	}
	f->stride = (f->w + 7) / 8;
	size_t glyphs = (size_t)f->count * f->h * f->stride;

	f->bits = malloc(glyphs);
	memcpy(f->bits, buf + off, glyphs);
	f->table_len = (size_t)n - off - glyphs;
	f->table = malloc(f->table_len + 1);
	memcpy(f->table, buf + off + glyphs, f->table_len);
	return 0;
}

/* the glyph whose Unicode list (before any sequence) holds code point u, or -1 */
static int glyph_for(const struct tfont *f, unsigned int u)
{
	size_t p = 0;

	for (int g = 0; g < f->count && p < f->table_len; g++) {
		int in_seq = 0;

		if (!f->psf2) {
			for (; p + 1 < f->table_len; p += 2) {
				unsigned int v = f->table[p] | f->table[p + 1] << 8;

				if (v == 0xffff)
					break;
				if (v == 0xfffe)
					in_seq = 1;
				else if (!in_seq && v == u)
					return g;
			}
			p += 2;
			continue;
		}
		while (p < f->table_len && f->table[p] != 0xff) {
			unsigned int c = f->table[p];

			if (c == 0xfe) {
				in_seq = 1;
				p++;
			} else if (c < 0x80) {
				if (!in_seq && c == u)
					return g;
				p++;
			} else if (c < 0xe0) { /* two bytes: all Latin-1 lives here */
				c = (c & 0x1f) << 6 | (f->table[p + 1] & 0x3f);
				if (!in_seq && c == u)
					return g;
				p += 2;
			} else {
				p += c < 0xf0 ? 3 : 4;
			}
		}
		p++;
	}
	return -1;
}

static int glyph_bit(const struct tfont *f, int g, int r, int c)
{
	return f->bits[((size_t)g * f->h + r) * f->stride + c / 8] >> (7 - c % 8) & 1;
}

/* the definition: each character (Latin-1 byte, up to 239, up to the NUL) fills its cell */
static void ref_text(int n, long long x, long long y, int font, const uint8_t *s, size_t len,
		     unsigned int fg, unsigned int bg, int boxes)
{
	int cw = boxes ? cell[font][0] : fonts[font].w, ch = boxes ? cell[font][1] : fonts[font].h;

	for (size_t i = 0; i < len && i < 239 && s[i]; i++) {
		int g = boxes ? -1 : glyph_for(&fonts[font], s[i]);

		if (!boxes && g < 0 && s[i] >= 0x20)
			g = glyph_for(&fonts[font], '?');
		for (int r = 0; r < ch; r++)
			for (int c = 0; c < cw; c++)
				ref_px(n, x + (long long)i * cw + c, y + r,
				       boxes || (g >= 0 && glyph_bit(&fonts[font], g, r, c)) ? fg : bg);
	}
}

static void text(int x, int y, int x1, int color, const char *s, size_t len)
{
	struct ffdvb_osd_cmd c = { FFDVB_OSD_Text, x, y, x1, 0, color, (void *)s };

	CHECK_EQ(ffdvb_osd_command(osd, &c, s, len, 0), 0);
}

static void window(int n, int x, int y, int w, int h, int bpp)
{
	uint32_t pal[256];

	osd_ctl(osd, FFDVB_OSD_SetWindow, n, 0, 0, 0, 0);
	CHECK_EQ(osd_ctl(osd, FFDVB_OSD_Open, x, y, x + w - 1, y + h - 1, bpp), 0);
	ref_open(n, x, y, w, h, bpp, 0);
	for (int i = 0; i < 256; i++) {
		pal[i] = 0xff000000u | (uint32_t)(i * 0x010305);
		if (i < (1 << bpp))
			ref_word(n, (unsigned int)i, pal[i]);
	}
	CHECK_EQ(osd_cmd(osd, FFDVB_OSD_SetPalette, (1 << bpp) - 1, 0, 0, 0, 0, pal,
			 4u << bpp), 0);
	CHECK_EQ(osd_ctl(osd, FFDVB_OSD_Fill, 0, 0, 0, 0, 7), 0);
	ref_box(n, 0, 0, w, h, 7);
}

static void glyphs(void)
{
	static const char hello[] = "Hello, World! \xe9\xfc\xdf \x01 {|}~ 0123456789";
	int y = 0;

	window(1, 0, 20, 720, 200, 8);
	for (int font = 0; font < 4; font++) {
		text(3, y, font, 5 | 2 << 16, hello, sizeof hello);
		ref_text(1, 3, y, font, (const uint8_t *)hello, sizeof hello, 5, 2, 0);
		y += cell[font][1] + 3;
	}
	ref_compare(osd, "fonts 0..3");

	/* font number: > 3 is 3, negative goes through as 8 bits (-1 -> 255 -> 3, -256 -> 0) */
	text(0, 130, 9, 9, "Ab", 3);
	ref_text(1, 0, 130, 3, (const uint8_t *)"Ab", 3, 9, 0, 0);
	text(40, 130, -1, 10, "Ab", 3);
	ref_text(1, 40, 130, 3, (const uint8_t *)"Ab", 3, 10, 0, 0);
	text(80, 130, -256, 11, "Ab", 3);
	ref_text(1, 80, 130, 0, (const uint8_t *)"Ab", 3, 11, 0, 0);
	/* fg is the low byte: bits 8..15 do not count; bg index 0 is drawn */
	text(120, 130, 2, 0x3f0c, "xy", 3);
	ref_text(1, 120, 130, 2, (const uint8_t *)"xy", 3, 0x0c, 0, 0);
	/* a string cut by what the transport could read (no NUL) */
	text(160, 130, 2, 12, "abcdef", 2);
	ref_text(1, 160, 130, 2, (const uint8_t *)"ab", 2, 12, 0, 0);
	/* clipped at the right and bottom edges of the window */
	text(700, 190, 3, 13 | 14 << 16, "clip", 5);
	ref_text(1, 700, 190, 3, (const uint8_t *)"clip", 5, 13, 14, 0);
	text(-5, -7, 2, 13 | 14 << 16, "edge", 5);
	ref_text(1, -5, -7, 2, (const uint8_t *)"edge", 5, 13, 14, 0);
	text(INT_MAX, INT_MIN, 3, 1, "far", 4);
	ref_compare(osd, "font numbers, colours, clipping");

	/* at most 239 characters: character 238 lands on x 0..7, character 239 is not drawn */
	char many[300];

	for (int i = 0; i < 299; i++)
		many[i] = (char)('A' + i % 26);
	many[299] = 0;
	text(-238 * 8, 160, 2, 1 | 3 << 16, many, sizeof many);
	ref_text(1, -238 * 8, 160, 2, (const uint8_t *)many, sizeof many, 1, 3, 0);
	ref_compare(osd, "239 characters at most");
	CHECK_EQ(ref_get(1, 8, 165), 7); /* the window's fill, untouched */
	osd_ctl(osd, FFDVB_OSD_Close, 0, 0, 0, 0, 0);
	ref_close(1);

	/* a 1-bit and a 2-bit window: colours masked to the depth */
	window(2, 100, 300, 160, 20, 1);
	text(0, 2, 2, 3 | 2 << 16, "1 bit", 6);
	ref_text(2, 0, 2, 2, (const uint8_t *)"1 bit", 6, 3, 2, 0);
	window(3, 300, 300, 160, 40, 2);
	text(4, 4, 3, 6 | 1 << 16, "2 bit", 6);
	ref_text(3, 4, 4, 3, (const uint8_t *)"2 bit", 6, 6, 1, 0);
	ref_compare(osd, "text at 1 and 2 bpp");
	osd_ctl(osd, FFDVB_OSD_Close, 0, 0, 0, 0, 0);
	osd_ctl(osd, FFDVB_OSD_SetWindow, 2, 0, 0, 0, 0);
	osd_ctl(osd, FFDVB_OSD_Close, 0, 0, 0, 0, 0);
	ref_reset();
}

/* no font files: one fg box per cell, still 0 */
static void boxes_without_fonts(void)
{
	char dir[] = "/tmp/ffdvb-nofonts-XXXXXX";

	if (!mkdtemp(dir)) {
		printf("FAIL: mkdtemp\n");
		failures++;
		return;
	}
	setenv("FFDVB_FONT_DIR", dir, 1);
	osd = ffdvb_osd_new(92000);
	unsetenv("FFDVB_FONT_DIR");
	rmdir(dir);
	window(4, 10, 10, 400, 100, 4);
	for (int font = 0; font < 4; font++) {
		text(2, font * 20, font, 9 | 3 << 16, "box\0hidden", 11);
		ref_text(4, 2, font * 20, font, (const uint8_t *)"box", 4, 9, 3, 1);
	}
	ref_compare(osd, "boxes without fonts");
	ffdvb_osd_free(osd);
	ref_reset();
}

int main(void)
{
	const char *dir = getenv("FFDVB_FONT_DIR");
	int have = 1;
	char path[4096];

	if (!dir || !*dir)
		dir = TEST_FONT_DIR;
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		if (load(&fonts[i], path)) {
			printf("SKIP part: font file %s not found (Debian package console-setup-linux)\n",
			       path);
			have = 0;
		}
	}
	if (have) {
		osd = ffdvb_osd_new(1000000);
		glyphs();
		ffdvb_osd_free(osd);
	}
	boxes_without_fonts();
	for (int i = 0; i < 4; i++) {
		free(fonts[i].bits);
		free(fonts[i].table);
	}
	if (!have && !failures) {
		printf("test_osd_text: SKIPPED the glyph checks (no fonts); %d checks passed\n", checks);
		return 77;
	}
	return finish("test_osd_text");
}
