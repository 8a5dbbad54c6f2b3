/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writes answered without libfuse (ffdvb_cuse_write_direct, src/cuse/cuse_ops.c): the answer
 * on the wire for a write taken whole, a short non-blocking write, a refusal and a node error;
 * and the requests left to libfuse with what was fed already: a blocking write that has to
 * wait (after some bytes or none), data refused in the node's room, other opcodes and
 * malformed lengths. The node is a script of answers; the wire is a pipe. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <linux/fuse.h>

#include "check.h"
#include "cuse_internal.h"

/* the node: each call takes the next scripted answer and records what it was given */
static ssize_t script[8];
static int calls, given_nonblock;
static size_t given_len[8];
static unsigned char seen[4096];

static ssize_t node_write(void *file, const void *buf, size_t len, int nonblock)
{
	ssize_t r = script[calls];

	(void)file;
	given_len[calls] = len;
	given_nonblock = nonblock;
	calls++;
	if (r > 0)
		memcpy(seen, buf, (size_t)r);
	return r;
}

static const struct ffdvb_node_ops ops = { .write = node_write };

static struct {
	struct fuse_in_header in;
	struct fuse_write_in wi;
	unsigned char data[1024];
} req;

static int wire[2];

/* a FUSE_WRITE of len bytes (opcode and length fields as given) into a fuse_buf */
static struct fuse_buf make(uint32_t opcode, size_t len, int file_flags)
{
	struct fuse_buf b = { .mem = &req };

	memset(&req, 0, sizeof(req));
	req.in.opcode = opcode;
	req.in.unique = 0x1234;
	req.in.len = (uint32_t)(sizeof(req.in) + sizeof(req.wi) + len);
	req.wi.size = (uint32_t)len;
	req.wi.flags = (uint32_t)file_flags;
	for (size_t i = 0; i < len; i++)
		req.data[i] = (unsigned char)(i * 5 + 1);
	b.size = req.in.len;
	return b;
}

/* run one request against the script; *fed gets dev.write_done */
static int run(struct fuse_buf *b, struct cuse_file *cf, size_t *fed)
{
	struct ffdvb_cuse_dev *dev = cf->dev;
	int r;

	req.wi.fh = (uint64_t)(uintptr_t)cf;
	calls = 0;
	dev->write_done = 0;
	r = ffdvb_cuse_write_direct(dev, b, wire[1]);
	*fed = dev->write_done;
	return r;
}

/* the answer on the wire: error and, without one, the size written */
static void answer(int32_t *error, uint32_t *size, ssize_t *len)
{
	unsigned char buf[64];
	struct fuse_out_header out;
	struct fuse_write_out wo;

	*len = read(wire[0], buf, sizeof(buf));
	memcpy(&out, buf, sizeof(out));
	*error = out.error;
	*size = 0;
	if (*len >= (ssize_t)(sizeof(out) + sizeof(wo))) {
		memcpy(&wo, buf + sizeof(out), sizeof(wo));
		*size = wo.size;
	}
	EXPECT_EQ("the answer is for the request", out.unique, 0x1234);
	EXPECT_EQ("the header counts the answer's bytes", out.len, *len);
}

static int nothing_on_wire(void)
{
	unsigned char b;
	return read(wire[0], &b, 1) < 0 && errno == EAGAIN;
}

