/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CUSE ioctl handling (CUSE_UNRESTRICTED_IOCTL): gets the argument the way dvb-core does,
 * follows embedded pointers, converts 32-bit layouts, calls the node and copies results out.
 *
 * Every request starts with no data. The fixed argument (_IOC_SIZE bytes) is fetched with one
 * fuse_reply_ioctl_retry() round; for _IOC_READ requests the same round names the copy-out
 * area. Pointed-to payloads then travel one of two ways:
 *   - process_vm_readv() on the caller's pid (fuse_req_ctx), the normal path: one call, any
 *     size (a 1 MB still picture, a 720x576 OSD block of 576 rows at any stride), and a bad
 *     pointer reaches the node as data_fault so that it can answer EINVAL or EFAULT as av7110;
 *   - more retry rounds naming the payload, when the caller's memory cannot be read that way
 *     (no ptrace permission: ffdvbd after its privilege drop keeps no CAP_SYS_PTRACE, and the
 *     first EPERM switches the device to retries for every caller; or FFDVB_CUSE_NO_VM_READV
 *     set in the environment). One retry
 *     carries at most 32 pages and 256 iovecs; a larger payload is collected in chunks over
 *     chained retries, kept per file and keyed on (caller pid, request, argument pointer,
 *     argument bytes); a new call from the file replaces an abandoned collection. A bad
 *     pointer is answered EFAULT by the kernel itself in this mode (NULL excepted: it is
 *     refused before any fetch, as data_fault, in both modes).
 * DVBv5 property arrays are small (64 x 76 bytes) and always use the retry round, in and
 * (FE_GET_PROPERTY) out, as dvb-core copies them with EFAULT on failure.
 * Apart from chains, the stage of a request follows from in_bufsz alone. */
#include "cuse_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/fuse.h>

#include "cuse_fetch.h"

/* the kernel refuses ioctl transfers above its max_pages (32 for CUSE) */
#define XFER_MAX (32u * 4096u)
#define IOV_MAX_RETRY 256 /* FUSE_IOCTL_MAX_IOV: in + out iovecs of one retry */
#define NATIVE_INLINE 256 /* arguments up to this size need no allocation (FE_GET_INFO: 168) */

/* One ioctl request. It lives on the stack of ffdvb_cuse_ioctl() and is copied to the heap
 * only when the node makes it wait. */
struct cuse_ioctl_call {
	struct ffdvb_ioctl_layout lo;
	struct ffdvb_payload pl;
	struct ffdvb_ioctl io;
	unsigned char *native;     /* lo.native_size bytes: inline_native or allocated */
	unsigned char *payload;    /* pl.len bytes */
	size_t out_limit;          /* out_bufsz: the copy-out area the kernel prepared */
	_Alignas(max_align_t) unsigned char inline_native[NATIVE_INLINE]; /* last: not cleared */
};

/* Frees what the call owns, not the call itself. */
static void call_release(struct cuse_ioctl_call *call)
{
	if (call->native != call->inline_native)
		free(call->native);
	free(call->payload);
}

/* A heap copy of a call that has to wait; it takes over the payload and the argument. */
static struct cuse_ioctl_call *call_keep(const struct cuse_ioctl_call *call)
{
	struct cuse_ioctl_call *kept = malloc(sizeof(*kept));

	if (!kept)
		return NULL;
	memcpy(kept, call, sizeof(*kept));
	if (call->native == call->inline_native) {
		kept->native = kept->inline_native;
		if (call->io.buf == call->inline_native)
			kept->io.buf = kept->native;
	}
	return kept;
}

void ffdvb_cuse_ioctl_call_free(struct cuse_ioctl_call *call)
{
	if (!call)
		return;
	call_release(call);
	free(call);
}

static struct cuse_file *file_of(struct fuse_file_info *fi)
{
	return (struct cuse_file *)(uintptr_t)fi->fh;
}

