/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs the fuzz target (test_pes_fuzz.c) over structured pseudo-random inputs with the normal
 * compiler, so that every build checks its invariants: streams of valid MPEG-1/MPEG-2 PES,
 * pack/system headers, padding and TS packets, then mutated (bytes flipped, cut, spliced). */
#include "test_pes_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern size_t test_pes_fuzz_packets;

static uint32_t rng = 12345;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

static size_t gen_packet(uint8_t *b, uint8_t *pl)
{
	static const uint8_t ids[] = { 0xE0, 0xE1, 0xC0, 0xC5, 0xBD, 0xBE, 0xBF, 0xBC, 0xF0, 0xFF };
	static const uint8_t pack[] = { 0, 0, 1, 0xBA, 0x44, 0, 4, 0, 4, 1, 1, 0x89, 0xC3, 0xF9, 0xFF };
	static const uint8_t sys[] = { 0, 0, 1, 0xBB, 0, 9, 0x80, 0x1B, 0x91, 0x04, 0xE1, 0xFF,
				       0xE0, 0xE0, 0xE8 };
	uint8_t id = ids[rnd(sizeof(ids))];
	size_t n = rnd(8) == 0 ? rnd(9000) : rnd(300);
	long long pts = rnd(3) ? (long long)rnd(1u << 30) : -1;
	long long dts = pts >= 0 && rnd(3) == 0 ? pts / 2 : -1;

	fill_payload(pl, n, rnd(1000));
	if (rnd(5) == 0)
		memset(pl, 0, n < 40 ? n : 40); /* zeros make near-start codes */
	switch (rnd(6)) {
	case 0:
		memcpy(b, pack, sizeof(pack));
		return sizeof(pack);
	case 1:
		memcpy(b, sys, sizeof(sys));
		return sizeof(sys);
	case 2:
		return mk_mpeg1(b, id, (int)rnd(4), (int)rnd(2), pts, dts, pl, n > 2000 ? 2000 : n);
	default:
		return mk_mpeg2(b, id, pts, dts, pl, n, rnd(4) != 0 || id < 0xC0);
	}
}

static void mutate(uint8_t *b, size_t *n, size_t cap)
{
	int k = (int)rnd(6);

	for (int i = 0; i < k && *n; i++) {
		switch (rnd(4)) {
		case 0:
			b[rnd((uint32_t)*n)] ^= (uint8_t)(1u << rnd(8));
			break;
		case 1:
			b[rnd((uint32_t)*n)] = (uint8_t)(rnd(3) == 0 ? 0x00 : rnd(3) == 0 ? 0x01 : 0xFF);
			break;
		case 2:
			*n -= rnd((uint32_t)(*n < 64 ? *n : 64)); /* cut */
			break;
		default: { /* duplicate a slice */
			size_t from = rnd((uint32_t)*n), len = rnd(200);

			if (from + len <= *n && *n + len <= cap) {
				memmove(b + from + len, b + from, *n - from);
				*n += len;
			}
		}
		}
	}
}

int main(void)
{
	static uint8_t buf[1 << 17], pl[16384];
	const int rounds = 20000;

	for (int round = 0; round < rounds; round++) {
		size_t n = 2;

		buf[0] = (uint8_t)rnd(256);
		buf[1] = (uint8_t)rnd(256);
		for (int k = (int)rnd(12); k >= 0 && n + 10000 < sizeof(buf); k--) {
			if (rnd(10) == 0) /* garbage */
				for (size_t g = rnd(50); g > 0; g--)
					buf[n++] = (uint8_t)rnd(256);
			n += gen_packet(buf + n, pl);
		}
		if (round % 4 == 3) /* also TS-shaped: sync bytes every 188 bytes */
			for (size_t i = 2; i < n; i += 188)
				buf[i] = 0x47;
		mutate(buf, &n, sizeof(buf));
		LLVMFuzzerTestOneInput(buf, n); /* aborts on a violation */
		checks++;
	}
	/* the generated streams are mostly valid: on average every round must produce packets */
	printf("%zu packets out\n", test_pes_fuzz_packets);
	CHECK(test_pes_fuzz_packets > (size_t)rounds);
	return finish("test_pes_random");
}
