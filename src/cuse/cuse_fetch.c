/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Caller memory reads with process_vm_readv(2). */
#include "cuse_fetch.h"

#include <errno.h>
#include <stdint.h>
#include <sys/uio.h>
#include <unistd.h>

#define ROWS_PER_CALL 512 /* below IOV_MAX (1024) */

/* One contiguous range. Partial reads mean a fault part-way. */
static int read_range(pid_t pid, uint64_t addr, void *dst, size_t len)
{
	while (len > 0) {
		struct iovec local = { dst, len };
		struct iovec remote = { (void *)(uintptr_t)addr, len };
		ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

		if (n < 0)
			return -errno;
		if (n == 0)
			return -EFAULT;
		addr += (size_t)n;
		dst = (char *)dst + n;
		len -= (size_t)n;
	}
	return 0;
}

static ssize_t read_rows(pid_t pid, const struct ffdvb_payload *p, unsigned char *dst)
{
	struct iovec remote[ROWS_PER_CALL];

	for (size_t row = 0; row < p->rows;) {
		size_t n = p->rows - row < ROWS_PER_CALL ? p->rows - row : ROWS_PER_CALL;
		struct iovec local = { dst + row * p->width, n * p->width };

		for (size_t i = 0; i < n; i++) {
			/* wraps like the caller's own pointer arithmetic would; then it faults */
			uint64_t a = p->addr + (uint64_t)(row + i) * p->stride;

			remote[i].iov_base = (void *)(uintptr_t)a;
			remote[i].iov_len = p->width;
		}
		ssize_t got = process_vm_readv(pid, &local, 1, remote, n, 0);

		if (got < 0)
			return -errno;
		if ((size_t)got != local.iov_len)
			return -EFAULT;
		row += n;
	}
	return (ssize_t)p->len;
}

static ssize_t read_string(pid_t pid, const struct ffdvb_payload *p, char *dst)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), have = 0, piece;

	while ((piece = ffdvb_marshal_string_piece(p->addr, have, p->len, page)) > 0) {
		int err = read_range(pid, p->addr + have, dst + have, piece);

		if (err < 0)
			return err;
		size_t at = ffdvb_marshal_string_len(dst + have, piece);

		if (at)
			return (ssize_t)(have + at);
		have += piece;
	}
	return (ssize_t)have;
}

ssize_t ffdvb_fetch_payload(pid_t pid, const struct ffdvb_payload *p, void *dst)
{
	if (pid <= 0)
		return -ESRCH;
	switch (p->kind) {
	case FFDVB_PAYLOAD_BLOCK: {
		int err = read_range(pid, p->addr, dst, p->len);

		return err < 0 ? err : (ssize_t)p->len;
	}
	case FFDVB_PAYLOAD_ROWS:
		return read_rows(pid, p, dst);
	case FFDVB_PAYLOAD_STRING:
		return read_string(pid, p, dst);
	default:
		return -EINVAL;
	}
}
