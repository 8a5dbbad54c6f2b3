/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The first round of an ioctl answered without libfuse (ffdvb_cuse_ioctl_direct,
 * src/cuse/cuse_ioctl.c): for a request with an argument and no data yet, a FUSE_IOCTL_RETRY
 * naming the argument (in) and, for _IOC_READ, the copy-out area, in the caller's layout (a
 * 32-bit caller's still picture is 8 bytes); the node is not called. Left to libfuse: the
 * round that brings the argument, requests without one, FUSE_IOCTL_DIR, other opcodes,
 * malformed lengths, and a kernel older than FUSE 7.16 (other iovecs). The wire is a pipe. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <linux/fuse.h>

#include "check.h"
#include "cuse_internal.h"
#include "ffdvb/abi.h"

static int node_calls;

static int node_ioctl(void *file, struct ffdvb_ioctl *io)
{
	(void)file;
	(void)io;
	node_calls++;
	return 0;
}

static const struct ffdvb_node_ops ops = { .ioctl = node_ioctl };

static struct {
	struct fuse_in_header in;
	struct fuse_ioctl_in ii;
	unsigned char data[64];
} req;

static int wire[2];

#define ARG 0x7ffd12345670ull

/* a FUSE_IOCTL for cmd carrying in_size bytes of argument */
static struct fuse_buf make(uint32_t opcode, unsigned int cmd, uint32_t flags, size_t in_size,
			    struct cuse_file *cf)
{
	struct fuse_buf b = { .mem = &req };

	memset(&req, 0, sizeof(req));
	req.in.opcode = opcode;
	req.in.unique = 0x4321;
	req.in.len = (uint32_t)(sizeof(req.in) + sizeof(req.ii) + in_size);
	req.ii.fh = (uint64_t)(uintptr_t)cf;
	req.ii.flags = flags | FUSE_IOCTL_UNRESTRICTED;
	req.ii.cmd = cmd;
	req.ii.arg = ARG;
	req.ii.in_size = (uint32_t)in_size;
	req.ii.out_size = 4096;
	b.size = req.in.len;
	return b;
}

struct retry {
	ssize_t len;
	struct fuse_out_header out;
	struct fuse_ioctl_out io;
	struct fuse_ioctl_iovec iov[2];
};

static struct retry answer(void)
{
	unsigned char buf[256];
	struct retry r = { .len = read(wire[0], buf, sizeof(buf)) };

	if (r.len >= (ssize_t)(sizeof(r.out) + sizeof(r.io))) {
		memcpy(&r.out, buf, sizeof(r.out));
		memcpy(&r.io, buf + sizeof(r.out), sizeof(r.io));
		memcpy(r.iov, buf + sizeof(r.out) + sizeof(r.io),
		       (size_t)r.len - sizeof(r.out) - sizeof(r.io) < sizeof(r.iov)
			       ? (size_t)r.len - sizeof(r.out) - sizeof(r.io)
			       : sizeof(r.iov));
	}
	return r;
}

static int nothing_on_wire(void)
{
	unsigned char b;
	return read(wire[0], &b, 1) < 0 && errno == EAGAIN;
}

/* the retry for an argument of size bytes at ARG, with a copy-out area when out */
static void expect_retry(const char *what, size_t size, int out)
{
	struct retry r = answer();
	size_t want = sizeof(r.out) + sizeof(r.io) + (out ? 2 : 1) * sizeof(r.iov[0]);

	printf("%s:\n", what);
	EXPECT_EQ("  the answer has header, ioctl_out and its iovecs", r.len, (ssize_t)want);
	EXPECT_EQ("  the header counts the answer's bytes", r.out.len, (uint32_t)want);
	EXPECT_EQ("  the answer is for the request", r.out.unique, 0x4321);
	EXPECT_EQ("  no error", r.out.error, 0);
	EXPECT_EQ("  a retry", r.io.flags, FUSE_IOCTL_RETRY);
	EXPECT_EQ("  one region in", r.io.in_iovs, 1);
	EXPECT_EQ("  copy-out regions", r.io.out_iovs, out ? 1u : 0u);
	EXPECT_EQ("  in: the argument's address", r.iov[0].base, ARG);
	EXPECT_EQ("  in: the argument's size", r.iov[0].len, size);
	if (out) {
		EXPECT_EQ("  out: the argument's address", r.iov[1].base, ARG);
		EXPECT_EQ("  out: the argument's size", r.iov[1].len, size);
	}
	EXPECT_EQ("  the node was not called", node_calls, 0);
}

