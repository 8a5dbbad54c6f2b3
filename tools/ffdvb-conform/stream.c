/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test data the av7110 repacker accepts (bounded PES, TS carrying bounded PES) and raw
 * elementary-stream bytes for still pictures; filling a ring until the device refuses. */
#include <errno.h>
#include <string.h>

#include "conform.h"

#define PES_SIZE 2048
#define TS_SIZE 188
#define TS_PER_PES 10

static void pes_header(uint8_t *p, uint8_t stream_id, unsigned int total)
{
	unsigned int len = total - 6;

	p[0] = 0;
	p[1] = 0;
	p[2] = 1;
	p[3] = stream_id;
	p[4] = (uint8_t)(len >> 8);
	p[5] = (uint8_t)len;
	p[6] = 0x80; /* MPEG-2 syntax, no scrambling */
	p[7] = 0x00; /* no PTS/DTS */
	p[8] = 0x00; /* header data length */
}

size_t make_pes(uint8_t *buf, size_t len, uint8_t stream_id)
{
	size_t used = len - len % PES_SIZE;

	for (size_t off = 0; off < used; off += PES_SIZE) {
		pes_header(buf + off, stream_id, PES_SIZE);
		memset(buf + off + 9, 0x55, PES_SIZE - 9); /* no start code inside */
	}
	return used;
}

void make_ts(uint8_t *buf, size_t n, uint8_t stream_id)
{
	unsigned int pid = stream_id >= 0xE0 ? 0x100 : 0x101;
	unsigned int pes_total = 9 + (184 - 9) + (TS_PER_PES - 1) * 184;

	for (size_t i = 0; i < n; i++) {
		uint8_t *p = buf + i * TS_SIZE;
		int start = i % TS_PER_PES == 0;

		p[0] = 0x47;
		p[1] = (uint8_t)((start ? 0x40 : 0) | (pid >> 8));
		p[2] = (uint8_t)pid;
		p[3] = (uint8_t)(0x10 | (i & 15)); /* payload only, continuity counter */
		memset(p + 4, 0x55, 184);
		if (start)
			pes_header(p + 4, stream_id, pes_total);
	}
}

void make_es(uint8_t *buf, size_t len, uint32_t seed)
{
	static const uint8_t seq[] = { 0x00, 0x00, 0x01, 0xB3, 0x2D, 0x02, 0x40, 0x23,
				       0xFF, 0xFF, 0xE0, 0x18 }; /* 720x576, 4:3, 25 Hz */
	uint32_t x = seed ? seed : 1;
	size_t i = 0;

	for (; i < len && i < sizeof seq; i++)
		buf[i] = seq[i];
	for (; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (uint8_t)(x | 0x02); /* never 0 or 1: no start codes */
	}
}

long fill_ring(int fd, const uint8_t *buf, size_t len, size_t unit, long *first_partial,
	       int *bad_unit)
{
	const long limit = 8L << 20; /* a ring that never fills is drained by someone */
	long total = 0;

	*first_partial = -1;
	*bad_unit = 0;
	while (total < limit) {
		ssize_t n = dev_write(fd, buf, len);

		if (n == -EAGAIN)
			return total;
		if (n < 0)
			return n;
		if ((size_t)n < len) {
			if (*first_partial < 0)
				*first_partial = n;
			if (unit && n % (ssize_t)unit)
				*bad_unit = 1;
		}
		if (n == 0)
			return total; /* a 0 count would loop forever */
		total += n;
	}
	return total;
}
