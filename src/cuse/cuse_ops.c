/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CUSE request handlers (open, release, read, write, poll) as thin shims onto the node ops,
 * plus the requests that wait: kept in a FIFO per device, retried in order after a wake-up,
 * answered with EINTR semantics after a FUSE interrupt or when their file goes away. */
#include "cuse_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <event2/event.h>
#include <linux/fuse.h>

static struct cuse_file *file_of(struct fuse_file_info *fi)
{
	return (struct cuse_file *)(uintptr_t)fi->fh;
}

/* The interrupt callback may run inside fuse_req_interrupt_func(), where answering the
 * request would free it under libfuse's feet: only mark it and let the wake event answer. */
static void on_interrupt(fuse_req_t req, void *data)
{
	struct cuse_pending *p = data;

	(void)req;
	p->interrupted = 1;
	event_active(p->cf->dev->ev_wake, 0, 0);
}

int ffdvb_cuse_pending_add(struct ffdvb_cuse_dev *dev, struct cuse_pending *p)
{
	if (dev->held_bytes + p->held > FFDVB_CUSE_HELD_MAX) {
		ffdvb_cuse_log_refused(dev, "a waiting request of %zu bytes refused (ENOMEM): %zu "
				       "bytes wait already", p->held, dev->held_bytes);
		return -ENOMEM;
	}
	dev->held_bytes += p->held;
	if (!dev->pending_tail)
		dev->pending_tail = &dev->pending;
	p->next = NULL;
	*dev->pending_tail = p;
	dev->pending_tail = &p->next;
	fuse_req_interrupt_func(p->req, on_interrupt, p);
	return 0;
}

static void pending_free(struct cuse_pending *p)
{
	p->cf->dev->held_bytes -= p->held;
	if (p->open_failed)
		free(p->cf);
	if (p->call)
		ffdvb_cuse_ioctl_call_free(p->call);
	free(p->data);
	free(p);
}

/* ---- read -------------------------------------------------------------------------------- */

/* Returns 1 when answered. */
static int read_step(struct cuse_pending *p)
{
	const struct ffdvb_node_ops *ops = p->cf->dev->ops;
	ssize_t n = ops->read(p->cf->file, p->data, p->len, p->nonblock);

	if (n == -FFDVB_EBLOCK) {
		if (!p->nonblock && !p->interrupted)
			return 0;
		n = p->interrupted ? -EINTR : -EAGAIN;
	}
	if (n < 0)
		cuse_reply_errno(p->req, (int)-n);
	else
		fuse_reply_buf(p->req, p->data, (size_t)n);
	return 1;
}

/* A heap copy of a request that has to wait, with its own data buffer of size bytes (the
 * caller fills it for writes); NULL when out of memory. */
static struct cuse_pending *pending_keep(const struct cuse_pending *first, size_t size)
{
	struct cuse_pending *p = malloc(sizeof(*p));

	if (!p)
		return NULL;
	*p = *first;
	p->data = malloc(size ? size : 1);
	if (!p->data) {
		free(p);
		return NULL;
	}
	return p;
}

/* The device's read buffer, grown to size; NULL when out of memory. */
static char *read_buf(struct ffdvb_cuse_dev *dev, size_t size)
{
	if (size > dev->read_buf_size) {
		char *b = realloc(dev->read_buf, size);

		if (!b)
			return NULL;
		dev->read_buf = b;
		dev->read_buf_size = size;
	}
	return dev->read_buf;
}

static void cuse_read(fuse_req_t req, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct cuse_file *cf = file_of(fi);
	struct cuse_pending first = {
		.kind = PENDING_READ, .req = req, .cf = cf, .len = size,
		.nonblock = !!(fi->flags & O_NONBLOCK),
	};
	struct cuse_pending *p;

	(void)off;
	if (!cf->dev->ops->read) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	/* the first attempt reads into the device's buffer: no allocation unless it waits */
	first.data = read_buf(cf->dev, size ? size : 1);
	if (!first.data) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (read_step(&first))
		return;
	p = pending_keep(&first, size);
	if (p)
		p->held = size;
	if (!p || ffdvb_cuse_pending_add(cf->dev, p) < 0) {
		if (p)
			free(p->data);
		free(p);
		fuse_reply_err(req, ENOMEM);
	}
}

/* ---- write ------------------------------------------------------------------------------- */

/* Feeds the data from *done on to the node. A blocking writer continues after partial
 * progress; an interrupted one gets the bytes taken so far, possibly 0 (av7110 semantics).
 * Returns 1 when the write is over (answer *done bytes, or the error *err when none were
 * taken), 0 when it waits, -1 when the node refused data in its room. */
