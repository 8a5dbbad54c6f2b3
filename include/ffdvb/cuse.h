/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb CUSE transport: one CUSE device per node, driven from a libevent loop. It dispatches
 * open/release/read/write/ioctl/poll to a struct ffdvb_node_ops, marshals ioctl arguments
 * (32-bit layouts, embedded pointers, payloads larger than one CUSE transfer), keeps blocked
 * requests and poll handles, and answers interrupts. It knows nothing of DVB state. */
#ifndef FFDVB_CUSE_H
#define FFDVB_CUSE_H

#include <sys/types.h>

#include "ffdvb/node.h"

struct event_base;
struct ffdvb_cuse_dev;

/* The bytes a device keeps for requests that outlive their CUSE round, all files together:
 * blocked reads, writes and ioctls, and payloads collected over several retries. A request
 * that would go above it gets ENOMEM, as from a kernel that cannot allocate (docs: ffdvbd.conf(5),
 * LIMITS). One still picture of the largest size fits, with room for many blocked writers. */
#define FFDVB_CUSE_HELD_MAX (80u << 20)

struct ffdvb_cuse_config {
	const char *devname;  /* "dvb/adapter0/video0": the node appears as /dev/<devname> */
	unsigned int major;   /* 0 = dynamic (CUSE picks) */
	unsigned int minor;
	uid_t uid;            /* owner, group and mode applied to /dev/<devname> once it exists */
	gid_t gid;
	mode_t mode;
	int debug;            /* log every request (libfuse -d) */
};

/* Opens /dev/cuse, registers the device and adds it to base. The node exists only after
 * the kernel's CUSE INIT has been answered on the loop: call ffdvb_cuse_dev_wait_ready() next.
 * Returns NULL with errno set and a message on stderr ("try 'modprobe cuse'" for ENOENT). */
struct ffdvb_cuse_dev *ffdvb_cuse_dev_new(struct event_base *base,
					  const struct ffdvb_cuse_config *cfg,
					  const struct ffdvb_node_ops *ops, void *node);

/* Runs the loop until /dev/<devname> exists with the device number the kernel gave it (CUSE
 * fails silently on a busy number), then applies owner, group and mode. Returns 0, or
 * -ETIMEDOUT / -errno after timeout_ms. */
int ffdvb_cuse_dev_wait_ready(struct ffdvb_cuse_dev *dev, int timeout_ms);

/* The node's owner calls this (as an ffdvb_wake_fn with dev as ctx) when something changed:
 * blocked requests are retried and pollers are notified where their mask changed. */
void ffdvb_cuse_dev_wake(void *dev);

/* Removes the device (the node disappears), answers blocked requests with EINTR semantics
 * and frees everything. Accepts NULL. */
void ffdvb_cuse_dev_free(struct ffdvb_cuse_dev *dev);

/* event_base_new() for the loop that ffdvb_cuse_loop_run will drive: it also notes libevent's
 * epoll fd, which the fast path needs (one base per process). NULL on failure. */
struct event_base *ffdvb_cuse_base_new(void);

/* event_base_dispatch(base), with the fast path of src/cuse/cuse_loop.c on a base from
 * ffdvb_cuse_base_new: a device that gets request after request, with nothing else to do, is
 * read directly in blocking reads; a watcher thread interrupts them when anything else of the
 * loop becomes ready. Returns as event_base_dispatch. */
int ffdvb_cuse_loop_run(struct event_base *base);

#endif