/* The retry round: the argument, then optionally one payload region (rows: one iovec each). */
static void reply_retry(fuse_req_t req, const struct cuse_ioctl_call *call, uint64_t uarg,
			const struct iovec *extra_in, size_t n_extra_in, int props_out)
{
	struct iovec in[IOV_MAX_RETRY], out[2];
	size_t n_in = 0, n_out = 0;

	in[n_in++] = (struct iovec){ (void *)(uintptr_t)uarg, call->lo.user_size };
	for (size_t i = 0; i < n_extra_in; i++)
		in[n_in++] = extra_in[i];
	if (call->lo.copy_out)
		out[n_out++] = (struct iovec){ (void *)(uintptr_t)uarg, call->lo.user_size };
	if (props_out)
		out[n_out++] = extra_in[0];
	fuse_reply_ioctl_retry(req, in, n_in, n_out ? out : NULL, n_out);
}

/* A payload collected over chained retries (see the top of this file). */
struct cuse_chain {
	pid_t pid;
	unsigned int cmd;
	uint64_t arg;
	unsigned char argbytes[64];  /* the argument as the caller had it in the first round */
	struct ffdvb_payload pl;
	unsigned char *buf;          /* pl.len bytes */
	size_t have;                 /* bytes collected */
	size_t asked;                /* bytes asked for in the last round */
};

void ffdvb_cuse_chain_free(struct ffdvb_cuse_dev *dev, struct cuse_chain *chain)
{
	if (!chain)
		return;
	dev->held_bytes -= chain->pl.len;
	free(chain->buf);
	free(chain);
}

/* Chained retries for a BLOCK or ROWS payload too large for one round. Returns 1 when a
 * retry was sent, 0 when the payload is complete in call->payload. */
static int fetch_by_chain(fuse_req_t req, struct cuse_file *cf, struct cuse_ioctl_call *call,
			  uint64_t uarg, const unsigned char *arg, const unsigned char *got,
			  size_t have)
{
	struct cuse_chain *c = cf->chain;
	pid_t pid = fuse_req_ctx(req)->pid;
	size_t us = call->lo.user_size;
	struct iovec iov[IOV_MAX_RETRY];

	if (c && (have == 0 || c->pid != pid || c->cmd != call->lo.native_cmd || c->arg != uarg ||
		  memcmp(c->argbytes, arg, us) != 0 || have != c->asked ||
		  c->pl.len != call->pl.len)) {
		/* a new call, or a different one: start over */
		ffdvb_cuse_chain_free(cf->dev, c);
		cf->chain = c = NULL;
		have = 0;
	}
	if (!c) {
		/* the collected part stays between the caller's rounds: charged like a parked call */
		if (cf->dev->held_bytes + call->pl.len > FFDVB_CUSE_HELD_MAX) {
			ffdvb_cuse_log_refused(cf->dev, "a payload of %zu bytes refused (ENOMEM): %zu "
					       "bytes wait already", call->pl.len, cf->dev->held_bytes);
			return -ENOMEM;
		}
		c = calloc(1, sizeof(*c));
		if (!c || !(c->buf = malloc(call->pl.len))) {
			free(c);
			return -ENOMEM;
		}
		cf->dev->held_bytes += call->pl.len;
		c->pid = pid;
		c->cmd = call->lo.native_cmd;
		c->arg = uarg;
		memcpy(c->argbytes, arg, us);
		c->pl = call->pl;
		cf->chain = c;
	} else {
		memcpy(c->buf + c->have, got, have);
		c->have += have;
	}
	if (c->have == c->pl.len) {
		memcpy(call->payload, c->buf, c->pl.len);
		call->io.data_len = c->pl.len;
		ffdvb_cuse_chain_free(cf->dev, c);
		cf->chain = NULL;
		return 0;
	}
	size_t n = ffdvb_marshal_chunk(&c->pl, c->have, XFER_MAX - us, iov, IOV_MAX_RETRY - 2,
				       &c->asked);

	if (n == 0)
		return -E2BIG; /* a row wider than one transfer: cannot happen with w <= 720 */
	reply_retry(req, call, uarg, iov, n, 0);
	return 1;
}

static size_t props_user_len(const struct ffdvb_payload *pl)
{
	return pl->count * pl->user_elem;
}

/* Payload through retry rounds. Returns 1 when a retry was sent, 0 when the payload is in
 * call->payload (io.data_len set), -errno on failure. */
