/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs the es fuzz target (test_es_fuzz.c) over structured pseudo-random inputs with the
 * normal compiler (and the sanitizer build), for a bounded time: PES packets whose payloads
 * start like the real thing (MPEG-2 sequence/picture headers, H.264 SPS, MPEG audio frames,
 * AC-3, DVD LPCM, IEC 61937 bursts in LPCM) followed by random bytes, then mutated. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern size_t test_es_fuzz_frames;

static uint32_t rng = 777;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

static const uint8_t mpeg2_start[] = {
	0, 0, 1, 0xB3, 0x2D, 0x02, 0x40, 0x23, 0xFF, 0xFF, 0xE0, 0x18, /* 720x576 4:3 25 fps */
	0, 0, 1, 0xB5, 0x14, 0x8A, 0x00, 0x01, 0x00, 0x00,             /* sequence extension */
	0, 0, 1, 0xB8, 0x00, 0x08, 0x00, 0x00,                         /* GOP */
	0, 0, 1, 0x00, 0x00, 0x0F, 0xFF, 0xF8,                         /* I picture */
	0, 0, 1, 0xB5, 0x8F, 0xFF, 0xF3, 0x41, 0x80,                   /* picture coding ext */
	0, 0, 1, 0x01, 0x13,                                           /* slice 1 */
};
static const uint8_t h264_start[] = { 0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x67, 0x64, 0x00,
				      0x1F, 0xAC, 0xD9, 0x40, 0x5A, 0x04, 0x9B, 0x01, 0x10 };
static const uint8_t mp2_start[] = { 0xFF, 0xFD, 0xA4, 0x04 };
static const uint8_t ac3_start[] = { 0x0B, 0x77, 0x5E, 0x3C, 0x14, 0x40 };
static const uint8_t lpcm_start[] = { 0xA0, 0x07, 0x00, 0x04, 0x0C, 0x01, 0x80 };
static const uint8_t iec_start[] = { 0xA0, 0x07, 0x00, 0x04, 0x0C, 0x01, 0x80, 0xF8, 0x72,
				     0x4E, 0x1F, 0x00, 0x01, 0x18, 0x00, 0x0B, 0x77 };

struct tmpl {
	const uint8_t *p;
	size_t n;
	int audio;
};

static size_t chunk(uint8_t *b, const struct tmpl *t)
{
	size_t n = t->n + rnd(rnd(4) ? 600 : 4000), flags = 1 | (rnd(4) << 1) | (rnd(2) << 3);

	if (rnd(8) == 0)
		flags = rnd(256); /* raw, drain, reset... */
	b[0] = (uint8_t)n;
	b[1] = (uint8_t)(n >> 8);
	b[2] = (uint8_t)flags;
	memcpy(b + 3, t->p, t->n);
	for (size_t i = t->n; i < n; i++)
		b[3 + i] = (uint8_t)(rnd(5) == 0 ? 0 : rnd(256));
	if (flags & 2 && t->audio) /* same layout as wrap(): the stream id table */
		b[2] = (uint8_t)(flags & ~6u);
	return 3 + n;
}

int main(int argc, char **argv)
{
	static const struct tmpl tmpls[] = {
		{ mpeg2_start, sizeof(mpeg2_start), 0 }, { h264_start, sizeof(h264_start), 0 },
		{ mp2_start, sizeof(mp2_start), 1 },     { ac3_start, sizeof(ac3_start), 1 },
		{ lpcm_start, sizeof(lpcm_start), 1 },   { iec_start, sizeof(iec_start), 1 },
	};
	static uint8_t in[1 << 16];
	double budget = argc > 1 ? atof(argv[1]) : 5.0;
	struct timespec t0, t;
	unsigned long runs = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int audio = (int)rnd(2);
		size_t n = 1;

		in[0] = (uint8_t)(audio | (rnd(4) << 1));
		for (int k = (int)rnd(12) + 1; k > 0 && n + 5000 < sizeof(in); k--) {
			const struct tmpl *tp;

			do
				tp = &tmpls[rnd(sizeof(tmpls) / sizeof(tmpls[0]))];
			while (tp->audio != audio && rnd(10));
			n += chunk(in + n, tp);
		}
		for (int m = (int)rnd(4); m > 0; m--) /* flip some bytes anywhere */
			in[1 + rnd((uint32_t)n - 1)] ^= (uint8_t)(1u << rnd(8));
		LLVMFuzzerTestOneInput(in, n);
		runs++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < budget);
	printf("test_es_random: %lu inputs, %zu frames decoded\n", runs, test_es_fuzz_frames);
	if (test_es_fuzz_frames == 0) {
		printf("FAIL: no input reached a decoder\n");
		return 1;
	}
	return 0;
}
