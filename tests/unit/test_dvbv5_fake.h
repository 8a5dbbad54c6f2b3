/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fake dvbv5-daemon's side of the wire, shared by test_dvbv5_wire and
 * test_tuner_remote_stale: payloads built of big-endian ints and length-prefixed strings,
 * whole reads and writes, and frames (length + payload) sent in one write, so that a TCP
 * peer never waits for a delayed ACK between the two. */
#ifndef FFDVB_TEST_DVBV5_FAKE_H
#define FFDVB_TEST_DVBV5_FAKE_H

#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

struct buf {
	uint8_t b[40000];
	size_t n;
};

static inline void b_raw(struct buf *b, const void *p, size_t n)
{
	if (n > sizeof(b->b) - b->n)
		n = sizeof(b->b) - b->n; /* no test frame comes near */
	if (n)
		memcpy(b->b + b->n, p, n);
	b->n += n;
}

static inline void b_i(struct buf *b, int32_t v)
{
	uint32_t u = htonl((uint32_t)v);

	b_raw(b, &u, 4);
}

static inline void b_s(struct buf *b, const char *s)
{
	b_i(b, (int32_t)strlen(s));
	b_raw(b, s, strlen(s));
}

/* all n bytes through read or write: 0, or -1 when the peer is gone */
static inline int io_all(int fd, void *p, size_t n, int writing)
{
	uint8_t *c = p;

	while (n) {
		ssize_t k = writing ? write(fd, c, n) : read(fd, c, n);

		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

static inline int write_all(int fd, const void *p, size_t n)
{
	return io_all(fd, (void *)p, n, 1);
}

static inline int read_all(int fd, void *p, size_t n)
{
	return io_all(fd, p, n, 0);
}

/* one frame: the payload's length, then the payload, in one write */
static inline int send_frame(int fd, const struct buf *payload)
{
	static struct buf f; /* one sender per test process at a time */

	f.n = 0;
	b_i(&f, (int32_t)payload->n);
	b_raw(&f, payload->b, payload->n);
	return write_all(fd, f.b, f.n);
}

#endif
