/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A valid MPEG-1 video elementary stream of one flat grey intra picture of any size (multiple of
 * 16), made bit by bit: sequence header, picture header, one slice per macroblock row whose
 * macroblocks code each block as DC difference 0 and end-of-block, and a sequence end code.
 * Every decoder (av7110's firmware, libavcodec) shows it at once, which lets the conformance
 * suite make the decoder report picture sizes (VIDEO_EVENT_SIZE_CHANGED). */
#include <string.h>

#include "conform.h"

struct bits {
	uint8_t *buf;
	size_t cap, pos; /* pos in bits */
};

static void put(struct bits *b, uint32_t v, int n)
{
	while (n-- > 0) {
		size_t byte = b->pos / 8;

		if (byte >= b->cap)
			return;
		if (!(b->pos % 8))
			b->buf[byte] = 0;
		if (v >> n & 1)
			b->buf[byte] |= (uint8_t)(0x80 >> b->pos % 8);
		b->pos++;
	}
}

static void align(struct bits *b)
{
	while (b->pos % 8)
		put(b, 0, 1);
}

static void start_code(struct bits *b, uint8_t code)
{
	align(b);
	put(b, 0x000001, 24);
	put(b, code, 8);
}

size_t make_iframe(uint8_t *buf, size_t cap, int width, int height, int aspect_code)
{
	struct bits b = { buf, cap, 0 };
	int mbw = width / 16, mbh = height / 16;

	start_code(&b, 0xB3);               /* sequence header */
	put(&b, (uint32_t)width, 12);
	put(&b, (uint32_t)height, 12);
	put(&b, (uint32_t)aspect_code, 4);  /* MPEG-1 pel aspect: 8 = 625-line 4:3, 3 = 16:9 625 */
	put(&b, 3, 4);                      /* 25 Hz */
	put(&b, 0x3FFFF, 18);               /* bit rate: variable */
	put(&b, 1, 1);                      /* marker */
	put(&b, 112, 10);                   /* VBV buffer size (units of 16 kbit) */
	put(&b, 0, 1);                      /* not constrained */
	put(&b, 0, 2);                      /* default quantiser matrices */
	start_code(&b, 0x00);               /* picture */
	put(&b, 0, 10);                     /* temporal reference */
	put(&b, 1, 3);                      /* I picture */
	put(&b, 0xFFFF, 16);                /* VBV delay: variable */
	put(&b, 0, 1);                      /* no extra information */
	for (int row = 0; row < mbh; row++) {
		start_code(&b, (uint8_t)(row + 1)); /* slice */
		put(&b, 8, 5);                      /* quantiser scale */
		put(&b, 0, 1);                      /* no extra information */
		for (int mb = 0; mb < mbw; mb++) {
			put(&b, 1, 1);              /* address increment 1 */
			put(&b, 1, 1);              /* intra, no quantiser change */
			for (int blk = 0; blk < 4; blk++) {
				put(&b, 4, 3);      /* luma DC size 0 ('100') */
				put(&b, 2, 2);      /* end of block ('10') */
			}
			for (int blk = 0; blk < 2; blk++) {
				put(&b, 0, 2);      /* chroma DC size 0 ('00') */
				put(&b, 2, 2);      /* end of block */
			}
		}
	}
	start_code(&b, 0xB7);               /* sequence end */
	return b.pos / 8 <= cap ? b.pos / 8 : 0;
}
