/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The TS path of the repacker (docs/av7110.md §4.1): PID and sync byte ignored, TEI resets
 * and drops, adaptation fields skipped, packets without payload dropped, payload_unit_start
 * closing an open unbounded PES (VDR's TS recordings: video PES with length 0). */
#include "test_pes_util.h"

#define TS 188

static struct ffdvb_repacker R;
static uint8_t pes[65536], pl[32768];
static uint8_t ts[512][TS];
static unsigned int cc;

static void start(void)
{
	cap_clear();
	ffdvb_repacker_init(&R, cap_sink, &CAP);
}

/* 13818-1 §2.4.3.2/§2.4.3.4: cuts one PES into TS packets, PUSI on the first, the last one
 * padded with adaptation field stuffing. Returns the number of packets written at ts[at]. */
static size_t packetize(size_t at, const uint8_t *p, size_t n, unsigned int pid)
{
	size_t k = 0;

	for (size_t off = 0; off < n; k++) {
		uint8_t *t = ts[at + k];
		size_t room = TS - 4, c = n - off < room ? n - off : room, hdr = 4;

		memset(t, 0xFF, TS);
		t[0] = 0x47;
		t[1] = (uint8_t)((off == 0 ? 0x40 : 0) | (pid >> 8));
		t[2] = (uint8_t)pid;
		t[3] = (uint8_t)(0x10 | (cc++ & 15));
		if (c < room) { /* stuffing in an adaptation field */
			if (c == room - 1) {
				c--; /* keep >= 2 bytes of adaptation field for simplicity */
			}
			t[3] |= 0x20;
			t[4] = (uint8_t)(TS - 4 - c - 1);
			if (t[4])
				t[5] = 0x00; /* flags */
			hdr = TS - c;
		}
		memcpy(t + hdr, p + off, c);
		off += c;
	}
	return k;
}

static size_t feed_all(size_t from, size_t to)
{
	size_t fed = 0;

	for (size_t i = from; i < to; i++)
		fed += cap_ts(&R, ts[i]);
	return fed;
}

/* VDR-style: unbounded video PES (length 0) closed by the next PUSI, here the one of an audio
 * PES on another PID (the PID does not matter, everything feeds one repacker; the stream id
 * routes). */
static void unbounded_closed_by_pusi(void)
{
	size_t n1, n2, n3, k = 0, got = 0, second, third;
	uint8_t out[16384];

	fill_payload(pl, 20000, 4);
	n1 = mk_mpeg2(pes, 0xE0, 90000, 86400, pl, 5000, 0);
	k += packetize(k, pes, n1, 0x100);
	second = k;
	n2 = mk_mpeg2(pes, 0xC0, 91000, -1, pl + 100, 700, 1);
	k += packetize(k, pes, n2, 0x101);
	third = k;
	n3 = mk_mpeg2(pes, 0xE0, 93600, -1, pl + 5000, 3000, 0);
	k += packetize(k, pes, n3, 0x100);
	start();
	feed_all(0, second);
	CHECK_EQ(CAP.n, 2); /* two full fragments; 941 bytes wait in the open packet */
	CHECK_EQ(R.stats.unbounded_closed, 0);
	cap_ts(&R, ts[second]); /* the audio PES's PUSI closes the video PES */
	CHECK_EQ(R.stats.unbounded_closed, 1);
	CHECK_EQ(CAP.n, 3);
	CHECK_EQ(CAP.pk[2].len, 9 + 5000 - 2029 - 2039);
	feed_all(second + 1, third + 1);
	CHECK_EQ(CAP.n, 4); /* the bounded audio PES closed itself */
	CHECK_EQ(CAP.pk[3].id, 0xC0);
	CHECK_EQ(CAP.pk[3].len, n2);
	CHECK_EQ(R.stats.unbounded_closed, 1);
	for (size_t i = 0; i < 3; i++) {
		const uint8_t *p = cap_pkt(i);
		size_t len = CAP.pk[i].len, ph = i == 0 ? 19 : 9;

		CHECK_EQ(CAP.pk[i].id, 0xE0);
		if (i == 0)
			CHECK(p[7] == 0xC0 && p[8] == 10); /* PTS+DTS kept on the first fragment */
		else
			CHECK(p[6] == 0x80 && p[7] == 0 && p[8] == 0);
		if (got + len - ph <= sizeof(out))
			memcpy(out + got, p + ph, len - ph);
		got += len - ph;
	}
	CHECK_EQ(got, 5000);
	CHECK(got == 5000 && memcmp(out, pl, 5000) == 0);
	feed_all(third + 1, k);
	CHECK_EQ(CAP.n, 5); /* 2048 bytes of the second video PES; the rest stays open */
	CHECK_EQ(CAP.bad, 0);
	CHECK_EQ(R.stats.packets_in, 3);
}

/* TEI: reset (the partial packet is discarded, not emitted) and the packet dropped; the next
 * PUSI resynchronises. */
static void tei_reset(void)
{
	size_t n, k;

	fill_payload(pl, 4000, 8);
	n = mk_mpeg2(pes, 0xC0, 1000, -1, pl, 1500, 1);
	k = packetize(0, pes, n, 0x44);
	k += packetize(k, pes, n, 0x44);
	start();
	cap_ts(&R, ts[0]);
	cap_ts(&R, ts[1]);
	ts[2][1] |= 0x80; /* corrupted on the way */
	CHECK_EQ(cap_ts(&R, ts[2]), 0);
	CHECK_EQ(R.stats.ts_tei, 1);
	CHECK_EQ(R.stats.resets, 1);
	feed_all(3, k); /* the rest of the first PES is garbage now, the second comes out whole */
	CHECK_EQ(CAP.n, 1);
	CHECK_EQ(CAP.pk[0].len, n);
	CHECK(CAP.n == 1 && memcmp(cap_pkt(0), pes, n) == 0);
	CHECK_EQ(R.stats.garbage_bytes, n - 3 * 184); /* 0, 1 discarded, 2 dropped */
}

/* Adaptation-field-only, reserved afc, oversized adaptation field, PCR-carrying field, and a
 * wrong sync byte (not checked). */
static void adaptation_fields(void)
{
	uint8_t t[TS];
	size_t n;

	fill_payload(pl, 400, 6);
	n = mk_mpeg2(pes, 0xE0, 1, -1, pl, 160, 1); /* 174 bytes */
	start();
	memset(t, 0xFF, TS);
	t[0] = 0x47, t[1] = 0x40, t[2] = 0x11, t[3] = 0x20, t[4] = 183, t[5] = 0x10; /* PCR only */
	CHECK_EQ(cap_ts(&R, t), 0);
	t[3] = 0x00; /* reserved afc */
	CHECK_EQ(cap_ts(&R, t), 0);
	t[3] = 0x30, t[4] = 183; /* payload flagged, but the field fills the packet */
	CHECK_EQ(cap_ts(&R, t), 0);
	t[4] = 200; /* longer than the packet */
	CHECK_EQ(cap_ts(&R, t), 0);
	CHECK_EQ(R.stats.ts_no_payload, 3);
	CHECK_EQ(R.stats.ts_bad_af, 1);
	CHECK_EQ(CAP.n, 0);
	/* PCR adaptation field of 7 bytes, then exactly the 174-byte PES + 2 bytes of trailing 0xFF */
	t[0] = 0x00; /* sync byte is not checked */
	t[3] = 0x30, t[4] = 7, t[5] = 0x10;
	memset(t + 6, 0, 6);
	memcpy(t + 12, pes, n);
	CHECK_EQ(cap_ts(&R, t), 176);
	CHECK_EQ(CAP.n, 1);
	CHECK(CAP.n == 1 && CAP.pk[0].len == n && memcmp(cap_pkt(0), pes, n) == 0);
	CHECK_EQ(R.stats.garbage_bytes, 2);
	/* afc '01' with 184 bytes of payload: all fed */
	memset(t, 0xFF, TS);
	t[0] = 0x47, t[1] = 0x00, t[2] = 0x20, t[3] = 0x10;
	CHECK_EQ(cap_ts(&R, t), 184);
}

/* Only an unbounded PES is closed by PUSI: a bounded one that lost packets swallows the next
 * PES start as payload until its length is complete (av7110 behaviour, §4.1). */
static void bounded_not_closed(void)
{
	size_t n1, n2, k1, k2;

	fill_payload(pl, 4000, 3);
	n1 = mk_mpeg2(pes, 0xC0, 10, -1, pl, 1000, 1); /* 1014 bytes: 6 TS packets */
	k1 = packetize(0, pes, n1, 0x44);
	n2 = mk_mpeg2(pes, 0xC0, 20, -1, pl + 1000, 1000, 1);
	k2 = packetize(k1, pes, n2, 0x44);
	start();
	cap_ts(&R, ts[0]);
	cap_ts(&R, ts[1]); /* 368 bytes of the first PES; packets 2.. are lost */
	feed_all(k1, k1 + k2);
	CHECK_EQ(R.stats.unbounded_closed, 0);
	CHECK(CAP.n >= 1 && CAP.pk[0].len == n1); /* completed with the second PES's bytes */
	CHECK(CAP.n >= 1 && memcmp(cap_pkt(0) + 368, ts[k1] + 4, 184) == 0);
	CHECK_EQ(R.stats.packets_in, 1);
}

int main(void)
{
	unbounded_closed_by_pusi();
	tei_reset();
	adaptation_fields();
	bounded_not_closed();
	return finish("test_pes_ts");
}
