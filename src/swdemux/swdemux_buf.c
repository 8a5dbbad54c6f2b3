/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dmxdev's ring (swdemux.h), the bounded buffer of a demux or dvr file: a write that does
 * not fit whole sets -EOVERFLOW and is dropped, and so is everything after it until read
 * reports it. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "swdemux_internal.h"

/* every adapter's buffers: the loop thread allocates, but tests and tuners may not */
static _Atomic size_t total;

size_t ffdvb_dmxbuf_total(void)
{
	return atomic_load(&total);
}

int ffdvb_dmxbuf_alloc(struct ffdvb_dmxbuf *b, size_t size)
{
	size_t old = b->data ? b->size : 0;

	if (size > FFDVB_DMX_BUFFER_MAX)
		return -ENOMEM;
	/* charge first, so that two allocations cannot both pass the limit */
	if (atomic_fetch_add(&total, size) + size - old > FFDVB_DMX_BUFFERS_MAX) {
		atomic_fetch_sub(&total, size);
		return -ENOMEM;
	}
	uint8_t *d = malloc(size ? size : 1);

	if (!d) {
		atomic_fetch_sub(&total, size);
		return -ENOMEM;
	}
	atomic_fetch_sub(&total, old);
	free(b->data);
	b->data = d;
	b->size = size;
	b->head = b->len = 0;
	b->error = 0;
	return 0;
}

void ffdvb_dmxbuf_release(struct ffdvb_dmxbuf *b)
{
	if (b->data)
		atomic_fetch_sub(&total, b->size);
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void ffdvb_dmxbuf_flush(struct ffdvb_dmxbuf *b)
{
	b->head = b->len = 0;
}

static void put(struct ffdvb_dmxbuf *b, const uint8_t *p, size_t n)
{
	size_t tail = (b->head + b->len) % b->size;
	size_t first = b->size - tail < n ? b->size - tail : n;

	memcpy(b->data + tail, p, first);
	memcpy(b->data, p + first, n - first);
	b->len += n;
}

int ffdvb_dmxbuf_write2(struct ffdvb_dmxbuf *b, const uint8_t *a, size_t alen, const uint8_t *c, size_t clen)
{
	int was_empty = b->len == 0;

	if (!b->data || b->error)
		return 0;
	if (b->size - b->len < alen + clen) {
		b->error = -EOVERFLOW;
		return 1;
	}
	put(b, a, alen);
	if (clen)
		put(b, c, clen);
	return was_empty && b->len > 0;
}

size_t ffdvb_dmxbuf_read(struct ffdvb_dmxbuf *b, uint8_t *out, size_t len)
{
	size_t n = len < b->len ? len : b->len;
	size_t first = b->size - b->head < n ? b->size - b->head : n;

	memcpy(out, b->data + b->head, first);
	memcpy(out + first, b->data, n - first);
	b->head = (b->head + n) % b->size;
	b->len -= n;
	if (!b->len)
		b->head = 0;
	return n;
}
