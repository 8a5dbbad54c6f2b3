/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One CUSE device: session set-up, the libevent read callback, waiting for the node to appear,
 * wake-ups and teardown.
 *
 * The session is driven from the daemon's single-threaded libevent loop (fuse_session_fd +
 * fuse_session_receive_buf/process_buf; writes the node finishes at once and the first round
 * of an ioctl are answered without libfuse, ffdvb_cuse_write_direct and
 * ffdvb_cuse_ioctl_direct), not cuse_lowlevel_main(): all node state lives on one
 * thread without locks. libfuse's multi-threaded loop was said to cost about 4.5x the round
 * trip on 2 cores; bench/run.sh core measures it against the single-threaded one on a bare
 * device (1.04-1.11x here), so threads would buy nothing for the locks they need. libfuse's
 * signal handlers are not installed; the daemon owns the signals (cuse_loop.c's fast path uses
 * one realtime signal of its own). A device served turn after turn is read directly, in
 * blocking reads on the same thread, by that fast path (ffdvb_cuse_loop_run). */
#include "ffdvb/clock.h"
#include "ffdvb/log.h"
#include "cuse_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#define READY_POLL_MS 10

int ffdvb_cuse_dev_received(struct ffdvb_cuse_dev *dev, int res)
{
	if (res == -EINTR || res == -EAGAIN)
		return 0;
	if (res <= 0 || fuse_session_exited(dev->se)) {
		/* 0: the kernel closed the connection (ENODEV) */
		if (res < 0)
			ffdvb_cuse_log(dev, "reading /dev/cuse: %s", strerror(-res));
		else
			ffdvb_cuse_log(dev, "CUSE connection closed by the kernel");
		event_del(dev->ev_read);
		dev->dead = 1;
		return 0;
	}
	struct fuse_buf *in = dev->in ? dev->in : &dev->fbuf;
	int fd = fuse_session_fd(dev->se);

	if (!ffdvb_cuse_write_direct(dev, in, fd) && !ffdvb_cuse_ioctl_direct(dev, in, fd))
		fuse_session_process_buf(dev->se, in);
	dev->rx_payload = NULL;
	return 1;
}

/* One request per callback, as libfuse's own loop blocks in read(): when a request has been
 * answered its caller has usually not sent the next one yet, so reading on would mostly cost
 * a system call that finds nothing. The fd is level-triggered: libevent calls again at once
 * while requests are queued, taking turns with the other devices and the timers. A device
 * that is called turn after turn with nothing else to do is read directly by the loop driver
 * (cuse_loop.c) instead. */
static void on_readable(evutil_socket_t fd, short what, void *arg)
{
	struct ffdvb_cuse_dev *dev = arg;

	(void)fd;
	(void)what;
	if (ffdvb_cuse_dev_received(dev, ffdvb_cuse_receive(dev)))
		ffdvb_cuse_loop_note(dev);
}

/* Wake-ups and retry passes. The node's owner wakes us after every operation that may have
 * changed something, including the retries themselves: a retry that could not move on would
 * wake its own device (or the sibling whose retry wakes it back) forever, and libevent runs
 * re-activated events without ever returning to timers and I/O. So wakes that arrive while a
 * retry pass runs are only marked, and acted on only if the pass made progress. The
 * transport serves one loop thread, hence one list of all devices and one pass flag. */
static struct ffdvb_cuse_dev *all_devs;
static int in_pass;

/* The card wakes its nodes after nearly every request (a write fills a ring, which may drop
 * POLLOUT): with no waiting request and no poll handle there is nothing to re-evaluate, so
 * that costs no event. A request parked or a poll answered later sees the state of then. */
static void wake_now(struct ffdvb_cuse_dev *dev)
{
	if (dev->pending || dev->pollers)
		event_active(dev->ev_wake, 0, 0);
}

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
	struct ffdvb_cuse_dev *dev = arg;
	int progress;

	(void)fd;
	(void)what;
	in_pass = 1;
	progress = ffdvb_cuse_run_pending(dev);
	in_pass = 0;
	for (struct ffdvb_cuse_dev *d = all_devs; d; d = d->next_dev) {
		if (d->wake_requested && progress)
			wake_now(d);
		d->wake_requested = 0;
	}
	ffdvb_cuse_notify_pollers(dev);
}