int main(void)
{
	struct ffdvb_cuse_dev dev = { .ops = &ops };
	struct cuse_file cf = { .dev = &dev, .file = &dev };
	struct fuse_buf b;
	int32_t error;
	uint32_t size;
	ssize_t len;
	size_t fed;

	if (pipe(wire) < 0 || fcntl(wire[0], F_SETFL, O_NONBLOCK) < 0)
		return 1;

	/* taken whole in one call: answered here with the size, the data as sent */
	b = make(FUSE_WRITE, 188, 0);
	script[0] = 188;
	EXPECT_EQ("a write taken whole is answered", run(&b, &cf, &fed), 1);
	answer(&error, &size, &len);
	EXPECT_EQ("no error", error, 0);
	EXPECT_EQ("all 188 bytes counted", size, 188);
	EXPECT_EQ("header and fuse_write_out", len,
		  sizeof(struct fuse_out_header) + sizeof(struct fuse_write_out));
	CHECK(memcmp(seen, req.data, 188) == 0);
	EXPECT_EQ("the file's mode reaches the node", given_nonblock, 0);
	EXPECT_EQ("the size of the last write is kept", dev.last_write, 188);

	/* blocking, taken in two parts: the second call gets the rest */
	b = make(FUSE_WRITE, 376, 0);
	script[0] = 188, script[1] = 188;
	EXPECT_EQ("taken in parts", run(&b, &cf, &fed), 1);
	EXPECT_EQ("two calls", calls, 2);
	EXPECT_EQ("the second is for the rest", given_len[1], 188);
	answer(&error, &size, &len);
	EXPECT_EQ("376 counted", size, 376);

	/* non-blocking and short: a short count, no second call */
	b = make(FUSE_WRITE, 376, O_NONBLOCK);
	script[0] = 188, script[1] = 188;
	EXPECT_EQ("short non-blocking write", run(&b, &cf, &fed), 1);
	EXPECT_EQ("one call", calls, 1);
	EXPECT_EQ("non-blocking reaches the node", given_nonblock, 1);
	answer(&error, &size, &len);
	EXPECT_EQ("188 counted", size, 188);

	/* non-blocking, nothing taken: EAGAIN on the wire */
	b = make(FUSE_WRITE, 188, O_NONBLOCK);
	script[0] = -FFDVB_EBLOCK;
	EXPECT_EQ("a non-blocking refusal is answered", run(&b, &cf, &fed), 1);
	answer(&error, &size, &len);
	EXPECT_EQ("-EAGAIN", error, -EAGAIN);
	EXPECT_EQ("the header alone", len, sizeof(struct fuse_out_header));

	/* the node's error, nothing taken: that errno */
	b = make(FUSE_WRITE, 188, 0);
	script[0] = -EINVAL;
	EXPECT_EQ("an error is answered", run(&b, &cf, &fed), 1);
	answer(&error, &size, &len);
	EXPECT_EQ("-EINVAL", error, -EINVAL);

	/* an error after some bytes: the bytes count */
	b = make(FUSE_WRITE, 376, 0);
	script[0] = 188, script[1] = -EINVAL;
	EXPECT_EQ("error after progress is answered", run(&b, &cf, &fed), 1);
	answer(&error, &size, &len);
	EXPECT_EQ("no error for a short count", error, 0);
	EXPECT_EQ("the bytes taken", size, 188);

	/* blocking, no room: libfuse's, nothing fed, nothing on the wire */
	b = make(FUSE_WRITE, 188, 0);
	script[0] = -FFDVB_EBLOCK;
	EXPECT_EQ("a write that waits goes to libfuse", run(&b, &cf, &fed), 0);
	EXPECT_EQ("nothing fed", fed, 0);
	CHECK(nothing_on_wire());

	/* blocking, part taken, then no room: libfuse's, told what was fed */
	b = make(FUSE_WRITE, 376, 0);
	script[0] = 188, script[1] = -EAGAIN;
	EXPECT_EQ("a partial write that waits goes to libfuse", run(&b, &cf, &fed), 0);
	EXPECT_EQ("188 fed", fed, 188);
	CHECK(nothing_on_wire());

	/* refused in the node's room: libfuse's (cuse_write moves the data) */
	b = make(FUSE_WRITE, 188, 0);
	script[0] = -EXDEV;
	EXPECT_EQ("refused in the room goes to libfuse", run(&b, &cf, &fed), 0);
	EXPECT_EQ("nothing fed before the room refused it", fed, 0);
	CHECK(nothing_on_wire());

	/* not a write, or lengths that do not add up: the node is not called */
	b = make(FUSE_READ, 188, 0);
	EXPECT_EQ("a read goes to libfuse", run(&b, &cf, &fed), 0);
	EXPECT_EQ("the node is not called for it", calls, 0);
	b = make(FUSE_WRITE, 188, 0);
	b.size -= 1;
	EXPECT_EQ("a request shorter than its header says", run(&b, &cf, &fed), 0);
	b = make(FUSE_WRITE, 188, 0);
	req.wi.size = 100;
	EXPECT_EQ("a size that is not the data's", run(&b, &cf, &fed), 0);
	b = make(FUSE_WRITE, 0, 0);
	b.size = sizeof(struct fuse_in_header);
	req.in.len = (uint32_t)b.size;
	EXPECT_EQ("a request without fuse_write_in", run(&b, &cf, &fed), 0);
	EXPECT_EQ("the node is not called for them", calls, 0);
	CHECK(nothing_on_wire());

	return finish("test_cuse_write");
}