static int fetch_by_retry(fuse_req_t req, struct cuse_file *cf, struct cuse_ioctl_call *call,
			  uint64_t uarg, const unsigned char *arg, const unsigned char *got,
			  size_t have)
{
	const struct ffdvb_payload *pl = &call->pl;
	struct iovec iov[IOV_MAX_RETRY];
	size_t us = call->lo.user_size;

	if (pl->kind == FFDVB_PAYLOAD_BLOCK || pl->kind == FFDVB_PAYLOAD_ROWS) {
		size_t n = pl->kind == FFDVB_PAYLOAD_BLOCK || pl->stride == pl->width ? 1 : pl->rows;

		if (us + pl->len > XFER_MAX || n + 2 > IOV_MAX_RETRY) {
			if (us > sizeof(((struct cuse_chain *)0)->argbytes))
				return -E2BIG; /* only still pictures and OSD commands get here */
			return fetch_by_chain(req, cf, call, uarg, arg, got, have);
		}
	}
	switch (pl->kind) {
	case FFDVB_PAYLOAD_BLOCK:
		if (have == pl->len) {
			memcpy(call->payload, got, have);
			call->io.data_len = have;
			return 0;
		}
		iov[0] = (struct iovec){ (void *)(uintptr_t)pl->addr, pl->len };
		reply_retry(req, call, uarg, iov, 1, 0);
		return 1;
	case FFDVB_PAYLOAD_ROWS: {
		int contiguous = pl->stride == pl->width;
		size_t n = contiguous ? 1 : pl->rows;

		if (have == pl->len) {
			memcpy(call->payload, got, have);
			call->io.data_len = have;
			return 0;
		}
		for (size_t r = 0; r < n; r++)
			iov[r] = (struct iovec){ (void *)(uintptr_t)(pl->addr + r * pl->stride),
						 contiguous ? pl->len : pl->width };
		reply_retry(req, call, uarg, iov, n, 0);
		return 1;
	}
	case FFDVB_PAYLOAD_STRING: {
		size_t len = have ? ffdvb_marshal_string_len(got, have) : 0;
		size_t page = (size_t)sysconf(_SC_PAGESIZE), piece;

		if (!len && have >= pl->len)
			len = pl->len;
		if (len) {
			memcpy(call->payload, got, len);
			call->io.data_len = len;
			return 0;
		}
		/* extend up to the next page end of the caller: never touch a page beyond the NUL */
		piece = ffdvb_marshal_string_piece(pl->addr, have, pl->len, page);
		iov[0] = (struct iovec){ (void *)(uintptr_t)pl->addr, have + piece };
		reply_retry(req, call, uarg, iov, 1, 0);
		return 1;
	}
	case FFDVB_PAYLOAD_PROPS: {
		size_t ulen = props_user_len(pl);

		if (have == ulen) {
			ffdvb_marshal_props_in(call->lo.compat, got,
					       (struct dtv_property *)call->payload, pl->count);
			call->io.data_len = pl->len;
			return 0;
		}
		iov[0] = (struct iovec){ (void *)(uintptr_t)pl->addr, ulen };
		reply_retry(req, call, uarg, iov, 1, pl->copy_out);
		return 1;
	}
	default:
		return 0;
	}
}

/* Answers the request with the node's result; copies out on success. */
static void finish(fuse_req_t req, struct cuse_ioctl_call *call, int ret)
{
	unsigned char small[256], *out = small;
	size_t out_len = 0, props_len = 0;

	if (ret < 0) {
		cuse_reply_errno(req, -ret);
		return;
	}
	if (call->lo.copy_out)
		out_len = call->lo.user_size;
	if (call->pl.kind == FFDVB_PAYLOAD_PROPS && call->pl.copy_out && call->io.data)
		props_len = props_user_len(&call->pl);
	if (out_len + props_len == 0) {
		fuse_reply_ioctl(req, ret, NULL, 0);
		return;
	}
	if (out_len + props_len > sizeof(small) && !(out = malloc(out_len + props_len))) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (out_len)
		ffdvb_marshal_arg_out(&call->lo, call->native, out);
	if (props_len)
		ffdvb_marshal_props_out(call->lo.compat, (const struct dtv_property *)call->payload,
					out + out_len, call->pl.count);
	size_t n = out_len + props_len;

	fuse_reply_ioctl(req, ret, out, n < call->out_limit ? n : call->out_limit);
	if (out != small)
		free(out);
}

