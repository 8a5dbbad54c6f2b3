/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internals of the CUSE transport shared by its files: the device, its open files and the
 * requests that wait for a wake-up. Everything runs on the loop thread. */
#ifndef FFDVB_CUSE_INTERNAL_H
#define FFDVB_CUSE_INTERNAL_H

#define FUSE_USE_VERSION 35
#include <errno.h>

#include <cuse_lowlevel.h>
#include <fuse_lowlevel.h>

#include <stdarg.h>
#include <time.h>

#include "ffdvb/cuse.h"
#include "abi/marshal.h"

struct event;

/* One open(2) of the node; fi->fh points here. */
struct cuse_file {
	struct ffdvb_cuse_dev *dev;
	void *file;                  /* the node's per-open context */
	int flags;                   /* open(2) flags */
	struct fuse_pollhandle *ph;  /* last poll's handle, notified once when the mask changes */
	unsigned int last_mask;      /* mask the last poll reply reported */
	struct cuse_chain *chain;    /* payload being collected over several ioctl retries */
	struct cuse_file *prev, *next;
};

enum cuse_pending_kind { PENDING_READ, PENDING_WRITE, PENDING_IOCTL, PENDING_OPEN };

/* A request an operation could not finish yet (-FFDVB_EBLOCK, or -EAGAIN of a blocking
 * write). It owns copies of everything the operation needs. */
struct cuse_pending {
	struct cuse_pending *next;
	enum cuse_pending_kind kind;
	fuse_req_t req;
	struct cuse_file *cf;
	int interrupted;             /* set by the FUSE interrupt callback */
	size_t len;                  /* read: bytes asked; write: bytes in data */
	size_t done;                 /* write: bytes consumed so far */
	int nonblock;
	size_t held;                 /* bytes charged to the device's FFDVB_CUSE_HELD_MAX */
	char *data;                  /* write data / read buffer */
	struct cuse_ioctl_call *call;
	int open_failed;             /* open: cf is not the device's, freed with the request */
};

/* rate limit for messages about refused requests: a burst, then one line per interval */
struct cuse_ratelimit {
	time_t window;
	unsigned int printed, suppressed;
};

struct ffdvb_cuse_dev {
	struct event_base *base;
	struct fuse_session *se;
	struct event *ev_read;       /* the /dev/cuse fd */
	struct event *ev_wake;       /* activated by ffdvb_cuse_dev_wake and interrupts */
	struct fuse_buf fbuf;        /* receive buffer, reused */
	struct fuse_buf rx;          /* receive buffer beside a node's room (cuse_rx.c) */
	struct fuse_buf *in;         /* the one the last request was received into */
	void *rx_payload;            /* the last request is a write whose data lie here */
	int rx_off;                  /* the kernel refused cuse_rx.c's read: libfuse's only */
	size_t last_write;           /* size of the last write: a room is asked after large ones */
	size_t write_done;           /* fed by ffdvb_cuse_write_direct, which then left it to libfuse */
	unsigned int proto_minor;    /* the FUSE protocol the kernel speaks (libfuse's init) */
	const struct ffdvb_node_ops *ops;
	void *node;
	char *devname;
	struct ffdvb_cuse_config cfg;
	int use_vm_readv;            /* 0: payloads only through the retry protocol */
	struct cuse_file *files;
	int pollers;                 /* files holding a poll handle */
	struct cuse_pending *pending;  /* FIFO */
	struct cuse_pending **pending_tail; /* where the next one goes: adding is O(1) */
	size_t held_bytes;           /* pending requests' and chains' buffers (FFDVB_CUSE_HELD_MAX) */
	char *read_buf;              /* a read's first attempt, reused (see cuse_read) */
	size_t read_buf_size;
	struct cuse_ratelimit rl;
	int dead;                    /* the kernel closed the connection */
	int wake_requested;          /* woken while a retry pass ran (see cuse_dev.c) */
	struct ffdvb_cuse_dev *next_dev;  /* all devices of the loop thread */
};

