/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs the OSD fuzz target (test_osd_fuzz.c) over pseudo-random command sequences with the
 * normal compiler, so that every build (and the ASan/UBSan one) checks its invariants: mostly
 * well-formed commands (valid windows, sizes within 720x576, the data the transport fetches),
 * then random bytes. */
#include <stdint.h>
#include <stdio.h>

#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern size_t test_osd_fuzz_accepted;

static uint32_t rng = 4711;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

/* a field byte of test_osd_fuzz.c: < 32 itself, < 200 a coordinate, 200.. special values */
static uint8_t small(void)
{
	return (uint8_t)(rnd(8) == 0 ? 200 + rnd(24) : rnd(4) == 0 ? rnd(32) : rnd(200));
}

int main(void)
{
	static uint8_t buf[1 << 16];
	const int rounds = 3000;

	for (int round = 0; round < rounds; round++) {
		size_t n = 0;

		for (int k = (int)rnd(40); k >= 0 && n + 4096 < sizeof buf; k--) {
			uint8_t cmd = (uint8_t)(1 + rnd(22));

			if (rnd(20) == 0) { /* garbage */
				for (int g = (int)rnd(30); g > 0; g--)
					buf[n++] = (uint8_t)rnd(256);
				continue;
			}
			buf[n++] = cmd;
			/* SetWindow: 1..7 mostly; Open/OpenRaw/Text: depth, type, font in color */
			buf[n++] = cmd == 20 && rnd(8) ? (uint8_t)(1 + rnd(7)) : small();
			for (int f = 0; f < 4; f++)
				buf[n++] = small();
			buf[n++] = (uint8_t)rnd(256); /* how the data comes */
			for (int p = (int)rnd(300); p > 0; p--)
				buf[n++] = (uint8_t)rnd(256);
		}
		LLVMFuzzerTestOneInput(buf, n); /* aborts on a violation */
		checks++;
	}
	printf("%zu commands accepted\n", test_osd_fuzz_accepted);
	CHECK(test_osd_fuzz_accepted > (size_t)rounds * 5);
	return finish("test_osd_random");
}