static int call_node(struct cuse_file *cf, struct cuse_ioctl_call *call)
{
	int ret = cf->dev->ops->ioctl(cf->file, &call->io);

	if (ret == -FFDVB_EBLOCK && call->io.interrupted)
		ret = -EINTR; /* the node must not wait any longer */
	return ret;
}

/* Calls the node and answers, or parks the request when the node has to wait. */
static void run(fuse_req_t req, struct cuse_file *cf, struct cuse_ioctl_call *call)
{
	int ret = call_node(cf, call);

	if (ret == -FFDVB_EBLOCK) {
		struct cuse_pending *p = calloc(1, sizeof(*p));

		if (p && (p->call = call_keep(call))) {
			p->kind = PENDING_IOCTL;
			p->req = req;
			p->cf = cf;
			p->held = call->pl.len + call->lo.native_size;
			if (ffdvb_cuse_pending_add(cf->dev, p) == 0)
				return;
			free(p->call); /* the payload stays ours: released below */
		}
		free(p);
		ret = -ENOMEM;
	}
	finish(req, call, ret);
	call_release(call);
}

int ffdvb_cuse_ioctl_retry(struct cuse_pending *p, int *advanced)
{
	struct cuse_ioctl_call *call = p->call;
	size_t before = call->io.progress;
	int ret;

	call->io.interrupted = p->interrupted;
	ret = call_node(p->cf, call);
	*advanced = call->io.progress != before;
	if (ret == -FFDVB_EBLOCK)
		return 0;
	finish(p->req, call, ret);
	return 1;
}

/* The payload of a call whose argument has arrived. Returns 1 when a retry was sent (the
 * request is answered for now), 0 when the node can be called, <0 to answer with an error. */
static int fetch_payload(fuse_req_t req, struct cuse_file *cf, struct cuse_ioctl_call *call,
			 uint64_t uarg, const unsigned char *arg, size_t have)
{
	struct ffdvb_cuse_dev *dev = cf->dev;
	struct ffdvb_payload *pl = &call->pl;

	call->payload = malloc(pl->len ? pl->len : 1);
	if (!call->payload)
		return -ENOMEM;
	call->io.data = call->payload;
	/* NULL is unreadable whichever way: the node answers as for any bad pointer (by retry,
	   the kernel would answer EFAULT before the node could) */
	if (pl->addr == 0 && pl->len > 0)
		goto fault;
	if (pl->kind != FFDVB_PAYLOAD_PROPS && have == 0 && dev->use_vm_readv) {
		ssize_t n = ffdvb_fetch_payload(fuse_req_ctx(req)->pid, pl, call->payload);

		if (n >= 0) {
			call->io.data_len = (size_t)n;
			return 0;
		}
		if (n == -EFAULT) {
			ffdvb_cuse_log_refused(dev, "ioctl 0x%08x: caller memory at 0x%llx unreadable",
					       call->lo.native_cmd, (unsigned long long)pl->addr);
			goto fault;
		}
		if (n == -EPERM || n == -ENOSYS) {
			/* not ours to read (no CAP_SYS_PTRACE after the privilege drop, another
			   user's caller): the retries serve every caller from now on, so that all
			   see the same behaviour */
			dev->use_vm_readv = 0;
			ffdvb_cuse_log(dev, "callers' memory is not readable "
				       "(%s): ioctl payloads come through CUSE retries",
				       strerror((int)-n));
		}
	}
	int r = fetch_by_retry(req, cf, call, uarg, arg, arg + call->lo.user_size, have);

	if (r >= 0 || r == -ENOMEM)
		return r; /* ENOMEM: over FFDVB_CUSE_HELD_MAX, refused and logged already */
	ffdvb_cuse_log_refused(dev, "ioctl 0x%08x: %zu-byte payload cannot be fetched (%s)",
			       call->lo.native_cmd, pl->len, strerror(-r));
fault:
	call->io.data = NULL;
	call->io.data_len = 0;
	call->io.data_fault = 1;
	return 0;
}

