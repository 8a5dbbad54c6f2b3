/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The PES/PS path of the repacker (docs/av7110.md §6.1): what is forwarded, skipped and
 * discarded, MPlayer's split writes, fragmenting into <= 2048-byte packets, and counters. */
#include "test_pes_util.h"

static struct ffdvb_repacker R;
static uint8_t in[65536];
static uint8_t pl[16384];

static void start(void)
{
	cap_clear();
	ffdvb_repacker_init(&R, cap_sink, &CAP);
}

/* Everything fed was accounted for (input ending on a packet boundary). */
static void check_accounting(size_t fed)
{
	const struct ffdvb_repacker_stats *s = &R.stats;

	CHECK_EQ(s->garbage_bytes + s->skipped_bytes + s->forwarded_bytes, fed);
	CHECK_EQ(CAP.bad, 0);
}

/* Output equal to the input (each input packet <= 2048 bytes, nothing to drop). */
static void check_identity(const uint8_t *b, size_t n)
{
	CHECK_EQ(CAP.used, n);
	CHECK(CAP.used == n && memcmp(CAP.data, b, n) == 0);
}

/* A stream of small MPEG-2 and MPEG-1 packets, fed whole, then split at every position. */
static void split_everywhere(void)
{
	static struct cap whole;
	size_t n = 0;

	fill_payload(pl, 600, 3);
	n += mk_mpeg2(in + n, 0xE0, 90000, 86400, pl, 500, 1);
	n += mk_mpeg2(in + n, 0xC0, 0x1FFFFFFFF, -1, pl + 1, 300, 1);
	n += mk_mpeg1(in + n, 0xE1, 0, 0, 3600, -1, pl + 2, 200);
	n += mk_mpeg1(in + n, 0xC0, 2, 1, -1, -1, pl + 3, 100);
	start();
	cap_feed(&R, in, n);
	check_identity(in, n);
	check_accounting(n);
	CHECK_EQ(CAP.n, 4);
	CHECK_EQ(CAP.pk[1].id, 0xC0);
	whole = CAP;
	for (size_t cut = 1; cut < n; cut++) {
		start();
		cap_feed(&R, in, cut);
		cap_feed(&R, in + cut, n - cut);
		if (CAP.n != whole.n || CAP.used != whole.used ||
		    memcmp(CAP.data, whole.data, whole.used) != 0)
			printf("split at %zu differs\n", cut);
		CHECK(CAP.n == whole.n && CAP.used == whole.used &&
		      memcmp(CAP.data, whole.data, whole.used) == 0);
	}
	start(); /* byte by byte */
	for (size_t i = 0; i < n; i++)
		cap_feed(&R, in + i, 1);
	CHECK(CAP.used == whole.used && memcmp(CAP.data, whole.data, whole.used) == 0);
	check_accounting(n);
}

/* MPlayer -vo mpegpes: MPEG-1 video PES, 11-byte header with PTS on the first packet of a
 * frame, 7-byte header ending in 0x0F otherwise, each written as header, then payload;
 * -ao mpegpes: LPCM in private stream 1 (21-byte header with PTS, 16 without). */
static void mplayer_writes(void)
{
	static const struct {
		uint8_t id;
		long long pts;
		size_t payload;
		int lpcm;
	} t[] = {
		{ 0xE0, -1, 2041, 0 },   /* first frame: PTS 0, so no PTS */
		{ 0xE0, -1, 900, 0 },
		{ 0xE0, 3600, 2037, 0 }, /* 11-byte header */
		{ 0xBD, 3600, 2028, 1 }, /* LPCM with PTS: 14 + 7-byte LPCM header */
		{ 0xE0, -1, 12, 0 },
		{ 0xBD, -1, 2032, 1 },   /* LPCM without PTS: 9 + 7 */
	};
	size_t n = 0;

	start();
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t at = n, hlen;

		fill_payload(pl, t[i].payload, (unsigned int)i);
		if (t[i].lpcm) {
			uint8_t lp[2048] = { 0xA0, 0x07, 0x00, 0x04, 0x0C, 0x01, 0x80 };

			memcpy(lp + 7, pl, t[i].payload - 7);
			n += mk_mpeg2(in + n, 0xBD, t[i].pts, -1, lp, t[i].payload, 1);
			hlen = t[i].pts < 0 ? 16 : 21; /* PES header + the LPCM header */
		} else {
			n += mk_mpeg1(in + n, 0xE0, 0, 0, t[i].pts, -1, pl, t[i].payload);
			hlen = t[i].pts < 0 ? 7 : 11;
		}
		CHECK(n - at <= FFDVB_PES_OUT_MAX);
		cap_feed(&R, in + at, hlen); /* two write() calls per packet */
		cap_feed(&R, in + at + hlen, n - at - hlen);
		CHECK_EQ(CAP.n, i + 1);
		CHECK_EQ(CAP.pk[i].id, t[i].id);
	}
	check_identity(in, n);
	check_accounting(n);
	CHECK_EQ(R.stats.packets_in, 6);
}

