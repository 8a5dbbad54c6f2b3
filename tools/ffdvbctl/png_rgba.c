/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A minimal PNG writer for ffdvbctl osd-dump: 8-bit RGBA, no filtering, deflated with zlib. */
#include "png_rgba.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static int chunk(FILE *f, const char *type, const uint8_t *data, uint32_t len)
{
	uint8_t head[8], tail[4];
	uLong crc = crc32(0, (const Bytef *)type, 4);

	crc = crc32(crc, data, len);
	be32(head, len);
	memcpy(head + 4, type, 4);
	be32(tail, (uint32_t)crc);
	return fwrite(head, 1, 8, f) == 8 && (!len || fwrite(data, 1, len, f) == len) &&
			       fwrite(tail, 1, 4, f) == 4
		       ? 0
		       : -EIO;
}

int png_write_argb(FILE *f, const void *argb, int w, int h)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	size_t rowlen = 1 + 4 * (size_t)w, rawlen = rowlen * (size_t)h;
	uint8_t ihdr[13], *raw = malloc(rawlen);
	uLongf zlen = compressBound((uLong)rawlen);
	uint8_t *z = malloc(zlen);
	int r = -ENOMEM;

	if (!raw || !z)
		goto out;
	for (int y = 0; y < h; y++) {
		uint8_t *row = raw + (size_t)y * rowlen;

		row[0] = 0; /* filter: none */
		for (int x = 0; x < w; x++) {
			uint32_t p;

			memcpy(&p, (const uint8_t *)argb + 4 * ((size_t)y * (size_t)w + (size_t)x), 4);

			row[1 + 4 * x] = (uint8_t)(p >> 16);
			row[2 + 4 * x] = (uint8_t)(p >> 8);
			row[3 + 4 * x] = (uint8_t)p;
			row[4 + 4 * x] = (uint8_t)(p >> 24);
		}
	}
	r = -EIO;
	if (compress2(z, &zlen, raw, (uLong)rawlen, 6) != Z_OK)
		goto out;
	be32(ihdr, (uint32_t)w);
	be32(ihdr + 4, (uint32_t)h);
	ihdr[8] = 8, ihdr[9] = 6, ihdr[10] = 0, ihdr[11] = 0, ihdr[12] = 0; /* 8-bit RGBA */
	if (fwrite(sig, 1, 8, f) == 8 && !chunk(f, "IHDR", ihdr, 13) &&
	    !chunk(f, "IDAT", z, (uint32_t)zlen) && !chunk(f, "IEND", NULL, 0))
		r = 0;
out:
	free(raw);
	free(z);
	return r;
}
