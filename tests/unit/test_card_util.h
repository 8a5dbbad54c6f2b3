/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared helpers of the card unit tests: a card on a libevent base with a fake clock, counted
 * wake-up hooks, and node calls as the transport would make them. */
#ifndef TEST_CARD_UTIL_H
#define TEST_CARD_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "check.h"
#include "ffdvb/abi.h"
#include "ffdvb/card.h"
#include "ffdvb/pes.h"
#include "card_internal.h"

struct env {
	struct event_base *base;
	struct ffdvb_card *card;
	const struct ffdvb_node_ops *ops;
	uint64_t now;
	int wakes[FFDVB_NODE_COUNT];
};

static struct env E;

static inline uint64_t fake_now(void *ctx)
{
	return *(uint64_t *)ctx;
}

static inline void count_wake(void *ctx)
{
	(*(int *)ctx)++;
}

static inline void env_setup(uint32_t drain_rate)
{
	struct ffdvb_card_config cfg = { .adapter = 0, .drain_rate = drain_rate };

	memset(&E, 0, sizeof(E));
	E.base = event_base_new();
	E.card = ffdvb_card_new(E.base, &cfg);
	if (!E.base || !E.card) {
		printf("FAIL: cannot create card\n");
		exit(1);
	}
	E.now = 1000000000ull;
	E.card->now_ns = fake_now;
	E.card->now_ctx = &E.now;
	E.ops = ffdvb_card_node_ops(FFDVB_NODE_VIDEO);
	for (int t = 0; t < FFDVB_NODE_COUNT; t++)
		ffdvb_card_set_wake(E.card, t, count_wake, &E.wakes[t]);
}

static inline void env_teardown(void)
{
	ffdvb_card_free(E.card);
	event_base_free(E.base);
}

static inline void *xopen(enum ffdvb_node_type t, int flags, int *rc)
{
	void *f = NULL;
	int r = E.ops->open(ffdvb_card_node(E.card, t), flags, &f);

	if (rc)
		*rc = r;
	return r == 0 ? f : NULL;
}

static inline void xclose(void *f)
{
	if (f)
		E.ops->release(f);
}

/* an _IO ioctl with an integer argument */
static inline int io_arg(void *f, unsigned int cmd, unsigned long arg)
{
	struct ffdvb_ioctl io = { .cmd = cmd, .arg = arg };

	return E.ops->ioctl(f, &io);
}

/* an ioctl with a struct argument (copied in and out by the transport) */
static inline int io_buf(void *f, unsigned int cmd, void *buf, int nonblock)
{
	struct ffdvb_ioctl io = { .cmd = cmd, .buf = buf, .nonblock = nonblock };

	return E.ops->ioctl(f, &io);
}

/* an ioctl with a struct and a fetched payload */
static inline int io_data(void *f, unsigned int cmd, void *buf, void *data, size_t len, int fault)
{
	struct ffdvb_ioctl io = { .cmd = cmd, .buf = buf, .data = fault ? NULL : data,
				  .data_len = fault ? 0 : len, .data_fault = fault };

	return E.ops->ioctl(f, &io);
}

/* ---- test data the av7110 repacker (§6.1) passes on unchanged -------------------------- */

/* One MPEG-2 PES packet of n >= 9 bytes: 00 00 01 id <n - 6> 80 00 00 + payload. The payload
 * never holds a zero byte, so it cannot contain a start code. */
static inline void pes_packet(uint8_t *p, size_t n, uint8_t id, unsigned int seed)
{
	p[0] = 0x00, p[1] = 0x00, p[2] = 0x01, p[3] = id;
	p[4] = (uint8_t)((n - 6) >> 8), p[5] = (uint8_t)(n - 6);
	p[6] = 0x80, p[7] = 0x00, p[8] = 0x00;
	for (size_t i = 9; i < n; i++)
		p[i] = (uint8_t)(0x10 + (seed * 31 + i) % 0xe0);
}

/* Fills buf[0..len) with consecutive PES packets of stream id, each at most max bytes
 * (<= FFDVB_PES_OUT_MAX, so the repacker outputs them as they are: ring fill == bytes
 * written) and never shorter than 9 (a short tail is taken from the packet before it).
 * Returns the number of packets. */
static inline size_t fill_pes(uint8_t *buf, size_t len, uint8_t id, size_t max)
{
	size_t pos = 0, count = 0;

	if ((len > 0 && len < 9) || max < 18 || max > FFDVB_PES_OUT_MAX) {
		printf("FAIL: fill_pes(%zu, max %zu) cannot make packets of 9..2048 bytes\n", len,
		       max);
		exit(1);
	}
	while (pos < len) {
		size_t n = len - pos < max ? len - pos : max;

		if (len - pos - n > 0 && len - pos - n < 9)
			n = len - pos - 9;
		pes_packet(buf + pos, n, id, (unsigned int)count);
		pos += n;
		count++;
	}
	return count;
}

/* Builds TS packets (PID 0x100, no TEI) carrying the PES packets in pes[0..len) (as made by
 * fill_pes): each PES starts a TS packet with payload_unit_start set, a PES that does not
 * fill its last TS packet is padded there by adaptation-field stuffing, as a multiplexer
 * does. Returns the number of TS packets written to ts. */
static inline size_t ts_from_pes(uint8_t *ts, const uint8_t *pes, size_t len)
{
	size_t pos = 0, count = 0;

	while (pos < len) {
		size_t pes_len = 6 + ((size_t)pes[pos + 4] << 8 | pes[pos + 5]), off = 0;

		while (off < pes_len) {
			uint8_t *p = ts + count * 188;
			size_t k = pes_len - off < 184 ? pes_len - off : 184, af = 184 - k;

			p[0] = 0x47;
			p[1] = (uint8_t)((off == 0 ? 0x40 : 0) | 0x01);
			p[2] = 0x00;
			p[3] = (uint8_t)((af ? 0x30 : 0x10) | (count & 0x0f));
			if (af) { /* length byte, flags, stuffing */
				p[4] = (uint8_t)(af - 1);
				memset(p + 5, 0xff, af - 1);
				if (af > 1)
					p[5] = 0x00;
			}
			memcpy(p + 4 + af, pes + pos + off, k);
			off += k;
			count++;
		}
		pos += pes_len;
	}
	return count;
}


#endif