/* 13818-1 §2.5.3.3/§2.5.3.5 and 11172-1 §2.4.3.2: pack and system headers vanish, padding and
 * private stream 2 are skipped by length even when their content looks like a start code. */
static void program_stream(void)
{
	static const uint8_t pack2[] = { 0, 0, 1, 0xBA, 0x44, 0x00, 0x04, 0x00, 0x04, 0x01,
					 0x01, 0x89, 0xC3, 0xFA, 0xFF, 0xFF }; /* 2 stuffing */
	static const uint8_t pack1[] = { 0, 0, 1, 0xBA, 0x21, 0x00, 0x01, 0x00, 0x01, 0x80,
					 0x1B, 0x91 };
	static const uint8_t sys[] = { 0, 0, 1, 0xBB, 0x00, 0x0C, 0x80, 0x1B, 0x91, 0x04, 0xE1,
				       0xFF, 0xE0, 0xE0, 0xE8, 0xC0, 0xC0, 0x20 };
	/* padding whose content is a complete video PES: must not be found */
	static const uint8_t pad[] = { 0, 0, 1, 0xBE, 0x00, 0x0C, 0, 0, 1, 0xE0, 0x00, 0x03, 0x0F,
				       0x55, 0x66, 0xFF, 0xFF, 0xFF };
	static const uint8_t ps2[] = { 0, 0, 1, 0xBF, 0x00, 0x04, 0, 0, 1, 0xC0 };
	static const uint8_t ecm[] = { 0, 0, 1, 0xF0, 0x00, 0x00 };
	uint8_t want[4096];
	size_t n = 0, w = 0, v;

	fill_payload(pl, 800, 9);
	memcpy(in + n, pack2, sizeof(pack2)), n += sizeof(pack2);
	memcpy(in + n, sys, sizeof(sys)), n += sizeof(sys);
	v = mk_mpeg2(in + n, 0xE0, 90000, -1, pl, 700, 1);
	memcpy(want + w, in + n, v), w += v, n += v;
	memcpy(in + n, pad, sizeof(pad)), n += sizeof(pad);
	memcpy(in + n, pack1, sizeof(pack1)), n += sizeof(pack1);
	v = mk_mpeg1(in + n, 0xC0, 1, 1, 3000, -1, pl, 400);
	memcpy(want + w, in + n, v), w += v, n += v;
	memcpy(in + n, ps2, sizeof(ps2)), n += sizeof(ps2);
	memcpy(in + n, ecm, sizeof(ecm)), n += sizeof(ecm);
	v = mk_mpeg2(in + n, 0xBD, -1, -1, pl, 100, 1);
	memcpy(want + w, in + n, v), w += v, n += v;
	in[n++] = 0, in[n++] = 0, in[n++] = 1, in[n++] = 0xB9; /* program end code */
	start();
	cap_feed(&R, in, n);
	CHECK_EQ(CAP.n, 3);
	check_identity(want, w);
	CHECK_EQ(R.stats.skipped_packets, 6);
	CHECK_EQ(R.stats.skipped_bytes, sizeof(pack2) + sizeof(sys) + sizeof(pad) +
					     sizeof(pack1) + sizeof(ps2) + sizeof(ecm));
	CHECK_EQ(R.stats.other_start_codes, 1); /* the end code */
	CHECK_EQ(R.stats.garbage_bytes, 4);
	CHECK_EQ(R.stats.bad_headers, 0);
	check_accounting(n);
}

/* A raw MPEG-2 video elementary stream: all start codes are "not a packet", nothing comes out
 * (av7110 discards raw ES outside VIDEO_STILLPICTURE). */
static void raw_es(void)
{
	static const uint8_t es[] = { 0, 0, 1, 0xB3, 0x2D, 0x02, 0x40, 0x33, 0xFF, 0xFF, 0xE0, 0x18,
				      0, 0, 1, 0xB5, 0x14, 0x8A, 0x00, 0x01, 0x00, 0x00,
				      0, 0, 1, 0xB8, 0x00, 0x08, 0x00, 0x00,
				      0, 0, 1, 0x00, 0x00, 0x0F, 0xFF, 0xF8,
				      0, 0, 1, 0x01, 0x22, 0x33, 0x44, 0, 0, 1, 0xAF, 0x12 };

	start();
	cap_feed(&R, es, sizeof(es));
	CHECK_EQ(CAP.n, 0);
	CHECK_EQ(R.stats.other_start_codes, 6);
	CHECK_EQ(R.stats.garbage_bytes, sizeof(es));
	check_accounting(sizeof(es));
}