static void expect_left(const char *what, struct ffdvb_cuse_dev *dev, struct fuse_buf *b)
{
	printf("%s:\n", what);
	EXPECT_EQ("  left to libfuse", ffdvb_cuse_ioctl_direct(dev, b, wire[1]), 0);
	EXPECT_EQ("  nothing on the wire", nothing_on_wire(), 1);
	EXPECT_EQ("  the node was not called", node_calls, 0);
}

int main(void)
{
	struct ffdvb_cuse_dev dev = { .ops = &ops, .proto_minor = 37 };
	struct cuse_file cf = { .dev = &dev, .file = &dev };
	struct fuse_buf b;

	if (pipe(wire) < 0 || fcntl(wire[0], F_SETFL, O_NONBLOCK) < 0)
		return 1;

	b = make(FUSE_IOCTL, FFDVB_DMX_GET_STC, 0, 0, &cf);
	EXPECT_EQ("DMX_GET_STC, first round: answered here", ffdvb_cuse_ioctl_direct(&dev, &b, wire[1]), 1);
	expect_retry("DMX_GET_STC (_IOWR)", sizeof(struct ffdvb_dmx_stc), 1);

	b = make(FUSE_IOCTL, FFDVB_AUDIO_SET_MIXER, 0, 0, &cf);
	EXPECT_EQ("AUDIO_SET_MIXER, first round: answered here", ffdvb_cuse_ioctl_direct(&dev, &b, wire[1]), 1);
	expect_retry("AUDIO_SET_MIXER (_IOW)", sizeof(struct ffdvb_audio_mixer), 0);

	b = make(FUSE_IOCTL, FFDVB_VIDEO_GET_SIZE, 0, 0, &cf);
	EXPECT_EQ("VIDEO_GET_SIZE, first round: answered here", ffdvb_cuse_ioctl_direct(&dev, &b, wire[1]), 1);
	expect_retry("VIDEO_GET_SIZE (_IOR): the argument in as well", sizeof(struct ffdvb_video_size), 1);

	b = make(FUSE_IOCTL, FFDVB_VIDEO_STILLPICTURE32, FUSE_IOCTL_COMPAT | FUSE_IOCTL_32BIT, 0, &cf);
	EXPECT_EQ("a 32-bit caller's VIDEO_STILLPICTURE: answered here", ffdvb_cuse_ioctl_direct(&dev, &b, wire[1]), 1);
	expect_retry("VIDEO_STILLPICTURE, 32-bit caller: its 8-byte layout", 8, 0);

	b = make(FUSE_IOCTL, FFDVB_DMX_GET_STC, 0, sizeof(struct ffdvb_dmx_stc), &cf);
	expect_left("DMX_GET_STC with its argument (the node's round)", &dev, &b);
	b = make(FUSE_IOCTL, FFDVB_VIDEO_SET_STREAMTYPE, 0, 0, &cf);
	expect_left("VIDEO_SET_STREAMTYPE (no argument)", &dev, &b);
	b = make(FUSE_IOCTL, FFDVB_DMX_GET_STC, FUSE_IOCTL_DIR, 0, &cf);
	expect_left("FUSE_IOCTL_DIR", &dev, &b);
	b = make(FUSE_WRITE, FFDVB_DMX_GET_STC, 0, 0, &cf);
	expect_left("another opcode", &dev, &b);
	b = make(FUSE_IOCTL, FFDVB_DMX_GET_STC, 0, 0, &cf);
	req.in.len += 4;
	expect_left("a length that does not match the buffer", &dev, &b);
	b = make(FUSE_IOCTL, FFDVB_DMX_GET_STC, 0, 0, &cf);
	b.size = sizeof(req.in) + 8;
	req.in.len = (uint32_t)b.size;
	expect_left("shorter than fuse_ioctl_in", &dev, &b);
	b = make(FUSE_IOCTL, FFDVB_DMX_GET_STC, 0, 0, NULL);
	expect_left("no file handle", &dev, &b);
	dev.proto_minor = 15;
	b = make(FUSE_IOCTL, FFDVB_DMX_GET_STC, 0, 0, &cf);
	expect_left("a kernel before FUSE 7.16", &dev, &b);
	return finish("test_cuse_ioctl_direct");
}
