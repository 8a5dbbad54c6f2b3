/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The byte ring: capacity size - 1, wrap-around of put and skip, flush. */
#include "test_card_util.h"

int main(void)
{
	struct card_ring r;
	uint8_t in[16], out[16];

	for (int i = 0; i < 16; i++)
		in[i] = (uint8_t)(i + 1);
	CHECK_EQ(card_ring_init(&r, 8), 0);
	CHECK_EQ(card_ring_space(&r), 7);
	CHECK_EQ(card_ring_put(&r, in, 16), 7); /* never more than the space */
	CHECK_EQ(card_ring_fill(&r), 7);
	CHECK_EQ(card_ring_space(&r), 0);
	CHECK_EQ(card_ring_skip(&r, 5), 5);
	CHECK_EQ(card_ring_put(&r, in + 7, 5), 5); /* wraps */
	CHECK_EQ(card_ring_fill(&r), 7);
	/* read back the bytes in order: 6, 7 then 8..12 */
	for (int i = 0; i < 7; i++)
		out[i] = r.buf[(r.rd + (size_t)i) % r.size];
	CHECK(out[0] == 6 && out[1] == 7 && out[2] == 8 && out[6] == 12);
	CHECK_EQ(card_ring_skip(&r, 100), 7);
	CHECK_EQ(card_ring_fill(&r), 0);
	card_ring_put(&r, in, 3);
	card_ring_flush(&r);
	CHECK_EQ(card_ring_fill(&r), 0);
	CHECK_EQ(card_ring_space(&r), 7);
	card_ring_release(&r);
	return finish("test_card_ring");
}