/* §6.1: original header (PTS/DTS) on the first fragment, minimal headers after; payload
 * intact; every packet <= 2048 and with its own length. */
static void fragmenting(int mpeg1)
{
	const size_t plen = 10240;
	size_t n, h, got = 0;
	uint8_t payload_out[16384];

	fill_payload(pl, plen, 5);
	n = mpeg1 ? mk_mpeg1(in, 0xE2, 0, 1, 45000, 41400, pl, plen)
		  : mk_mpeg2(in, 0xE2, 45000, 41400, pl, plen, 1);
	h = n - plen;
	start();
	cap_feed(&R, in, 1000);
	cap_feed(&R, in + 1000, 4096);
	cap_feed(&R, in + 5096, n - 5096);
	CHECK_EQ(CAP.n, 6); /* 10240 + headers over 2048-byte packets */
	for (size_t i = 0; i < CAP.n; i++) {
		const uint8_t *p = cap_pkt(i);
		size_t len = CAP.pk[i].len, ph;

		CHECK_EQ(CAP.pk[i].id, 0xE2);
		if (i + 1 < CAP.n)
			CHECK_EQ(len, FFDVB_PES_OUT_MAX);
		if (i == 0) {
			CHECK(memcmp(p + 6, in + 6, h - 6) == 0); /* header as written, PTS+DTS */
			ph = h;
		} else if (mpeg1) {
			CHECK_EQ(p[6], 0x0F);
			ph = 7;
		} else {
			CHECK(p[6] == 0x80 && p[7] == 0x00 && p[8] == 0x00);
			ph = 9;
		}
		if (got + len - ph <= sizeof(payload_out))
			memcpy(payload_out + got, p + ph, len - ph);
		got += len - ph;
	}
	CHECK_EQ(got, plen);
	CHECK(got == plen && memcmp(payload_out, pl, plen) == 0);
	check_accounting(n);
}

/* PES_packet_length 0 in the PES path: nothing closes it, the next header is payload. */
static void unbounded_in_pes_path(void)
{
	size_t n = 0, v;

	fill_payload(pl, 3000, 1);
	n += mk_mpeg2(in, 0xE0, 0, -1, pl, 1500, 0);
	v = mk_mpeg2(in + n, 0xC0, 0, -1, pl, 1000, 1);
	n += v;
	start();
	cap_feed(&R, in, n);
	CHECK_EQ(CAP.n, 1); /* the first 2048 bytes; the rest waits in the open packet */
	CHECK_EQ(CAP.pk[0].id, 0xE0);
	CHECK(memcmp(cap_pkt(0) + 6, in + 6, 2048 - 6) == 0); /* the audio header is payload */
	CHECK_EQ(R.stats.packets_in, 1);
	ffdvb_repacker_reset(&R); /* discards, does not emit */
	CHECK_EQ(CAP.n, 1);
	CHECK_EQ(R.stats.resets, 1);
	cap_feed(&R, in + n - v, v); /* after a reset the audio packet is found again */
	CHECK_EQ(CAP.n, 2);
	CHECK_EQ(CAP.pk[1].id, 0xC0);
}

/* Garbage and corrupt headers between packets are skipped and counted; a start code hidden in
 * a rejected header is still found. */
static void garbage_and_bad_headers(void)
{
	static const uint8_t junk[] = { 0x12, 0x00, 0x00, 0x00, 0x47, 0x00, 0x01, 0xE0, 0xFF, 0x00 };
	/* 0xE0 whose header does not fit its length, then an audio PES starting inside it */
	static const uint8_t bad[] = { 0, 0, 1, 0xE0, 0x00, 0x03, 0x80, 0x80, 0x05 };
	uint8_t want[8192];
	size_t n = 0, w = 0, v, garbage;

	fill_payload(pl, 600, 2);
	memcpy(in + n, junk, sizeof(junk)), n += sizeof(junk);
	v = mk_mpeg2(in + n, 0xE0, 1, -1, pl, 100, 1);
	memcpy(want + w, in + n, v), w += v, n += v;
	memcpy(in + n, junk, sizeof(junk)), n += sizeof(junk);
	memcpy(in + n, bad, 6), n += 6; /* header cut after its length by the next start code */
	in[n++] = 0x00;
	v = mk_mpeg1(in + n, 0xC0, 0, 0, -1, -1, pl, 50);
	memcpy(want + w, in + n, v), w += v, n += v;
	memcpy(in + n, bad, sizeof(bad)), n += sizeof(bad); /* plain bad header */
	v = mk_mpeg1(in + n, 0xC1, 0, 0, 7, -1, pl, 60);
	memcpy(want + w, in + n, v), w += v, n += v;
	garbage = 2 * sizeof(junk) + 7 + sizeof(bad);
	start();
	cap_feed(&R, in, n);
	check_identity(want, w);
	CHECK_EQ(R.stats.garbage_bytes, garbage);
	CHECK_EQ(R.stats.bad_headers, 2);
	check_accounting(n);
	for (size_t cut = 1; cut < n; cut++) { /* the same wherever the input is split */
		start();
		cap_feed(&R, in, cut);
		cap_feed(&R, in + cut, n - cut);
		CHECK(CAP.used == w && memcmp(CAP.data, want, w) == 0);
		CHECK_EQ(R.stats.garbage_bytes, garbage);
	}
}