static int write_feed(const struct ffdvb_node_ops *ops, void *file, const char *data, size_t len,
		      int nonblock, int interrupted, size_t *done, ssize_t *err)
{
	*err = 0;
	while (*done < len && !interrupted) {
		ssize_t n = ops->write(file, data + *done, len - *done, nonblock);

		if (n > 0) {
			*done += (size_t)n < len - *done ? (size_t)n : len - *done;
			if (nonblock)
				break; /* a short write ends a non-blocking write(2) */
			continue;
		}
		if (n == -EXDEV && *done == 0)
			return -1; /* not taken in the node's room: the caller moves the data */
		if (n == 0 || n == -EAGAIN || n == -FFDVB_EBLOCK) {
			if (!nonblock)
				return 0; /* wait for room */
			*err = -EAGAIN;
		} else {
			*err = n;
		}
		break;
	}
	return 1;
}

/* write_feed for a request of libfuse's: returns 1 when answered, 0 when it waits, -1 when
 * the node refused data in its room. */
static int write_step(struct cuse_pending *p, const char *data)
{
	ssize_t err;
	int r = write_feed(p->cf->dev->ops, p->cf->file, data, p->len, p->nonblock, p->interrupted,
			   &p->done, &err);

	if (r != 1)
		return r;
	if (p->done > 0 || err == 0)
		fuse_reply_write(p->req, p->done);
	else
		cuse_reply_errno(p->req, (int)-err);
	return 1;
}

static void cuse_write(fuse_req_t req, const char *buf, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct cuse_file *cf = file_of(fi);
	struct cuse_pending first = {
		.kind = PENDING_WRITE, .req = req, .cf = cf, .len = size,
		.nonblock = !!(fi->flags & O_NONBLOCK), /* FUSE passes the current file flags */
	};
	struct cuse_pending *p;
	const char *data;
	int r;

	(void)off;
	if (!cf->dev->ops->write) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	/* received into the node's room (cuse_rx.c): the node takes it there, or it moves back */
	data = cf->dev->rx_payload ? cf->dev->rx_payload : buf;
	cf->dev->rx_payload = NULL;
	cf->dev->last_write = size;
	first.done = cf->dev->write_done; /* what ffdvb_cuse_write_direct had fed already */
	cf->dev->write_done = 0;
	r = write_step(&first, data);
	if (r < 0) {
		memcpy((char *)buf, data, size);
		data = buf;
		r = write_step(&first, data);
	}
	if (r)
		return;
	/* blocked: keep a copy, the request buffer is reused for the next request */
	p = pending_keep(&first, size);
	if (p) {
		memcpy(p->data, data, size);
		p->held = size;
	}
	if (!p || ffdvb_cuse_pending_add(cf->dev, p) < 0) {
		if (p)
			free(p->data);
		free(p);
		if (first.done) /* what was taken counts: a short write */
			fuse_reply_write(req, first.done);
		else
			fuse_reply_err(req, ENOMEM);
	}
}

void ffdvb_cuse_send(struct ffdvb_cuse_dev *dev, int fd, const struct iovec *iov, int n)
{
	/* ENOENT: the caller was interrupted and the kernel dropped the request, as in libfuse */
	if (writev(fd, iov, n) < 0 && errno != ENOENT)
		ffdvb_cuse_log(dev, "writing /dev/cuse: %s", strerror(errno));
}

/* A write the node finishes at once, answered on the wire without libfuse: its dispatch
 * allocates a request, takes its session lock and builds the reply through several calls, in
 * all more instructions than the card's whole TS path for a 188-byte write, and in the TCG
 * test VM instructions are what a request costs (bench/README.md). A write that has to wait,
 * or whose data move back out of the node's room, goes to libfuse (cuse_write), told in
 * dev->write_done what was already fed. Returns 1 when answered here (on fd, the device's
 * /dev/cuse file). */
