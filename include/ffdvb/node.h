/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb node interface: what a character-device node offers to a transport. The card
 * (src/card) implements it for video0, audio0, osd0, demux0, frontend0 and dvr0; the CUSE
 * transport (src/cuse) calls it and knows nothing else of DVB state.
 *
 * Threading: every function here runs on the daemon's event-loop thread.
 * Results: 0 or a byte count on success, -errno on failure, or -FFDVB_EBLOCK (below). */
#ifndef FFDVB_NODE_H
#define FFDVB_NODE_H

#include <stddef.h>
#include <sys/types.h>

/* the six nodes of an adapter (ffdvb_node_name() in include/ffdvb/card.h names them) */
enum ffdvb_node_type {
	FFDVB_NODE_VIDEO,
	FFDVB_NODE_AUDIO,
	FFDVB_NODE_OSD,
	FFDVB_NODE_DEMUX,
	FFDVB_NODE_FRONTEND,
	FFDVB_NODE_DVR,
	FFDVB_NODE_COUNT
};

/* Returned as -FFDVB_EBLOCK by an operation that has to wait (a blocking write with no room,
 * a blocking VIDEO_GET_EVENT with no event, VIDEO_STILLPICTURE still queueing, an open or
 * ioctl that a remote tuner answers later). The transport keeps the request and calls the
 * operation again, with the same arguments and the same progress value, after the node's owner
 * calls the wake-up hook (an ffdvb_wake_fn, below; the card's are set with
 * ffdvb_card_set_wake) — or once more with interrupted set when the caller got a signal; then
 * the operation must not return -FFDVB_EBLOCK. Not an errno: never reaches a client. */
#define FFDVB_EBLOCK 4096

/* One ioctl call as the node sees it: 32-bit layouts are already converted to the native
 * ones by the transport, embedded pointers already followed. */
struct ffdvb_ioctl {
	unsigned int cmd;  /* native request number (FFDVB_* / FE_*) */
	unsigned long arg; /* argument word, the value of _IO ioctls */
	void *buf;         /* _IOC_SIZE(cmd) bytes: copied in from the caller for every ioctl
	                      that has a size (as dvb-core does), copied back out on success for
	                      _IOC_READ ones; NULL when _IOC_SIZE is 0 */
	void *data;        /* pointed-to payload the transport fetched: VIDEO_STILLPICTURE iFrame,
	                      OSD_SEND_CMD data (for the commands that read it), FE_*_PROPERTY
	                      props array (written back to the caller for FE_GET_PROPERTY) */
	size_t data_len;
	int data_fault;    /* the pointed-to memory could not be read; data is NULL */
	int nonblock;      /* O_NONBLOCK of the file as opened (ioctls cannot see F_SETFL) */
	int interrupted;   /* set on the final call after the caller got a signal */
	size_t progress;   /* owned by the operation: 0 on the first call, kept across retries */
};

struct ffdvb_node_ops {
	/* flags: the open(2) flags (access mode, O_NONBLOCK). On success stores the per-open
	 * context in *file. -EBUSY when the node's open counters are exhausted. */
	int (*open)(void *node, int flags, void **file);
	/* After open returned -FFDVB_EBLOCK with *file set (an open that waits for a device
	 * behind the network): called after each wake-up until it returns 0 (opened) or -errno
	 * (failed: the transport then calls release); interrupted set: must not wait any more. */
	int (*open_wait)(void *file, int interrupted);
	/* The file is gone (last close); never fails. */
	void (*release)(void *file);
	/* Returns bytes read, -errno, or -FFDVB_EBLOCK (only when !nonblock). */
	ssize_t (*read)(void *file, void *buf, size_t len, int nonblock);
	/* Returns bytes consumed (may be fewer than len: a short write), -EAGAIN when nothing
	 * could be taken now, or -errno. The transport turns -EAGAIN of a blocking caller into a
	 * wait and calls again with the rest; data is copied before the call returns. */
	ssize_t (*write)(void *file, const void *buf, size_t len, int nonblock);
	/* Optional, per node (the pointer open gets): where the node would copy the next write's
	 * data (the free part of a ring), *len bytes, or NULL. A transport may receive a write's
	 * data there and call write with buf pointing to it; the node then takes all of it in
	 * place, or answers -EXDEV having taken nothing, and the transport moves the data
	 * elsewhere and calls again. Any other request may scribble over the room. */
	void *(*write_room)(void *node, size_t *len);
	/* Returns >= 0, -errno or -FFDVB_EBLOCK. */
	int (*ioctl)(void *file, struct ffdvb_ioctl *io);
	/* Current poll mask (POLLIN, POLLOUT, POLLPRI, ...). The transport re-evaluates it after
	 * every wake-up and notifies waiting pollers when it changed. */
	unsigned int (*poll)(void *file);
};

/* Called by a node's owner whenever something changed that may complete a waiting
 * operation or change a poll mask of that node (ring space freed, event queued, state
 * changed). Runs on the loop thread; the callee only schedules work. */
typedef void (*ffdvb_wake_fn)(void *ctx);

#endif