void ffdvb_cuse_dev_wake(void *ctx)
{
	struct ffdvb_cuse_dev *dev = ctx;

	if (in_pass)
		dev->wake_requested = 1; /* its pending list may be detached right now */
	else
		wake_now(dev);
}

/* sysfs spells the slashes of a CUSE device name as '!' */
static void sysfs_name(const char *devname, char *out, size_t size)
{
	snprintf(out, size, "%s", devname);
	for (char *c = out; *c; c++)
		if (*c == '/')
			*c = '!';
}

static int device_exists(const char *devname)
{
	char sysname[300], path[400];

	sysfs_name(devname, sysname, sizeof(sysname));
	snprintf(path, sizeof(path), "/sys/class/cuse/%s", sysname);
	return access(path, F_OK) == 0;
}

static struct fuse_session *new_session(struct ffdvb_cuse_dev *dev)
{
	char devinfo[300];
	const char *dev_info_argv[] = { devinfo };
	struct cuse_info ci = {
		.dev_major = dev->cfg.major,
		.dev_minor = dev->cfg.minor,
		.dev_info_argc = 1,
		.dev_info_argv = dev_info_argv,
		.flags = CUSE_UNRESTRICTED_IOCTL, /* embedded pointers, _IOR input (§11) */
	};
	char *argv[] = { "ffdvbd", "-d", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(dev->cfg.debug ? 2 : 1, argv);
	struct fuse_session *se;

	if ((size_t)snprintf(devinfo, sizeof(devinfo), "DEVNAME=%s", dev->devname) >=
	    sizeof(devinfo)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	se = cuse_lowlevel_new(&args, &ci, &ffdvb_cuse_clop, dev);
	fuse_opt_free_args(&args);
	if (!se)
		errno = ENOMEM;
	return se;
}

struct ffdvb_cuse_dev *ffdvb_cuse_dev_new(struct event_base *base,
					  const struct ffdvb_cuse_config *cfg,
					  const struct ffdvb_node_ops *ops, void *node)
{
	struct ffdvb_cuse_dev *dev = calloc(1, sizeof(*dev));
	char fdpath[32];
	int fd, saved;

	if (!dev)
		return NULL;
	dev->base = base;
	dev->ops = ops;
	dev->node = node;
	dev->cfg = *cfg;
	dev->devname = strdup(cfg->devname);
	if (!dev->devname)
		goto free_dev;
	dev->cfg.devname = dev->devname;
	dev->use_vm_readv = !getenv("FFDVB_CUSE_NO_VM_READV");
	if (device_exists(dev->devname)) {
		/* CUSE would refuse the name silently; the old node would look like ours */
		ffdvb_log(FFDVB_LOG_ERR, "cuse: /dev/%s is already served by CUSE (another ffdvbd?)",
			dev->devname);
		errno = EEXIST;
		goto free_devname;
	}

	/* non-blocking: a request the kernel withdrew (interrupted) must not stall the loop */
	fd = open("/dev/cuse", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		saved = errno;
		if (saved == ENOENT || saved == ENODEV)
			ffdvb_log(FFDVB_LOG_ERR, "cuse: /dev/cuse not found, try 'modprobe cuse'");
		else
			ffdvb_log(FFDVB_LOG_ERR, "cuse: cannot open /dev/cuse: %s", strerror(saved));
		errno = saved;
		goto free_devname;
	}
	dev->se = new_session(dev);
	if (!dev->se) {
		saved = errno;
		ffdvb_log(FFDVB_LOG_ERR, "cuse: cannot create the session for %s", dev->devname);
		close(fd);
		errno = saved;
		goto free_devname;
	}
	/* what cuse_lowlevel_setup() does: the session adopts the open /dev/cuse fd */
	snprintf(fdpath, sizeof(fdpath), "/dev/fd/%d", fd);
	if (fuse_session_mount(dev->se, fdpath) != 0) {
		ffdvb_log(FFDVB_LOG_ERR, "cuse: cannot attach /dev/cuse to the session");
		close(fd);
		errno = EIO;
		goto destroy_session;
	}
	dev->ev_read = event_new(base, fuse_session_fd(dev->se), EV_READ | EV_PERSIST, on_readable,
				 dev);
	dev->ev_wake = event_new(base, -1, 0, on_wake, dev);
	if (!dev->ev_read || !dev->ev_wake || event_add(dev->ev_read, NULL) != 0) {
		ffdvb_log(FFDVB_LOG_ERR, "cuse: cannot add %s to the event loop", dev->devname);
		errno = ENOMEM;
		goto free_events;
	}
	dev->next_dev = all_devs;
	all_devs = dev;
	return dev;

free_events:
	saved = errno;
	if (dev->ev_wake)
		event_free(dev->ev_wake);
	if (dev->ev_read)
		event_free(dev->ev_read);
	errno = saved;
destroy_session:
	saved = errno;
	fuse_session_destroy(dev->se); /* closes the adopted fd */
	errno = saved;
free_devname:
	free(dev->devname);
free_dev:
	saved = errno;
	free(dev);
	errno = saved;
	return NULL;
}

/* 0 when /dev/<devname> is the character device the kernel registered, -EAGAIN while not
 * yet, -errno on a real problem. */
static int check_node(const struct ffdvb_cuse_dev *dev, const char *sysname)
{
	char path[512], line[32];
	unsigned int maj, min;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/cuse/%s/dev", sysname);
	f = fopen(path, "re");
	if (!f)
		return -EAGAIN;
	int ok = fgets(line, sizeof(line), f) && sscanf(line, "%u:%u", &maj, &min) == 2;

	fclose(f);
	if (!ok)
		return -EAGAIN;
	snprintf(path, sizeof(path), "/dev/%s", dev->devname);
	if (stat(path, &st) != 0)
		return -EAGAIN; /* devtmpfs creates it a moment later */
	if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(maj, min))
		return -EAGAIN;
	return 0;
}

static long elapsed_ms(uint64_t t0)
{
	return (long)((ffdvb_monotonic_ns() - t0) / 1000000);
}

int ffdvb_cuse_dev_wait_ready(struct ffdvb_cuse_dev *dev, int timeout_ms)
{
	char sysname[300], path[300];
	struct timeval tick = { 0, READY_POLL_MS * 1000 };
	uint64_t t0 = ffdvb_monotonic_ns();
	int err;

	sysfs_name(dev->devname, sysname, sizeof(sysname));
	for (;;) {
		if (dev->dead) {
			ffdvb_cuse_log(dev, "the kernel refused the device (device number in use?)");
			return -ENODEV;
		}
		if ((err = check_node(dev, sysname)) != -EAGAIN)
			break;
		if (elapsed_ms(t0) > timeout_ms) {
			/* CUSE fails silently on a busy device number: say so */
			ffdvb_cuse_log(dev, "/dev/%s did not appear within %d ms (device number "
				       "in use?)", dev->devname, timeout_ms);
			return -ETIMEDOUT;
		}
		event_base_loopexit(dev->base, &tick);
		event_base_dispatch(dev->base);
	}
	if (err < 0)
		return err;
	snprintf(path, sizeof(path), "/dev/%s", dev->devname);
	if (chown(path, dev->cfg.uid, dev->cfg.gid) != 0 || chmod(path, dev->cfg.mode) != 0) {
		err = -errno;
		ffdvb_cuse_log(dev, "cannot set owner/mode of %s: %s", path, strerror(-err));
		return err;
	}
	return 0;
}

void ffdvb_cuse_dev_free(struct ffdvb_cuse_dev *dev)
{
	if (!dev)
		return;
	ffdvb_cuse_loop_forget(dev);
	for (struct ffdvb_cuse_dev **pd = &all_devs; *pd; pd = &(*pd)->next_dev) {
		if (*pd == dev) {
			*pd = dev->next_dev;
			break;
		}
	}
	/* answer waiting callers, then give every still-open file back to the node */
	ffdvb_cuse_flush_pending(dev, NULL);
	while (dev->files)
		ffdvb_cuse_file_release(dev->files);
	event_free(dev->ev_wake);
	event_free(dev->ev_read);
	fuse_session_destroy(dev->se); /* closes /dev/cuse: the node disappears */
	free(dev->fbuf.mem);
	free(dev->rx.mem);
	free(dev->read_buf);
	free(dev->devname);
	free(dev);
}
