/* SPDX-License-Identifier: GPL-2.0-or-later */
/* OSD_Text fonts: PSF console fonts (PSF1 and PSF2, gzip'ed or not) as Debian ships them in
 * console-setup-linux (/usr/share/consolefonts). The firmware's own fonts are unknown (§7.2),
 * so fonts 0..3 are the VGA fonts of the Latin-1/-9 set in 8x8, 8x14, 8x16 and 16x32. Bytes of
 * the string are taken as Latin-1 code points and looked up in the font's Unicode table.
 * A font that is not found leaves glyphs NULL: OSD_Text then draws a box per character. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "osd_internal.h"

#ifndef FFDVB_FONT_DIR_DEFAULT
#define FFDVB_FONT_DIR_DEFAULT "/usr/share/consolefonts"
#endif

#define FONT_FILE_MAX (1u << 20)

static const char *const font_files[OSD_FONTS][3] = {
	{ "Lat15-VGA8.psf.gz", "Uni2-VGA8.psf.gz", NULL },
	{ "Lat15-VGA14.psf.gz", "Uni2-VGA14.psf.gz", NULL },
	{ "Lat15-VGA16.psf.gz", "Uni2-VGA16.psf.gz", "default8x16.psfu.gz" },
	{ "Lat15-VGA32x16.psf.gz", "Lat15-Terminus32x16.psf.gz", "Uni2-VGA32x16.psf.gz" },
};

static const int cell_size[OSD_FONTS][2] = { { 8, 8 }, { 8, 14 }, { 8, 16 }, { 16, 32 } };

void osd_font_cell(const struct osd_font *f, int n, int *w, int *h)
{
	*w = f->glyphs ? f->w : cell_size[n][0];
	*h = f->glyphs ? f->h : cell_size[n][1];
}

static uint8_t *read_file(const char *path, size_t *len)
{
	gzFile gz = gzopen(path, "rb"); /* reads uncompressed files as they are */
	uint8_t *buf;
	int n;

	if (!gz)
		return NULL;
	buf = malloc(FONT_FILE_MAX);
	n = buf ? gzread(gz, buf, FONT_FILE_MAX) : -1;
	gzclose(gz);
	if (n <= 0) {
		free(buf);
		return NULL;
	}
	*len = (size_t)n;
	return buf;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void map(struct osd_font *f, uint32_t cp, unsigned int glyph)
{
	if (cp < 256 && f->glyph_of[cp] < 0)
		f->glyph_of[cp] = (int)glyph;
}

/* PSF1 table: per glyph little-endian 16-bit code points up to 0xFFFF; 0xFFFE starts the
 * multi-character sequences, which we skip */
static void psf1_table(struct osd_font *f, const uint8_t *p, const uint8_t *end)
{
	for (unsigned int g = 0; g < f->nglyphs && p + 2 <= end; g++) {
		int seq = 0;

		for (; p + 2 <= end; p += 2) {
			unsigned int u = p[0] | p[1] << 8;

			if (u == 0xffff) {
				p += 2;
				break;
			}
			if (u == 0xfffe)
				seq = 1;
			else if (!seq)
				map(f, u, g);
		}
	}
}

/* PSF2 table: per glyph UTF-8 characters up to 0xFF; 0xFE starts the sequences */
static void psf2_table(struct osd_font *f, const uint8_t *p, const uint8_t *end)
{
	for (unsigned int g = 0; g < f->nglyphs && p < end; g++) {
		int seq = 0;

		while (p < end && *p != 0xff) {
			uint32_t cp = *p++;
			int more = cp >= 0xf0 ? 3 : cp >= 0xe0 ? 2 : cp >= 0xc0 ? 1 : 0;

			if (cp == 0xfe) {
				seq = 1;
				continue;
			}
			if (more)
				cp &= 0x3fu >> more;
			for (; more && p < end && (*p & 0xc0) == 0x80; more--)
				cp = cp << 6 | (*p++ & 0x3f);
			if (!seq)
				map(f, cp, g);
		}
		if (p < end)
			p++; /* the 0xFF */
	}
}

/* Returns 0 when buf holds a usable PSF font (f then owns a copy of its glyphs). */
static int parse(struct osd_font *f, const uint8_t *buf, size_t len)
{
	size_t off, table = 0;
	int has_table;

	for (int i = 0; i < 256; i++)
		f->glyph_of[i] = -1;
	if (len >= 4 && buf[0] == 0x36 && buf[1] == 0x04) {
		f->nglyphs = buf[2] & 1 ? 512 : 256;
		f->h = buf[3];
		f->w = 8;
		off = 4;
		has_table = (buf[2] & 6) != 0;
	} else if (len >= 32 && le32(buf) == 0x864ab572u) {
		off = le32(buf + 8);
		has_table = le32(buf + 12) & 1;
		f->nglyphs = le32(buf + 16);
		f->h = (int)le32(buf + 24);
		f->w = (int)le32(buf + 28);
		if (le32(buf + 20) != (uint32_t)f->h * (((uint32_t)f->w + 7) / 8))
			return -1;
	} else {
		return -1;
	}
	if (f->w < 1 || f->w > 64 || f->h < 1 || f->h > 64 || !f->nglyphs || f->nglyphs > 65536)
		return -1;
	f->row_bytes = ((size_t)f->w + 7) / 8;
	f->glyph_bytes = f->row_bytes * (size_t)f->h;
	if (off > len || (len - off) / f->glyph_bytes < f->nglyphs)
		return -1;
	f->glyphs = malloc(f->glyph_bytes * f->nglyphs);
	if (!f->glyphs)
		return -1;
	memcpy(f->glyphs, buf + off, f->glyph_bytes * f->nglyphs);
	table = off + f->glyph_bytes * f->nglyphs;
	if (has_table && buf[0] == 0x36)
		psf1_table(f, buf + table, buf + len);
	else if (has_table)
		psf2_table(f, buf + table, buf + len);
	else
		for (unsigned int i = 0; i < 256 && i < f->nglyphs; i++)
			f->glyph_of[i] = (int)i;
	/* characters the font lacks are shown as its '?' */
	for (int i = 0; i < 256; i++)
		if (f->glyph_of[i] < 0 && i >= 0x20)
			f->glyph_of[i] = f->glyph_of['?'];
	return 0;
}

static int load_from(struct osd_font *f, const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2, len = 0;
	char *path = malloc(n);
	uint8_t *buf;
	int rc = -1;

	if (!path)
		return -1;
	snprintf(path, n, "%s/%s", dir, name);
	buf = read_file(path, &len);
	if (buf)
		rc = parse(f, buf, len);
	free(buf);
	free(path);
	return rc;
}

/* $FFDVB_FONT_DIR, when set and not empty, replaces the compiled-in directory (tests point it
 * at a directory without fonts to see the boxes) */
void osd_fonts_load(struct osd_font font[OSD_FONTS])
{
	const char *dir = getenv("FFDVB_FONT_DIR");

	if (!dir || !*dir)
		dir = FFDVB_FONT_DIR_DEFAULT;
	for (int n = 0; n < OSD_FONTS; n++) {
		memset(&font[n], 0, sizeof(font[n]));
		for (int i = 0; i < 3 && font_files[n][i] && !font[n].glyphs; i++)
			if (load_from(&font[n], dir, font_files[n][i]))
				memset(&font[n], 0, sizeof(font[n]));
	}
}

void osd_fonts_free(struct osd_font font[OSD_FONTS])
{
	for (int n = 0; n < OSD_FONTS; n++) {
		free(font[n].glyphs);
		font[n].glyphs = NULL;
	}
}
