/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The input side of the av7110 PES repacker (docs/av7110.md §6.1): scan for 00 00 01 + stream
 * id, forward 0xBD/0xC0-0xEF, skip padding-like packets by their length, drop pack and system
 * headers, resume scanning after anything else. A rejected header's bytes after the prefix are
 * scanned again (r->back), so the result does not depend on where the input was split. */
#include <errno.h>
#include <string.h>

#include "repacker_internal.h"

void ffdvb_repacker_init(struct ffdvb_repacker *r, ffdvb_pes_sink_fn sink, void *sink_ctx)
{
	memset(r, 0, sizeof(*r));
	r->sink = sink;
	r->sink_ctx = sink_ctx;
	r->state = FFDVB_RP_SCAN;
}

void ffdvb_repacker_reset(struct ffdvb_repacker *r)
{
	r->state = FFDVB_RP_SCAN;
	r->zeros = 0;
	r->hdr_len = 0;
	r->back_len = 0;
	r->out_len = 0;
	r->remaining = 0;
	r->stats.resets++;
}

/* Not a packet after all: its prefix is garbage, the bytes from the stream id on are scanned
 * again (the id byte may be a zero of the next start code). r->back is empty here: it is
 * drained before any other byte is stepped. */
static void reject(struct ffdvb_repacker *r)
{
	r->stats.garbage_bytes += 3;
	r->back_len = r->hdr_len - 3;
	memcpy(r->back, r->hdr + 3, r->back_len);
	r->hdr_len = 0;
	r->zeros = 0;
	r->state = FFDVB_RP_SCAN;
}

/* Drops `total` bytes of which the r->hdr_len collected ones are the first. */
static void skip_begin(struct ffdvb_repacker *r, size_t total)
{
	r->stats.skipped_packets++;
	r->stats.skipped_bytes += r->hdr_len;
	r->remaining = total - r->hdr_len;
	r->hdr_len = 0;
	r->zeros = 0;
	r->state = r->remaining ? FFDVB_RP_SKIP : FFDVB_RP_SCAN;
}

/* Pack header: 13818-1 §2.5.3.3 (MPEG-2: '01' after the start code, 14 bytes plus
 * pack_stuffing_length) or 11172-1 §2.4.3.2 (MPEG-1: '0010', 12 bytes). */
static int decide_pack(struct ffdvb_repacker *r)
{
	const uint8_t *h = r->hdr;

	if (r->hdr_len < 5)
		return 0;
	if ((h[4] & 0xF0) == 0x20) {
		skip_begin(r, 12);
		return 1;
	}
	if ((h[4] & 0xC0) != 0x40) {
		r->stats.bad_headers++;
		reject(r);
		return 1;
	}
	if (r->hdr_len < 14)
		return 0;
	skip_begin(r, 14 + (size_t)(h[13] & 7));
	return 1;
}

/* System header, 13818-1 §2.5.3.5 / 11172-1 §2.4.3.2: header_length covers 6 fixed bytes and
 * 3 bytes per stream entry, at most one entry per stream id 0xB8..0xFF. */
static int decide_system(struct ffdvb_repacker *r)
{
	size_t hl;

	if (r->hdr_len < 6)
		return 0;
	hl = (size_t)r->hdr[4] << 8 | r->hdr[5];
	if (hl < 6 || (hl - 6) % 3 || (hl - 6) / 3 > 0x100 - 0xB8) {
		r->stats.bad_headers++;
		reject(r);
		return 1;
	}
	skip_begin(r, 6 + hl);
	return 1;
}

static int decide_forward(struct ffdvb_repacker *r)
{
	struct ffdvb_pes_header h;
	int rc = ffdvb_pes_header_parse(r->hdr, r->hdr_len, &h);

	if (rc == -EAGAIN && r->hdr_len < sizeof(r->hdr))
		return 0;
	if (rc < 0) {
		r->stats.bad_headers++;
		reject(r);
		return 1;
	}
	rp_out_begin(r, &h);
	return 1;
}

/* Called after each header byte; returns 1 once the start code is decided (state left). */
static int header_decide(struct ffdvb_repacker *r)
{
	uint8_t id;

	if (r->hdr_len < 4)
		return 0;
	id = r->hdr[3];
	switch (ffdvb_pes_kind(id)) {
	case FFDVB_PES_FORWARD:
		return decide_forward(r);
	case FFDVB_PES_SKIP:
		if (r->hdr_len < 6)
			return 0;
		skip_begin(r, 6 + ((size_t)r->hdr[4] << 8 | r->hdr[5]));
		return 1;
	case FFDVB_PES_NOT_PES:
		break;
	}
	if (id == 0xBA)
		return decide_pack(r);
	if (id == 0xBB)
		return decide_system(r);
	r->stats.other_start_codes++; /* raw ES (sequence, GOP, picture, slice ...), end code */
	reject(r);
	return 1;
}

/* Zero bytes right before p[i] (at most 2), counting those seen before p when i < 2. */
static unsigned int zeros_before(const struct ffdvb_repacker *r, const uint8_t *p, size_t i)
{
	if (i == 0)
		return r->zeros;
	if (p[i - 1])
		return 0;
	if (i == 1)
		return r->zeros ? 2 : 1;
	return p[i - 2] ? 1 : 2;
}

/* memchr for the 0x01 of a start code instead of a byte-wise walk: after a clear or a
 * damaged stream whole TS payloads are scanned, and memchr's vector loop costs a fraction of
 * the walk per byte (bench/README.md, 188-byte writes). */
