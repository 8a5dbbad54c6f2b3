/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The baseline for the CUSE benchmarks: a CUSE device that does nothing but reply. Every ioctl
 * gets 0, every write is accepted whole. DMX_GET_STC (_IOWR, 16 bytes) goes through the same
 * unrestricted-ioctl retry that ffdvbd needs (fetch the argument, then answer with it), so that
 * comparing it with the real demux0 is fair. Nothing else is implemented.
 *
 * usage: ffdvb-bare-cuse DEVNAME [-s] [-d]
 *   DEVNAME  node name below /dev, may contain '/' (e.g. ffdvb-bare/video0)
 *   -s       libfuse's single-threaded loop (without it: the multi-threaded loop)
 *   -d       log every request */
#define FUSE_USE_VERSION 31

#include <cuse_lowlevel.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ffdvb/abi.h"

static void bare_open(fuse_req_t req, struct fuse_file_info *fi)
{
	fuse_reply_open(req, fi);
}

static void bare_write(fuse_req_t req, const char *buf, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	(void)buf;
	(void)off;
	(void)fi;
	fuse_reply_write(req, size);
}

static void bare_ioctl(fuse_req_t req, int cmd, void *arg, struct fuse_file_info *fi,
		       unsigned flags, const void *in, size_t in_sz, size_t out_sz)
{
	(void)fi;
	(void)flags;
	if ((unsigned)cmd == FFDVB_DMX_GET_STC) {
		struct ffdvb_dmx_stc stc;
		struct iovec iov = { arg, sizeof stc };

		/* unrestricted ioctls arrive without data: ask the kernel to copy the struct in
		 * and to make room for it on the way out, as the real demux0 must */
		if (in_sz < sizeof stc || out_sz < sizeof stc) {
			fuse_reply_ioctl_retry(req, &iov, 1, &iov, 1);
			return;
		}
		memcpy(&stc, in, sizeof stc);
		stc.base = 1;
		stc.stc = 0;
		fuse_reply_ioctl(req, 0, &stc, sizeof stc);
		return;
	}
	fuse_reply_ioctl(req, 0, NULL, 0);
}

static const struct cuse_lowlevel_ops bare_ops = {
	.open = bare_open,
	.write = bare_write,
	.ioctl = bare_ioctl,
};

int main(int argc, char **argv)
{
	char devname[256];
	const char *dev_info[] = { devname };
	char *fuse_argv[8] = { argv[0], "-f" };
	int fuse_argc = 2;

	if (argc < 2 || argc > 4 || argv[1][0] == '-') {
		fprintf(stderr, "usage: %s DEVNAME [-s] [-d]\n", argv[0]);
		return 2;
	}
	snprintf(devname, sizeof devname, "DEVNAME=%s", argv[1]);
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "-s") && strcmp(argv[i], "-d")) {
			fprintf(stderr, "%s: unknown option %s\n", argv[0], argv[i]);
			return 2;
		}
		fuse_argv[fuse_argc++] = argv[i];
	}

	struct cuse_info ci = {
		.dev_info_argc = 1,
		.dev_info_argv = dev_info,
		.flags = CUSE_UNRESTRICTED_IOCTL,
	};
	return cuse_lowlevel_main(fuse_argc, fuse_argv, &ci, &bare_ops, NULL);
}
