/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Thin wrappers over the device system calls (results as value or -errno), the known reset
 * sequence, and memory that faults on purpose. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "conform.h"

const char *node_path(const char *node)
{
	return cname("%s/%s", opts.dir, node);
}

int dev_open(const char *node, int flags)
{
	int fd = open(node_path(node), flags);

	return fd < 0 ? -errno : fd;
}

void dev_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

long dev_ioctl(int fd, unsigned long req, void *arg)
{
	int r = ioctl(fd, req, arg);

	return r < 0 ? -errno : r;
}

long dev_ioctl_val(int fd, unsigned long req, unsigned long val)
{
	int r = ioctl(fd, req, val);

	return r < 0 ? -errno : r;
}

ssize_t dev_write(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	return n < 0 ? -errno : n;
}

ssize_t dev_read(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	return n < 0 ? -errno : n;
}

int dev_set_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, fl) < 0 ? -errno : 0;
}

int dev_poll(int fd, short events, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r = poll(&p, 1, timeout_ms);

	if (r < 0)
		return -errno;
	return r ? p.revents : 0;
}

int node_driver(const char *node, char *name, size_t len)
{
	struct stat st;
	char line[256];
	int in_char = 0, found = 0;
	FILE *f;

	if (stat(node_path(node), &st) < 0)
		return -errno;
	f = fopen("/proc/devices", "r");
	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof line, f)) {
		unsigned int major;
		char drv[200];

		if (!strncmp(line, "Character devices:", 18))
			in_char = 1;
		else if (!strncmp(line, "Block devices:", 14))
			in_char = 0;
		else if (in_char && sscanf(line, "%u %199s", &major, drv) == 2 &&
			 major == major(st.st_rdev)) {
			snprintf(name, len, "%s", drv);
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

int node_is_cuse(const char *node)
{
	char name[200];

	/* dvb-core registers major 212 as "DVB"; a CUSE device registers under its DEVNAME */
	return node_driver(node, name, sizeof name) == 0 && strcmp(name, "DVB") != 0;
}

long video_status(int fd, struct ffdvb_video_status *st)
{
	memset(st, 0xA5, sizeof *st);
	return dev_ioctl(fd, FFDVB_VIDEO_GET_STATUS, st);
}

long audio_status(int fd, struct ffdvb_audio_status *st)
{
	memset(st, 0xA5, sizeof *st);
	return dev_ioctl(fd, FFDVB_AUDIO_GET_STATUS, st);
}

long video_status_ro(struct ffdvb_video_status *st)
{
	int fd = dev_open("video0", O_RDONLY | O_NONBLOCK);
	long r;

	if (fd < 0)
		return fd;
	r = video_status(fd, st);
	close(fd);
	return r;
}

static long first_error(long acc, long r)
{
	return acc < 0 ? acc : (r < 0 ? r : 0);
}

long card_reset(void)
{
	int v = dev_open("video0", O_RDWR | O_NONBLOCK); /* flushes both rings, source DEMUX */
	int a = dev_open("audio0", O_RDWR | O_NONBLOCK); /* audio source DEMUX */
	int o = dev_open("osd0", O_RDWR);
	long r = 0;

	if (v < 0 || a < 0 || o < 0) {
		r = v < 0 ? v : a < 0 ? a : o;
		note("card reset: cannot open %s: %s (is another program using the adapter?)",
		     v < 0 ? "video0" : a < 0 ? "audio0" : "osd0", errname((int)-r));
		dev_close(&v);
		dev_close(&a);
		dev_close(&o);
		return r;
	}
	/* VDR's "back to live" sequence: a STOP with MEMORY source ends host playback */
	r = first_error(r, dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY));
	r = first_error(r, dev_ioctl_val(v, FFDVB_VIDEO_STOP, 0));
	r = first_error(r, dev_ioctl_val(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY));
	r = first_error(r, dev_ioctl_val(a, FFDVB_AUDIO_STOP, 0));
	r = first_error(r, dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_DEMUX));
	r = first_error(r, dev_ioctl_val(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_DEMUX));
	r = first_error(r, dev_ioctl_val(v, FFDVB_VIDEO_CLEAR_BUFFER, 0));
	r = first_error(r, dev_ioctl_val(a, FFDVB_AUDIO_CLEAR_BUFFER, 0));
	r = first_error(r, dev_ioctl_val(v, FFDVB_VIDEO_STOP, 0));
	r = first_error(r, dev_ioctl_val(a, FFDVB_AUDIO_STOP, 0));
	r = first_error(r, dev_ioctl_val(v, FFDVB_VIDEO_SET_BLANK, 0));
	r = first_error(r, dev_ioctl_val(v, FFDVB_VIDEO_SET_DISPLAY_FORMAT,
					 FFDVB_VIDEO_LETTER_BOX));
	r = first_error(r, dev_ioctl_val(v, FFDVB_VIDEO_SET_FORMAT, FFDVB_VIDEO_FORMAT_4_3));
	r = first_error(r, dev_ioctl_val(a, FFDVB_AUDIO_CHANNEL_SELECT, FFDVB_AUDIO_STEREO));
	r = first_error(r, dev_ioctl_val(a, FFDVB_AUDIO_SET_AV_SYNC, 1));
	r = first_error(r, dev_ioctl_val(a, FFDVB_AUDIO_SET_MUTE, 0));
	/* EINVAL on firmware < 0x2621, stored anyway */
	dev_ioctl_val(a, FFDVB_AUDIO_SET_BYPASS_MODE, 0);
	for (int w = 7; w >= 1; w--) {
		struct ffdvb_osd_cmd c = { .cmd = FFDVB_OSD_SetWindow, .x0 = w };

		r = first_error(r, dev_ioctl(o, FFDVB_OSD_SEND_CMD, &c));
		c.cmd = FFDVB_OSD_Close;
		r = first_error(r, dev_ioctl(o, FFDVB_OSD_SEND_CMD, &c));
	}
	if (r < 0)
		note("card reset: an ioctl of the reset sequence failed: %s", errname((int)-r));
	close(v);
	close(a);
	close(o);
	return r;
}

void *bad_page(void)
{
	static void *p;

	if (!p) {
		p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("ffdvb-conform: mmap");
			_exit(2);
		}
	}
	return p;
}

void *page_end_buf(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = (n + pg - 1) / pg + 1;
	char *p = mmap(NULL, pages * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED || mprotect(p + (pages - 1) * pg, pg, PROT_NONE) < 0) {
		perror("ffdvb-conform: mmap");
		_exit(2);
	}
	return p + (pages - 1) * pg - n;
}