static size_t step_scan(struct ffdvb_repacker *r, const uint8_t *p, size_t n)
{
	const uint8_t *q = p;

	while ((q = memchr(q, 0x01, n - (size_t)(q - p)))) {
		size_t i = (size_t)(q - p);

		if (zeros_before(r, p, i) >= 2) {
			/* scanned bytes are garbage, except the prefix now being a header's start */
			r->stats.garbage_bytes += i + 1;
			r->stats.garbage_bytes -= 3;
			r->hdr[0] = 0x00;
			r->hdr[1] = 0x00;
			r->hdr[2] = 0x01;
			r->hdr_len = 3;
			r->zeros = 0;
			r->state = FFDVB_RP_HEADER;
			return i + 1;
		}
		q++;
	}
	r->zeros = zeros_before(r, p, n);
	r->stats.garbage_bytes += n;
	return n;
}

/* How long the header of a forwarded packet may be, from what is known of it: 9 bytes tell an
 * MPEG-2 header's length; an MPEG-1 header is walked byte by byte, so it gets all there is. */
static size_t forward_want(const struct ffdvb_repacker *r)
{
	if (r->hdr_len < 9)
		return 9;
	if ((r->hdr[6] & 0xC0) == 0x80)
		return 9 + (size_t)r->hdr[8];
	return sizeof(r->hdr);
}

/* The header of a forwarded packet, once its stream id is known: the bytes at hand are copied
 * in one go (as far as forward_want says) and parsed, instead of a parse after every byte.
 * The parser answers -EAGAIN up to some length and the same answer from there on, and a header
 * it accepts ends exactly there (header_len), so this decides at the same byte as the
 * byte-wise loop; only a rejection, rare, looks for that byte again. Returns the bytes of p
 * consumed. */
static size_t header_forward(struct ffdvb_repacker *r, const uint8_t *p, size_t n)
{
	struct ffdvb_pes_header h;
	size_t old = r->hdr_len, used = 0, tried = old, end;
	int rc;

	for (;;) {
		size_t k = forward_want(r) - r->hdr_len;

		if (k > n - used)
			k = n - used;
		memcpy(r->hdr + r->hdr_len, p + used, k);
		r->hdr_len += k;
		used += k;
		rc = ffdvb_pes_header_parse(r->hdr, r->hdr_len, &h);
		if (rc != -EAGAIN || r->hdr_len == sizeof(r->hdr))
			break;
		if (used == n)
			return n;
		tried = r->hdr_len;
	}
	if (rc > 0) {
		r->hdr_len = (size_t)rc;
		rp_out_begin(r, &h);
		return (size_t)rc - old;
	}
	for (end = tried + 1; end < r->hdr_len; end++) /* the byte that made it a bad header */
		if (ffdvb_pes_header_parse(r->hdr, end, &h) != -EAGAIN)
			break;
	r->hdr_len = end;
	r->stats.bad_headers++;
	reject(r);
	return end - old;
}

static size_t step_header(struct ffdvb_repacker *r, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (r->hdr_len >= 4 && ffdvb_pes_kind(r->hdr[3]) == FFDVB_PES_FORWARD)
			return i + header_forward(r, p + i, n - i);
		if (r->hdr_len >= sizeof(r->hdr)) { /* cannot happen: decisions come earlier */
			r->stats.bad_headers++;
			reject(r);
			return i;
		}
		r->hdr[r->hdr_len++] = p[i];
		if (header_decide(r))
			return i + 1;
	}
	return n;
}

static size_t step_skip(struct ffdvb_repacker *r, size_t n)
{
	size_t c = n < r->remaining ? n : r->remaining;

	r->remaining -= c;
	r->stats.skipped_bytes += c;
	if (r->remaining == 0) {
		r->zeros = 0;
		r->state = FFDVB_RP_SCAN;
	}
	return c;
}

/* Consumes at least one byte (n > 0); stops early when a header is decided so that the caller
 * can serve r->back first. */
static size_t step(struct ffdvb_repacker *r, const uint8_t *p, size_t n)
{
	switch (r->state) {
	case FFDVB_RP_HEADER:
		return step_header(r, p, n);
	case FFDVB_RP_DATA:
		return rp_out_payload(r, p, n);
	case FFDVB_RP_SKIP:
		return step_skip(r, n);
	case FFDVB_RP_SCAN:
		break;
	}
	return step_scan(r, p, n);
}

/* Scans the pushed-back bytes. A new rejection while doing so puts its own bytes in front of
 * the rest; each round is shorter than the one before, so this ends. */
static void drain_back(struct ffdvb_repacker *r)
{
	uint8_t tmp[sizeof(r->back)];

	while (r->back_len) {
		size_t k = r->back_len, off = 0;

		memcpy(tmp, r->back, k);
		r->back_len = 0;
		while (off < k) {
			off += step(r, tmp + off, k - off);
			if (r->back_len) {
				/* the new header came from tmp[0..off): back_len <= off - 3 */
				size_t rest = k - off;

				if (rest > sizeof(r->back) - r->back_len)
					rest = sizeof(r->back) - r->back_len; /* unreachable */
				memcpy(r->back + r->back_len, tmp + off, rest);
				r->back_len += rest;
				break;
			}
		}
	}
}

void rp_feed(struct ffdvb_repacker *r, const uint8_t *p, size_t n)
{
	for (;;) {
		if (r->back_len)
			drain_back(r);
		if (!n)
			return;
		size_t c = ffdvb_repacker_between_packets(r) ? rp_out_whole(r, p, n) : 0;

		if (!c)
			c = step(r, p, n);

		p += c;
		n -= c;
	}
}

size_t ffdvb_repacker_feed(struct ffdvb_repacker *r, const uint8_t *data, size_t len)
{
	rp_feed(r, data, len);
	return len;
}
