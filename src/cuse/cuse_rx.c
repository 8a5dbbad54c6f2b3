/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Receiving a request with a write's data straight where the node keeps it.
 *
 * A write to video0 is read from /dev/cuse into the receive buffer and the card then copies it
 * into its ring: for 64 KiB writes that copy was 45-72 us of a 450 us write in the TCG test VM
 * (bench/README.md). A node that offers a room (write_room, include/ffdvb/node.h: the free
 * part of the ring the next bytes go to) gets the data there instead: one readv with the
 * header in the receive buffer, then the room, then the rest of the receive buffer. A write
 * whose data fit the room is handed to the node there (cuse_write takes dev->rx_payload);
 * every other request is put back together in the receive buffer as libfuse expects it. */
#include "cuse_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <linux/fuse.h>

#define RX_HEADER (sizeof(struct fuse_in_header) + sizeof(struct fuse_write_in))
/* libfuse 3's receive buffer (FUSE_MAX_MAX_PAGES pages + FUSE_BUFFER_HEADER_SIZE): the kernel
 * refuses a read shorter than a header and its max_write; EINVAL turns the room off */
#define RX_SIZE (256 * 4096 + 4096)
#define RX_MIN_ROOM 4096 /* less is not worth the readv */

static int rx_read(struct ffdvb_cuse_dev *dev, void *room, size_t room_len)
{
	struct iovec iov[3];
	struct fuse_in_header *in;
	ssize_t res;
	size_t body, in_room;

	if (!dev->rx.mem) {
		dev->rx.mem = malloc(RX_SIZE);
		if (!dev->rx.mem)
			return -ENOMEM;
	}
	iov[0] = (struct iovec){ dev->rx.mem, RX_HEADER };
	iov[1] = (struct iovec){ room, room_len };
	/* RX_SIZE in all, so that what comes back together fits the receive buffer */
	iov[2] = (struct iovec){ (char *)dev->rx.mem + RX_HEADER, RX_SIZE - RX_HEADER - room_len };
	do /* ENOENT: the request was interrupted and withdrawn, as in libfuse */
		res = readv(fuse_session_fd(dev->se), iov, 3);
	while (res < 0 && errno == ENOENT);
	if (res < 0)
		return -errno;
	if ((size_t)res < sizeof(*in))
		return -EIO;
	in = dev->rx.mem;
	body = (size_t)res > RX_HEADER ? (size_t)res - RX_HEADER : 0;
	in_room = body < room_len ? body : room_len;
	/* the data follow a whole fuse_write_in (protocol 7.9 on) and fit the room */
	if (in->opcode == FUSE_WRITE && body && body <= room_len &&
	    ((const struct fuse_write_in *)(in + 1))->size == body) {
		dev->rx_payload = room;
	} else if (body) { /* the bytes after the room move up, the room's come back */
		memmove((char *)dev->rx.mem + RX_HEADER + in_room, (char *)dev->rx.mem + RX_HEADER,
			body - in_room);
		memcpy((char *)dev->rx.mem + RX_HEADER, room, in_room);
	}
	dev->rx.size = (size_t)res;
	dev->in = &dev->rx;
	return (int)res;
}

int ffdvb_cuse_receive(struct ffdvb_cuse_dev *dev)
{
	size_t room_len = 0;
	void *room = NULL;
	int res;

	dev->in = &dev->fbuf;
	dev->rx_payload = NULL;
	/* a room pays only for writes of RX_MIN_ROOM bytes and more: after a smaller write the
	   node is not asked (the question goes through every layer, the trace's and the card's,
	   on every request); the next large write comes the usual way and asking starts again */
	if (!dev->rx_off && dev->ops->write_room && dev->last_write >= RX_MIN_ROOM)
		room = dev->ops->write_room(dev->node, &room_len);
	if (!room || room_len < RX_MIN_ROOM)
		return fuse_session_receive_buf(dev->se, &dev->fbuf);
	if (room_len > RX_SIZE / 2)
		room_len = RX_SIZE / 2;
	res = rx_read(dev, room, room_len);
	if (res == -ENODEV) { /* as libfuse: the kernel ended the connection */
		fuse_session_exit(dev->se);
		return 0;
	}
	if (res == -EINVAL || res == -ENOMEM || res == -EIO) {
		dev->rx_off = 1; /* a kernel that wants more: libfuse's own receive from now on */
		dev->rx_payload = NULL;
		dev->in = &dev->fbuf;
		return res == -EIO ? res : -EAGAIN;
	}
	return res;
}