int ffdvb_cuse_write_direct(struct ffdvb_cuse_dev *dev, const struct fuse_buf *buf, int fd)
{
	const struct fuse_in_header *in = buf->mem;
	const struct fuse_write_in *wi = (const void *)(in + 1);
	const size_t head = sizeof(*in) + sizeof(*wi);
	struct fuse_out_header out = { .len = sizeof(out) };
	struct fuse_write_out wo = { 0 };
	struct iovec iov[2] = { { &out, sizeof(out) }, { &wo, sizeof(wo) } };
	struct cuse_file *cf;
	const char *data;
	size_t done = 0;
	ssize_t err;
	int nonblock, r;

	/* the kernel's CUSE speaks a protocol with the whole fuse_write_in (7.9 on) */
	if ((buf->flags & FUSE_BUF_IS_FD) || buf->size < head || in->opcode != FUSE_WRITE ||
	    in->len != buf->size || wi->size != buf->size - head || !wi->fh || !dev->ops->write)
		return 0;
	cf = (struct cuse_file *)(uintptr_t)wi->fh; /* what open gave the kernel (open_done) */
	nonblock = !!(wi->flags & O_NONBLOCK);      /* the current file flags, as libfuse's fi */
	data = dev->rx_payload ? dev->rx_payload : (const char *)(wi + 1);
	r = write_feed(dev->ops, cf->file, data, wi->size, nonblock, 0, &done, &err);
	if (r != 1) { /* it waits (libfuse's request is kept), or cuse_write moves it from the room */
		dev->write_done = done;
		return 0;
	}
	dev->last_write = wi->size;
	dev->rx_payload = NULL;
	out.unique = in->unique;
	if (done > 0 || err == 0) {
		wo.size = (uint32_t)done;
		out.len += sizeof(wo);
	} else {
		out.error = -ffdvb_marshal_reply_errno((int)-err);
		iov[0].iov_len = out.len;
	}
	ffdvb_cuse_send(dev, fd, iov, out.error ? 1 : 2);
	return 1;
}

/* ---- open -------------------------------------------------------------------------------- */

/* The node's open succeeded: the file joins the device and the caller gets it. */
static void open_done(fuse_req_t req, struct cuse_file *cf)
{
	struct ffdvb_cuse_dev *dev = cf->dev;
	struct fuse_file_info fi = { .flags = cf->flags, .direct_io = 1,
				     .fh = (uint64_t)(uintptr_t)cf };

	cf->next = dev->files;
	if (dev->files)
		dev->files->prev = cf;
	dev->files = cf;
	if (fuse_reply_open(req, &fi) < 0)
		ffdvb_cuse_file_release(cf); /* the caller is gone; no release will come */
}

/* An open that waits for its node (a remote tuner): returns 1 when answered. */
static int open_step(struct cuse_pending *p)
{
	struct ffdvb_cuse_dev *dev = p->cf->dev;
	int r = dev->ops->open_wait(p->cf->file, p->interrupted);

	if (r == -FFDVB_EBLOCK) {
		if (!p->interrupted)
			return 0;
		r = -EINTR;
	}
	if (r < 0) {
		if (dev->ops->release)
			dev->ops->release(p->cf->file);
		p->open_failed = 1;
		cuse_reply_errno(p->req, -r);
	} else {
		open_done(p->req, p->cf);
	}
	return 1;
}

/* ---- waiting requests -------------------------------------------------------------------- */

/* Returns 1 when answered; *advanced tells whether a still waiting request moved on. */
static int pending_step(struct cuse_pending *p, int *advanced)
{
	size_t done = p->done;
	int answered = 1;

	*advanced = 0;
	switch (p->kind) {
	case PENDING_READ:
		answered = read_step(p);
		break;
	case PENDING_WRITE:
		answered = write_step(p, p->data);
		*advanced = p->done != done;
		break;
	case PENDING_IOCTL:
		answered = ffdvb_cuse_ioctl_retry(p, advanced);
		break;
	case PENDING_OPEN:
		answered = open_step(p);
		break;
	}
	return answered;
}

int ffdvb_cuse_run_pending(struct ffdvb_cuse_dev *dev)
{
	struct cuse_pending *list = dev->pending, *keep = NULL, **keep_tail = &keep;
	int progress = 0, advanced;

	dev->pending = NULL;
	dev->pending_tail = &dev->pending;
	while (list) {
		struct cuse_pending *p = list;

		list = p->next;
		if (pending_step(p, &advanced)) {
			pending_free(p);
			progress++;
		} else {
			progress += advanced;
			p->next = NULL;
			*keep_tail = p;
			keep_tail = &p->next;
		}
	}
	/* nothing can have been added meanwhile: requests arrive only from the session fd */
	if (keep) {
		*keep_tail = dev->pending;
		if (!dev->pending)
			dev->pending_tail = keep_tail;
		dev->pending = keep;
	}
	return progress;
}

