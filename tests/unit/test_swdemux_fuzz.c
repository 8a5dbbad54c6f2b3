/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the software demux (src/swdemux/swdemux*.c) as the file and remote tuners
 * drive it: the input's first 64 bytes set up four filters (section or PES, PID from a small
 * set so that the stream hits them, filter/mask bytes, CRC check, one-shot, buffer size) and a
 * dvr0 reader; the rest is a TS byte stream fed in pieces whose sizes the input also picks.
 * Everything read back is checked: a section read is one whole section (3 + section_length
 * bytes, at most 4096), a TS tap delivers whole 188-byte packets starting with 0x47, no read
 * returns more than asked. A violation aborts; ASan/UBSan catch memory errors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "swdemux.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SETUP 64
#define FILTERS 4

static void fail(const char *what)
{
	fprintf(stderr, "test_swdemux_fuzz: %s\n", what);
	abort();
}

static const uint16_t pids[] = { 0x0000, 0x0011, 0x0100, 0x0101, 0x1fff, 0x2000 };

static void drain(struct ffdvb_swdemux_out *o, int section, int ts)
{
	uint8_t buf[8192];

	for (int i = 0; i < 64; i++) {
		ssize_t n = ffdvb_swdemux_read(o, buf, sizeof(buf));

		if (n == -EAGAIN || n == 0)
			return;
		if (n == -EOVERFLOW || n == -ETIMEDOUT)
			continue;
		if (n < 0 || (size_t)n > sizeof(buf))
			fail("read result");
		if (section && (n < 3 || (size_t)n != 3u + (size_t)(((buf[1] & 0x0f) << 8) | buf[2]) ||
				(size_t)n > FFDVB_SWDEMUX_SECTION_MAX))
			fail("a section read is not one whole section");
		if (ts && (n % 188 != 0 || buf[0] != 0x47))
			fail("a TS tap read is not whole packets");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ffdvb_swdemux *d;
	struct ffdvb_swdemux_out *out[FILTERS], *dvr;
	int section[FILTERS], ts[FILTERS];

	if (size < SETUP)
		return 0;
	d = ffdvb_swdemux_new();
	if (!d)
		fail("new");
	for (int i = 0; i < FILTERS; i++) {
		const uint8_t *c = data + i * 14;

		out[i] = ffdvb_swdemux_filter_new(d, NULL, NULL);
		section[i] = c[0] & 1;
		ts[i] = 0;
		if (c[1] & 1)
			ffdvb_swdemux_set_buffer_size(out[i], 512 + (size_t)c[2] * 64);
		if (section[i]) {
			struct ffdvb_dmx_sct_filter_params p = {
				.pid = pids[c[3] % 5],
				.flags = (c[0] >> 1) & (FFDVB_DMX_CHECK_CRC | FFDVB_DMX_ONESHOT),
			};

			memcpy(p.filter.filter, c + 4, 3);
			memcpy(p.filter.mask, c + 7, 3);
			memcpy(p.filter.mode, c + 10, 2);
			ffdvb_swdemux_set_section(out[i], &p);
		} else {
			struct ffdvb_dmx_pes_filter_params p = {
				.pid = pids[c[3] % 6],
				.input = FFDVB_DMX_IN_FRONTEND,
				.output = c[4] % 3 == 0 ? FFDVB_DMX_OUT_TAP : FFDVB_DMX_OUT_TS_TAP,
			};

			ts[i] = p.output == FFDVB_DMX_OUT_TS_TAP;
			ffdvb_swdemux_set_pes(out[i], &p);
		}
		ffdvb_swdemux_start(out[i]);
	}
	dvr = ffdvb_swdemux_dvr_new(d, NULL, NULL);
	/* the stream, in pieces of 1..256 bytes chosen by the setup bytes */
	size_t off = SETUP, k = 0;

	while (off < size) {
		size_t n = 1 + data[56 + k++ % 8];

		if (n > size - off)
			n = size - off;
		ffdvb_swdemux_feed(d, data + off, n);
		off += n;
		for (int i = 0; i < FILTERS; i++)
			drain(out[i], section[i], ts[i]);
		drain(dvr, 0, 1);
	}
	ffdvb_swdemux_free(d);
	return 0;
}
