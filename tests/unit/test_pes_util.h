/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared helpers of the PES unit tests (src/pes: header parser and repacker): CHECK macros, a
 * capturing sink that validates every packet it is handed, and builders for PES packets as
 * MPlayer, VDR and DVD-style muxers write them. */
#ifndef TEST_PES_UTIL_H
#define TEST_PES_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ffdvb/pes.h"
#include "test_pes_join.h"


/* ---- capturing sink --------------------------------------------------------------------- */

#define CAP_MAX_PACKETS 4096
#define CAP_MAX_BYTES (1u << 21)

struct cap {
	size_t n;
	struct {
		uint8_t id;
		size_t off, len;
	} pk[CAP_MAX_PACKETS];
	uint8_t data[CAP_MAX_BYTES];
	size_t used;
	size_t call_bytes; /* bytes received since the last cap_feed/cap_ts */
	int bad;           /* packets that broke the sink contract */
};

static struct cap CAP;

static inline void cap_clear(void)
{
	memset(&CAP, 0, offsetof(struct cap, data));
	CAP.used = 0;
}

static inline void cap_sink_whole(void *ctx, uint8_t id, const uint8_t *pkt, size_t len)
{
	struct cap *c = ctx;

	c->call_bytes += len;
	if (len < 6 || len > FFDVB_PES_OUT_MAX || pkt[0] || pkt[1] || pkt[2] != 1 || pkt[3] != id ||
	    (size_t)(pkt[4] << 8 | pkt[5]) != len - 6 || ffdvb_pes_kind(id) != FFDVB_PES_FORWARD) {
		c->bad++;
		printf("FAIL: bad output packet id 0x%02x len %zu\n", id, len);
	}
	if (c->n == CAP_MAX_PACKETS || c->used + len > CAP_MAX_BYTES) {
		c->bad++;
		return;
	}
	c->pk[c->n].id = id;
	c->pk[c->n].off = c->used;
	c->pk[c->n].len = len;
	memcpy(c->data + c->used, pkt, len);
	c->used += len;
	c->n++;
}

TEST_PES_JOINING_SINK(cap_sink, cap_sink_whole)

static inline const uint8_t *cap_pkt(size_t i)
{
	return CAP.data + CAP.pk[i].off;
}

/* Feeds and checks that one call never needed more output room than ffdvb_repacker_out_bound. */
static inline void cap_feed(struct ffdvb_repacker *r, const uint8_t *p, size_t n)
{
	CAP.call_bytes = 0;
	CHECK_EQ(ffdvb_repacker_feed(r, p, n), n);
	CHECK(CAP.call_bytes <= ffdvb_repacker_out_bound(n));
}

static inline size_t cap_ts(struct ffdvb_repacker *r, const uint8_t *pkt)
{
	size_t fed;

	CAP.call_bytes = 0;
	fed = ffdvb_repacker_ts_packet(r, pkt);
	CHECK(CAP.call_bytes <= ffdvb_repacker_out_bound(FFDVB_TS_PACKET_SIZE - 4));
	return fed;
}

/* ---- PES builders ----------------------------------------------------------------------- */

/* 13818-1 §2.4.3.7 / 11172-1 §2.4.3.3 time stamp field with its 4-bit prefix and markers */
static inline void put_ts33(uint8_t *p, unsigned int prefix, uint64_t ts)
{
	p[0] = (uint8_t)(prefix << 4 | ((ts >> 29) & 0x0E) | 1);
	p[1] = (uint8_t)(ts >> 22);
	p[2] = (uint8_t)(((ts >> 14) & 0xFE) | 1);
	p[3] = (uint8_t)(ts >> 7);
	p[4] = (uint8_t)(((ts << 1) & 0xFE) | 1);
}

static inline void fill_payload(uint8_t *p, size_t n, unsigned int seed)
{
	/* never 00 00 01: a byte pattern without zeros */
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(1 + (seed + i * 7) % 251);
}

/* MPEG-2 PES; pts/dts < 0 = absent; bounded = 0 writes PES_packet_length 0. Returns size. */
static inline size_t mk_mpeg2(uint8_t *b, uint8_t id, long long pts, long long dts,
			      const uint8_t *pl, size_t n, int bounded)
{
	size_t h = 9;

	b[0] = 0;
	b[1] = 0;
	b[2] = 1;
	b[3] = id;
	b[6] = 0x84; /* '10', data_alignment_indicator */
	b[7] = pts < 0 ? 0x00 : dts < 0 ? 0x80 : 0xC0;
	if (pts >= 0) {
		put_ts33(b + h, dts < 0 ? 2 : 3, (uint64_t)pts);
		h += 5;
	}
	if (pts >= 0 && dts >= 0) {
		put_ts33(b + h, 1, (uint64_t)dts);
		h += 5;
	}
	b[8] = (uint8_t)(h - 9);
	memcpy(b + h, pl, n);
	b[4] = bounded ? (uint8_t)((h + n - 6) >> 8) : 0;
	b[5] = bounded ? (uint8_t)(h + n - 6) : 0;
	return h + n;
}

/* MPEG-1 PES as 11172-1 §2.4.3.3: stuffing 0xFF bytes, optional STD buffer, then PTS, PTS+DTS
 * or 0x0F. Returns size. */
static inline size_t mk_mpeg1(uint8_t *b, uint8_t id, int stuffing, int std, long long pts,
			      long long dts, const uint8_t *pl, size_t n)
{
	size_t h = 6;

	b[0] = 0;
	b[1] = 0;
	b[2] = 1;
	b[3] = id;
	for (int i = 0; i < stuffing; i++)
		b[h++] = 0xFF;
	if (std) {
		b[h++] = 0x60; /* '01', scale 1, size high bits */
		b[h++] = 0x2E;
	}
	if (pts < 0) {
		b[h++] = 0x0F;
	} else {
		put_ts33(b + h, dts < 0 ? 2 : 3, (uint64_t)pts);
		h += 5;
		if (dts >= 0) {
			put_ts33(b + h, 1, (uint64_t)dts);
			h += 5;
		}
	}
	memcpy(b + h, pl, n);
	b[4] = (uint8_t)((h + n - 6) >> 8);
	b[5] = (uint8_t)(h + n - 6);
	return h + n;
}

#endif