void ffdvb_cuse_flush_pending(struct ffdvb_cuse_dev *dev, struct cuse_file *cf)
{
	struct cuse_pending **pp = &dev->pending;

	while (*pp) {
		struct cuse_pending *p = *pp;

		if (cf && p->cf != cf) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		p->interrupted = 1;
		int advanced;

		if (!pending_step(p, &advanced))
			fuse_reply_err(p->req, EINTR); /* an op that insists on waiting */
		pending_free(p);
	}
	dev->pending_tail = pp;
}

/* ---- open, release, poll ----------------------------------------------------------------- */

static void cuse_open(fuse_req_t req, struct fuse_file_info *fi)
{
	struct ffdvb_cuse_dev *dev = fuse_req_userdata(req);
	struct cuse_file *cf = calloc(1, sizeof(*cf));
	int err;

	if (!cf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	cf->dev = dev;
	cf->flags = fi->flags;
	err = dev->ops->open ? dev->ops->open(dev->node, fi->flags, &cf->file) : 0;
	int waiting = err == -FFDVB_EBLOCK;

	if (waiting && dev->ops->open_wait) {
		struct cuse_pending *p = calloc(1, sizeof(*p));

		if (p) {
			p->kind = PENDING_OPEN;
			p->req = req;
			p->cf = cf;
			if (ffdvb_cuse_pending_add(dev, p) == 0)
				return;
		}
		free(p);
		err = -ENOMEM;
	}
	if (err < 0) {
		if (waiting && dev->ops->release)
			dev->ops->release(cf->file); /* a waiting open we could not keep */
		free(cf);
		cuse_reply_errno(req, -err);
		return;
	}
	open_done(req, cf);
}

void ffdvb_cuse_file_release(struct cuse_file *cf)
{
	struct ffdvb_cuse_dev *dev = cf->dev;

	if (cf->prev)
		cf->prev->next = cf->next;
	else
		dev->files = cf->next;
	if (cf->next)
		cf->next->prev = cf->prev;
	if (cf->ph) {
		fuse_pollhandle_destroy(cf->ph);
		dev->pollers--;
	}
	ffdvb_cuse_chain_free(cf->dev, cf->chain);
	if (dev->ops->release)
		dev->ops->release(cf->file);
	free(cf);
}

static void cuse_release(fuse_req_t req, struct fuse_file_info *fi)
{
	struct cuse_file *cf = file_of(fi);

	ffdvb_cuse_flush_pending(cf->dev, cf);
	ffdvb_cuse_file_release(cf);
	fuse_reply_err(req, 0);
}

static void cuse_poll(fuse_req_t req, struct fuse_file_info *fi, struct fuse_pollhandle *ph)
{
	struct cuse_file *cf = file_of(fi);
	unsigned int mask;

	if (!cf->dev->ops->poll) {
		/* the kernel then reports its default mask, as the VFS does without a poll op */
		if (ph)
			fuse_pollhandle_destroy(ph);
		fuse_reply_err(req, ENOSYS);
		return;
	}
	mask = cf->dev->ops->poll(cf->file);
	/* keep the handle even when ready now: a later change must still be notified */
	if (ph) {
		if (cf->ph)
			fuse_pollhandle_destroy(cf->ph);
		else
			cf->dev->pollers++;
		cf->ph = ph;
	}
	cf->last_mask = mask;
	fuse_reply_poll(req, mask);
}

void ffdvb_cuse_notify_pollers(struct ffdvb_cuse_dev *dev)
{
	for (struct cuse_file *cf = dev->files; cf; cf = cf->next) {
		if (!cf->ph)
			continue;
		unsigned int mask = dev->ops->poll(cf->file);

		if (mask == cf->last_mask)
			continue;
		/* one notification wakes the poller; the kernel polls again with a fresh handle */
		fuse_lowlevel_notify_poll(cf->ph);
		fuse_pollhandle_destroy(cf->ph);
		cf->ph = NULL;
		dev->pollers--;
		cf->last_mask = mask;
	}
}

/* the protocol libfuse agreed with the kernel: the direct ioctl reply needs 7.16's iovecs */
static void cuse_init(void *userdata, struct fuse_conn_info *conn)
{
	struct ffdvb_cuse_dev *dev = userdata;

	dev->proto_minor = conn->proto_minor;
}

const struct cuse_lowlevel_ops ffdvb_cuse_clop = {
	.init = cuse_init,
	.open = cuse_open,
	.release = cuse_release,
	.read = cuse_read,
	.write = cuse_write,
	.ioctl = ffdvb_cuse_ioctl,
	.poll = cuse_poll,
};
