/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the repacker (also driven by test_pes_random without libFuzzer). For
 * any input: every output packet keeps the sink contract and parses as a PES header; no call
 * needs more output room than ffdvb_repacker_out_bound(); feeding whole or split at arbitrary
 * points gives the same packets and the same counters; the TS path holds the same contract.
 * A violation aborts (AddressSanitizer catches out-of-bounds reads and writes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffdvb/checksum.h"
#include "ffdvb/pes.h"
#include "test_pes_join.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* packets produced by all runs so far (test_pes_random checks the inputs reach the sink) */
size_t test_pes_fuzz_packets;

struct run {
	uint32_t hash;
	size_t packets, bytes, call_bytes;
};

static void fail(const char *what)
{
	fprintf(stderr, "test_pes_fuzz: %s\n", what);
	abort();
}

static void sink_whole(void *ctx, uint8_t id, const uint8_t *pkt, size_t len)
{
	struct run *r = ctx;
	struct ffdvb_pes_header h;
	int rc;

	if (len < 6 || len > FFDVB_PES_OUT_MAX)
		fail("output packet size");
	if (pkt[0] || pkt[1] || pkt[2] != 1 || pkt[3] != id || ffdvb_pes_kind(id) != FFDVB_PES_FORWARD)
		fail("output start code");
	if ((size_t)(pkt[4] << 8 | pkt[5]) != len - 6)
		fail("output PES_packet_length");
	rc = ffdvb_pes_header_parse(pkt, len, &h);
	if (rc <= 0 || (size_t)rc > len)
		fail("output header does not parse");
	r->hash = ffdvb_fnv1a(r->hash, &id, 1);
	r->hash = ffdvb_fnv1a(r->hash, pkt, len);
	r->packets++;
	test_pes_fuzz_packets++;
	r->bytes += len;
	r->call_bytes += len;
}

TEST_PES_JOINING_SINK(sink, sink_whole)

static void feed(struct ffdvb_repacker *rp, struct run *run, const uint8_t *p, size_t n)
{
	run->call_bytes = 0;
	if (ffdvb_repacker_feed(rp, p, n) != n)
		fail("feed did not take everything");
	if (run->call_bytes > ffdvb_repacker_out_bound(n))
		fail("output of one feed above ffdvb_repacker_out_bound");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ffdvb_repacker a, b;
	struct run ra = { FFDVB_FNV1A_INIT, 0, 0, 0 }, rb = ra, rt = ra;
	uint32_t seed;
	size_t off;

	if (size < 2)
		return 0;
	seed = data[0] | (uint32_t)data[1] << 8;
	data += 2;
	size -= 2;

	ffdvb_repacker_init(&a, sink, &ra);
	feed(&a, &ra, data, size);

	ffdvb_repacker_init(&b, sink, &rb);
	for (off = 0; off < size;) { /* chunk sizes 1..256, sometimes 4096 (the card's chunk) */
		size_t c;

		seed = seed * 1103515245u + 12345u;
		c = (seed >> 16) % 17 == 0 ? 4096 : 1 + (seed >> 16) % 256;
		if (c > size - off)
			c = size - off;
		feed(&b, &rb, data + off, c);
		off += c;
	}
	if (ra.hash != rb.hash || ra.packets != rb.packets || ra.bytes != rb.bytes)
		fail("output depends on the split points");
	if (memcmp(&a.stats, &b.stats, sizeof(a.stats)) != 0)
		fail("counters depend on the split points");

	ffdvb_repacker_init(&a, sink, &rt);
	for (off = 0; off + FFDVB_TS_PACKET_SIZE <= size; off += FFDVB_TS_PACKET_SIZE) {
		size_t fed;

		rt.call_bytes = 0;
		fed = ffdvb_repacker_ts_packet(&a, data + off);
		if (fed > FFDVB_TS_PACKET_SIZE - 4)
			fail("TS payload size");
		if (rt.call_bytes > ffdvb_repacker_out_bound(FFDVB_TS_PACKET_SIZE - 4))
			fail("output of one TS packet above ffdvb_repacker_out_bound");
	}
	ffdvb_repacker_reset(&a);
	return 0;
}