/* cuse_rx.c: receives the next request (fuse_session_receive_buf's result), a write's data
 * into the node's room where it offers one; dev->in is the buffer to process. */
int ffdvb_cuse_receive(struct ffdvb_cuse_dev *dev);

/* cuse_ops.c */
extern const struct cuse_lowlevel_ops ffdvb_cuse_clop;
/* Parks p, charging p->held bytes; -ENOMEM (p not taken, refusal logged) above
 * FFDVB_CUSE_HELD_MAX. */
int ffdvb_cuse_pending_add(struct ffdvb_cuse_dev *dev, struct cuse_pending *p);
/* Retries the pending requests of dev in order; answers interrupted ones. Returns how many
 * made progress (answered, or advanced their write/ioctl progress). */
int ffdvb_cuse_run_pending(struct ffdvb_cuse_dev *dev);
/* Answers every pending request of cf (cf NULL: of the device) as if interrupted. */
void ffdvb_cuse_flush_pending(struct ffdvb_cuse_dev *dev, struct cuse_file *cf);
/* Re-evaluates poll masks and notifies pollers whose mask changed. */
void ffdvb_cuse_notify_pollers(struct ffdvb_cuse_dev *dev);
void ffdvb_cuse_file_release(struct cuse_file *cf);

/* cuse_ioctl.c */
void ffdvb_cuse_ioctl(fuse_req_t req, int cmd, void *arg, struct fuse_file_info *fi,
		      unsigned int flags, const void *in_buf, size_t in_bufsz, size_t out_bufsz);
/* Calls the operation again for a pending ioctl; returns 1 when answered, 0 still waiting;
 * *advanced set when the operation's progress value changed. */
int ffdvb_cuse_ioctl_retry(struct cuse_pending *p, int *advanced);
void ffdvb_cuse_ioctl_call_free(struct cuse_ioctl_call *call);
void ffdvb_cuse_chain_free(struct ffdvb_cuse_dev *dev, struct cuse_chain *chain);

/* cuse_log.c */
void ffdvb_cuse_log(struct ffdvb_cuse_dev *dev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* rate-limited, for requests refused because of the caller's input */
void ffdvb_cuse_log_refused(struct ffdvb_cuse_dev *dev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Replies an error, as the wire can carry it (ffdvb_marshal_reply_errno). */
static inline int cuse_reply_errno(fuse_req_t req, int err)
{
	return fuse_reply_err(req, ffdvb_marshal_reply_errno(err));
}

/* cuse_ops.c: answers a write received in buf on fd (the session's) without libfuse when the
 * node finishes it at once; returns 1 when answered, 0 for libfuse to handle the request */
int ffdvb_cuse_write_direct(struct ffdvb_cuse_dev *dev, const struct fuse_buf *buf, int fd);
/* An answer written to /dev/cuse (fd) without libfuse, as the two direct paths write theirs */
void ffdvb_cuse_send(struct ffdvb_cuse_dev *dev, int fd, const struct iovec *iov, int n);
/* cuse_ioctl.c: the first round of an ioctl with an argument (the retry that asks for it),
 * answered on fd without libfuse, as ffdvb_cuse_write_direct answers a write; the node is not
 * called in that round, so nothing can wait. Returns 1 when answered here. */
int ffdvb_cuse_ioctl_direct(struct ffdvb_cuse_dev *dev, const struct fuse_buf *buf, int fd);

/* cuse_dev.c: what fuse_session_receive_buf returned (res) handled: 1 when a request was
 * processed; 0 for none, and a dead connection marked */
int ffdvb_cuse_dev_received(struct ffdvb_cuse_dev *dev, int res);
/* cuse_loop.c: a request of dev was served from libevent (the fast path's streak) */
void ffdvb_cuse_loop_note(struct ffdvb_cuse_dev *dev);
/* cuse_loop.c: dev is being freed */
void ffdvb_cuse_loop_forget(struct ffdvb_cuse_dev *dev);

#endif