int ffdvb_cuse_ioctl_direct(struct ffdvb_cuse_dev *dev, const struct fuse_buf *buf, int fd)
{
	const struct fuse_in_header *in = buf->mem;
	const struct fuse_ioctl_in *ii = (const void *)(in + 1);
	struct ffdvb_ioctl_layout lo;
	struct fuse_out_header out = { .unique = 0 };
	struct fuse_ioctl_out io = { .flags = FUSE_IOCTL_RETRY, .in_iovs = 1 };
	struct fuse_ioctl_iovec arg[2];
	struct iovec wire[3] = { { &out, sizeof(out) }, { &io, sizeof(io) }, { arg, sizeof(arg[0]) } };

	/* FUSE_IOCTL_DIR goes to libfuse, which refuses it (CUSE has no directories) */
	if ((buf->flags & FUSE_BUF_IS_FD) || buf->size < sizeof(*in) + sizeof(*ii) ||
	    in->opcode != FUSE_IOCTL || in->len != buf->size || !ii->fh || !dev->ops->ioctl ||
	    (ii->flags & FUSE_IOCTL_DIR) || dev->proto_minor < 16)
		return 0;
	ffdvb_marshal_layout(ii->cmd, !!(ii->flags & FUSE_IOCTL_COMPAT), &lo);
	if (lo.user_size == 0 || ii->in_size >= lo.user_size)
		return 0; /* not the argument's round */
	/* what reply_retry asks for without extra regions */
	arg[0] = (struct fuse_ioctl_iovec){ .base = ii->arg, .len = lo.user_size };
	if (lo.copy_out) {
		arg[1] = arg[0];
		io.out_iovs = 1;
		wire[2].iov_len += sizeof(arg[1]);
	}
	out.unique = in->unique;
	out.len = (uint32_t)(sizeof(out) + sizeof(io) + wire[2].iov_len);
	ffdvb_cuse_send(dev, fd, wire, 3);
	return 1;
}

void ffdvb_cuse_ioctl(fuse_req_t req, int cmd, void *arg, struct fuse_file_info *fi,
		      unsigned int flags, const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	struct cuse_file *cf = file_of(fi);
	struct ffdvb_cuse_dev *dev = cf->dev;
	uint64_t uarg = (uint64_t)(uintptr_t)arg;
	struct cuse_ioctl_call call_on_stack, *call = &call_on_stack;
	int err;

	if (!dev->ops->ioctl) {
		fuse_reply_err(req, ENOTTY);
		return;
	}
	memset(call, 0, offsetof(struct cuse_ioctl_call, inline_native));
	ffdvb_marshal_layout((unsigned int)cmd, !!(flags & FUSE_IOCTL_COMPAT), &call->lo);
	call->io.cmd = call->lo.native_cmd;
	call->io.arg = (unsigned long)uarg;
	call->io.nonblock = !!(cf->flags & O_NONBLOCK); /* ioctls do not see F_SETFL changes */
	call->out_limit = out_bufsz;

	if (call->lo.user_size > 0) {
		if (in_bufsz < call->lo.user_size) {
			/* first round: fetch the argument (EFAULT from the kernel if unreadable) */
			reply_retry(req, call, uarg, NULL, 0, 0);
			return;
		}
		call->native = call->lo.native_size <= NATIVE_INLINE ? call->inline_native
								     : malloc(call->lo.native_size);
		if (!call->native) {
			err = -ENOMEM;
			goto answer;
		}
		memset(call->native, 0, call->lo.native_size);
		ffdvb_marshal_arg_in(&call->lo, in_buf, call->native);
		call->io.buf = call->native;
		err = ffdvb_marshal_payload(&call->lo, call->native, &call->pl);
		if (err == -EFBIG) { /* too large to hold: the node answers as for a bad pointer */
			call->io.data_fault = 1;
			err = 0;
		} else if (err < 0) {
			ffdvb_cuse_log_refused(dev, "ioctl 0x%08x refused (%s)", (unsigned int)cmd,
					       strerror(-err));
			goto answer;
		}
		if (call->pl.kind != FFDVB_PAYLOAD_NONE) {
			err = fetch_payload(req, cf, call, uarg, in_buf,
					    in_bufsz - call->lo.user_size);
			if (err == 1) {
				call_release(call);
				return;
			}
			if (err < 0)
				goto answer;
		}
	}
	run(req, cf, call);
	return;
answer:
	cuse_reply_errno(req, -err);
	call_release(call);
}
