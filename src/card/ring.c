/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Byte ring between the write path and the decoder (without a decoder: the drain). One byte
 * stays free so that rd == wr means empty, which gives the usable capacity size - 1 of
 * dvb_ringbuffer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "card_internal.h"

int card_ring_init(struct card_ring *r, size_t size)
{
	r->buf = malloc(size);
	if (!r->buf)
		return -ENOMEM;
	r->size = size;
	r->rd = r->wr = 0;
	return 0;
}

void card_ring_release(struct card_ring *r)
{
	free(r->buf);
	r->buf = NULL;
}

size_t card_ring_put(struct card_ring *r, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t n = len < card_ring_space(r) ? len : card_ring_space(r);
	size_t first = r->size - r->wr;

	if (first > n)
		first = n;
	if (p != r->buf + r->wr) /* else received in place (card_write_room) */
		memcpy(r->buf + r->wr, p, first);
	memcpy(r->buf, p + first, n - first);
	r->wr = (r->wr + n) % r->size;
	return n;
}

size_t card_ring_skip(struct card_ring *r, size_t len)
{
	size_t n = len < card_ring_fill(r) ? len : card_ring_fill(r);

	r->rd = (r->rd + n) % r->size;
	return n;
}

void card_ring_flush(struct card_ring *r)
{
	r->rd = r->wr = 0;
}

size_t card_ring_peek(const struct card_ring *r, void *out, size_t len)
{
	uint8_t *p = out;
	size_t n = len < card_ring_fill(r) ? len : card_ring_fill(r);
	size_t first = r->size - r->rd;

	if (first > n)
		first = n;
	memcpy(p, r->buf + r->rd, first);
	memcpy(p + first, r->buf, n - first);
	return n;
}

uint8_t card_ring_at(const struct card_ring *r, size_t off)
{
	size_t i = r->rd + off;

	return r->buf[i < r->size ? i : i - r->size];
}

void card_ring_span(const struct card_ring *r, size_t len, const uint8_t **a, size_t *alen,
		    const uint8_t **b, size_t *blen)
{
	size_t first = r->size - r->rd;

	if (first > len)
		first = len;
	*a = r->buf + r->rd;
	*alen = first;
	*b = r->buf;
	*blen = len - first;
}
