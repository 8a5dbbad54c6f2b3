/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Output side of the repacker (docs/av7110.md §6.1): packets of at most 2048 bytes. The
 * original header (with PTS/DTS) opens the first fragment; continuation fragments get a minimal
 * header without time stamps (MPEG-2: 0x80 0x00 0x00, MPEG-1: 0x0F). Every output packet
 * carries its real PES_packet_length. Headers and payload that will not complete a fragment
 * in this call enter r->out through out_put(); the payload that completes one goes to the sink
 * from the input (emit_with), which saves a copy of most bytes of a PES written in large chunks. */
#include <string.h>

#include "repacker_internal.h"

#define CONT_HEADER_MPEG2 9 /* 00 00 01 id len len 0x80 0x00 0x00 (13818-1 §2.4.3.6) */
#define CONT_HEADER_MPEG1 7 /* 00 00 01 id len len 0x0F (11172-1 §2.4.3.3) */

/* The one checked copy into the output packet: never more than the room left. */
static size_t out_put(struct ffdvb_repacker *r, const uint8_t *src, size_t n)
{
	size_t room = sizeof(r->out) - r->out_len;

	if (n > room)
		n = room;
	memcpy(r->out + r->out_len, src, n);
	r->out_len += n;
	return n;
}

/* Hands out r->out followed by body (the input bytes that complete the packet: they go to the
 * sink from the caller's buffer, not through r->out). */
static void emit_with(struct ffdvb_repacker *r, const uint8_t *body, size_t body_len)
{
	size_t head = r->out_len, len = head + body_len;

	if (head < 6)
		return;
	r->out[4] = (uint8_t)((len - 6) >> 8); /* PES_packet_length of this fragment */
	r->out[5] = (uint8_t)(len - 6);
	r->out_len = 0;
	r->stats.packets_out++;
	r->stats.bytes_out += len;
	r->sink(r->sink_ctx, r->id, r->out, head, body_len ? body : NULL, body_len);
}

static void emit(struct ffdvb_repacker *r)
{
	emit_with(r, NULL, 0);
}

static void begin_continuation(struct ffdvb_repacker *r)
{
	uint8_t h[CONT_HEADER_MPEG2] = { 0x00, 0x00, 0x01, r->id, 0x00, 0x00, 0x80, 0x00, 0x00 };

	if (r->mpeg1) {
		h[6] = 0x0F;
		out_put(r, h, CONT_HEADER_MPEG1);
	} else {
		out_put(r, h, CONT_HEADER_MPEG2);
	}
}

void rp_out_close(struct ffdvb_repacker *r)
{
	emit(r);
	r->out_len = 0;
	r->remaining = 0;
	r->zeros = 0;
	r->state = FFDVB_RP_SCAN;
}

void rp_out_begin(struct ffdvb_repacker *r, const struct ffdvb_pes_header *h)
{
	r->id = h->stream_id;
	r->mpeg1 = h->mpeg1;
	r->unbounded = h->packet_length == 0;
	/* the parser guarantees header_len <= 6 + PES_packet_length for bounded packets */
	r->remaining = r->unbounded ? FFDVB_PES_UNBOUNDED_MAX - h->header_len
				    : (size_t)h->packet_length + 6 - h->header_len;
	r->out_len = 0;
	out_put(r, r->hdr, h->header_len);
	r->hdr_len = 0;
	r->state = FFDVB_RP_DATA;
	r->stats.packets_in++;
	r->stats.forwarded_bytes += h->header_len;
	if (r->remaining == 0) /* header-only packet */
		rp_out_close(r);
}

size_t ffdvb_repacker_whole_len(const uint8_t *p, size_t n, struct ffdvb_pes_header *h)
{
	size_t total;

	if (n < 9 || p[0] || p[1] || p[2] != 0x01 || ffdvb_pes_kind(p[3]) != FFDVB_PES_FORWARD)
		return 0;
	total = 6 + ((size_t)p[4] << 8 | p[5]);
	if (total == 6 || total > n || total > FFDVB_PES_OUT_MAX)
		return 0; /* unbounded, incomplete or to be cut: the byte-wise path */
	/* the parser's answer does not change with more bytes once it is not -EAGAIN */
	if (ffdvb_pes_header_parse(p, n < FFDVB_PES_HEADER_MAX ? n : FFDVB_PES_HEADER_MAX, h) <= 0)
		return 0; /* a header the byte-wise path rejects (or takes longer to decide) */
	return total;
}

void ffdvb_repacker_passed(struct ffdvb_repacker *r, const struct ffdvb_pes_header *last,
			   size_t packets, size_t bytes)
{
	r->id = last->stream_id;
	r->mpeg1 = last->mpeg1;
	r->unbounded = 0;
	r->stats.packets_in += packets;
	r->stats.forwarded_bytes += bytes;
	r->stats.packets_out += packets;
	r->stats.bytes_out += bytes;
}

/* A whole packet met between packets leaves the byte-wise path as it came: scanned, its
 * header collected and parsed, copied to r->out and emitted with the rest of the input as
 * body, with its own PES_packet_length. So it goes to the sink at once, head and body from
 * the input, with the same counters: a third of the work per packet (video0's 2048-byte
 * packets in 64 KiB writes, bench/README.md). */
size_t rp_out_whole(struct ffdvb_repacker *r, const uint8_t *p, size_t n)
{
	struct ffdvb_pes_header h;
	size_t total = ffdvb_repacker_whole_len(p, n, &h), body;

	if (!total)
		return 0;
	ffdvb_repacker_passed(r, &h, 1, total);
	body = total - h.header_len;
	r->sink(r->sink_ctx, r->id, p, h.header_len, body ? p + h.header_len : NULL, body);
	return total;
}

size_t rp_out_payload(struct ffdvb_repacker *r, const uint8_t *p, size_t n)
{
	size_t take = n < r->remaining ? n : r->remaining;
	int ends = take == r->remaining; /* this call completes the packet */
	size_t done = 0;

	while (done < take) {
		size_t room, c;

		if (r->out_len == 0) /* more payload after a full fragment */
			begin_continuation(r);
		room = sizeof(r->out) - r->out_len;
		c = take - done < room ? take - done : room;
		if (c == room || (ends && done + c == take)) {
			/* these bytes complete the fragment: out to the sink straight from p */
			emit_with(r, p + done, c);
		} else {
			out_put(r, p + done, c);
		}
		done += c;
	}
	r->remaining -= take;
	r->stats.forwarded_bytes += take;
	if (r->remaining == 0) {
		if (r->unbounded)
			r->stats.unbounded_capped++;
		rp_out_close(r);
	}
	return take;
}