/* Header-only packets (no payload) are forwarded as they are. */
static void header_only(void)
{
	size_t n = mk_mpeg2(in, 0xBD, 1234, -1, pl, 0, 1);

	n += mk_mpeg1(in + n, 0xE0, 0, 0, -1, -1, pl, 0); /* 7 bytes */
	start();
	cap_feed(&R, in, n);
	CHECK_EQ(CAP.n, 2);
	CHECK_EQ(CAP.pk[1].len, 7);
	check_identity(in, n);
}

static size_t big_packets, big_bytes, big_audio;

static void count_sink_whole(void *ctx, uint8_t id, const uint8_t *pkt, size_t len)
{
	(void)ctx;
	(void)pkt;
	big_packets++;
	big_bytes += len;
	big_audio += id == 0xC0;
}

TEST_PES_JOINING_SINK(count_sink, count_sink_whole)

/* §6.1: an unbounded PES in the PES path ends after 16 MiB; the next packet is found. */
static void unbounded_cap(void)
{
	size_t h = mk_mpeg2(in, 0xE0, -1, -1, pl, 0, 0), left = FFDVB_PES_UNBOUNDED_MAX - h, n;

	ffdvb_repacker_init(&R, count_sink, NULL);
	ffdvb_repacker_feed(&R, in, h);
	fill_payload(in, 4096, 1);
	while (left) {
		size_t c = left < 4096 ? left : 4096;

		ffdvb_repacker_feed(&R, in, c);
		left -= c;
	}
	CHECK_EQ(R.stats.unbounded_capped, 1);
	CHECK_EQ(R.state, FFDVB_RP_SCAN);
	CHECK_EQ(big_packets, (FFDVB_PES_UNBOUNDED_MAX - h + 2038) / 2039); /* 9-byte headers */
	n = mk_mpeg2(in, 0xC0, 5, -1, pl, 100, 1);
	ffdvb_repacker_feed(&R, in, n);
	CHECK_EQ(big_audio, 1);
	CHECK_EQ(R.stats.forwarded_bytes, FFDVB_PES_UNBOUNDED_MAX + n);
}

/* Whole packets of up to 2048 bytes met between packets go to the sink at once (video0's
 * 2048-byte packets in 64 KiB writes): the same output and counters as byte by byte, also
 * around one that must be cut (2049 bytes) and a header-only one. */
static void whole_packets(void)
{
	static struct cap whole;
	struct ffdvb_repacker_stats st;
	size_t n = 0;

	fill_payload(pl, 4096, 5);
	for (int i = 0; i < 8; i++)
		n += mk_mpeg2(in + n, 0xE0, i ? -1 : 3600, -1, pl + i, 2048 - 9 - (i ? 0 : 5), 1);
	n += mk_mpeg2(in + n, 0xE0, -1, -1, pl, 2049 - 9, 1);
	n += mk_mpeg2(in + n, 0xC0, 7200, -1, pl, 0, 1);
	n += mk_mpeg2(in + n, 0xE0, -1, -1, pl + 9, 2048 - 9, 1);
	start();
	cap_feed(&R, in, n);
	check_accounting(n);
	CHECK_EQ(CAP.n, 12);
	CHECK_EQ(R.stats.packets_in, 11);
	whole = CAP;
	st = R.stats;
	start();
	for (size_t i = 0; i < n; i++)
		cap_feed(&R, in + i, 1);
	CHECK(CAP.n == whole.n && CAP.used == whole.used &&
	      memcmp(CAP.data, whole.data, whole.used) == 0);
	CHECK(memcmp(&R.stats, &st, sizeof(st)) == 0);
}

int main(void)
{
	split_everywhere();
	mplayer_writes();
	program_stream();
	raw_es();
	fragmenting(0);
	fragmenting(1);
	unbounded_in_pes_path();
	garbage_and_bad_headers();
	header_only();
	unbounded_cap();
	whole_packets();
	return finish("test_pes_repack");
}
