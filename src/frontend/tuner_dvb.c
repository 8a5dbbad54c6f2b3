/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The dvb: tuner: a real budget adapter on this machine (dvb:ADAPTER[.FRONTEND]). Every client
 * file gets its own real file of the same device, opened with the client's access mode; every
 * call goes to it raw, so semantics and errno are the kernel's own. The devices are located
 * through libdvbv5 on each open, so a card that comes back (modules reloaded) is found again.
 *
 * The real files are always O_NONBLOCK: a call that would sleep answers -EAGAIN, and a one-shot
 * event on the real fd, armed only then, calls the file's wake hook once the kernel says the
 * file is readable (a persistent event would fire for ever while a client leaves data unread).
 *
 * A vanishing card: dvb-core neither wakes pollers nor refuses calls on the demux when its
 * module goes away, and the bridge's removal waits until every demux/dvr file is closed. So a
 * watchdog timer looks at every open file while any is open: a demux/dvr poll of POLLERR
 * without POLLIN (dmxdev's "exit"), or a device node that is gone or is another device now,
 * closes the real file at once (letting rmmod finish), answers -ENODEV from then on and wakes
 * the client. ENODEV or EIO from any call does the same. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>
#include <libdvbv5/dvb-dev.h>
#include <linux/dvb/dmx.h>
#include <linux/dvb/frontend.h>

#include "ffdvb/log.h"
#include "tuner_internal.h"

#define WATCH_PERIOD_MS 200

struct dvb_file;

struct dvb_tuner {
	struct ffdvb_tuner base;
	unsigned int adapter, frontend;
	struct event *watchdog;    /* while any file is open */
	struct dvb_file *files;    /* open files, for the watchdog */
	int present;               /* the last open (or status) found the device */
	int locked;                /* last FE_READ_STATUS / DTV_STAT seen through us */
	unsigned long opens, vanished;
};

struct dvb_file {
	struct ffdvb_tuner_file base;
	struct dvb_file *next;
	struct dvb_device *dvb;    /* one per file: libdvbv5 keeps one frontend state per device */
	struct dvb_open_descriptor *od;
	int fd;                    /* -1 once the device is gone */
	dev_t rdev;
	char *path;
	struct event *ev;          /* one-shot EV_READ on fd */
	int armed;
};

static struct dvb_tuner *tuner_of(struct ffdvb_tuner *t)
{
	return (struct dvb_tuner *)t;
}

static struct dvb_file *file_of(struct ffdvb_tuner_file *f)
{
	return (struct dvb_file *)f;
}

/* libdvbv5 logs every failed open or ioctl on stderr; the errno reaches the client instead.
 * FFDVB_TUNER_DEBUG=1 shows them. The callers read errno after a failure: keep it. */
static void dvbv5_log(void *priv, int level, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	(void)priv;
	if (getenv("FFDVB_TUNER_DEBUG") || level <= 2 /* LOG_CRIT */) {
		char text[400];

		va_start(ap, fmt);
		vsnprintf(text, sizeof(text), fmt, ap);
		va_end(ap);
		ffdvb_log(level <= 2 ? FFDVB_LOG_ERR : FFDVB_LOG_NOTICE, "tuner (libdvbv5): %s", text);
	}
	errno = saved;
}

static int parse_spec(const char *arg, unsigned int *adapter, unsigned int *frontend)
{
	char *end;
	unsigned long a, f = 0;

	if (*arg < '0' || *arg > '9')
		return -1;
	a = strtoul(arg, &end, 10);
	if (*end == '.') {
		if (end[1] < '0' || end[1] > '9')
			return -1;
		f = strtoul(end + 1, &end, 10);
	}
	if (*end || a > 255 || f > 255)
		return -1;
	*adapter = (unsigned int)a;
	*frontend = (unsigned int)f;
	return 0;
}

static struct ffdvb_tuner *dvb_create(struct event_base *base, const char *arg, char *err,
				      size_t errlen);
static void watchdog_cb(evutil_socket_t fd, short what, void *ctx);

static void dvb_destroy(struct ffdvb_tuner *t)
{
	struct dvb_tuner *dt = tuner_of(t);

	if (dt->watchdog)
		event_free(dt->watchdog);
	free(dt);
}

static enum dvb_dev_type dev_type(enum ffdvb_tuner_dev dev)
{
	switch (dev) {
	case FFDVB_TUNER_FRONTEND:
		return DVB_DEVICE_FRONTEND;
	case FFDVB_TUNER_DEMUX:
		return DVB_DEVICE_DEMUX;
	case FFDVB_TUNER_DVR:
		break;
	}
	return DVB_DEVICE_DVR;
}

static void io_ready(evutil_socket_t fd, short what, void *ctx)
{
	struct dvb_file *df = ctx;

	(void)fd, (void)what;
	df->armed = 0;
	tuner_file_wake(&df->base);
}

/* The real file is no more (module removed, node replaced): close it so that the driver's
 * removal can finish, and let a waiting client see -ENODEV. */
static void file_gone(struct dvb_file *df)
{
	struct dvb_tuner *dt = tuner_of(df->base.tuner);

	if (df->fd < 0)
		return;
	if (df->ev) {
		event_free(df->ev);
		df->ev = NULL;
	}
	df->armed = 0;
	dvb_dev_close(df->od);
	df->od = NULL;
	df->fd = -1;
	dt->present = 0;
	dt->locked = 0;
	dt->vanished++;
	tuner_file_wake(&df->base);
	/* the whole adapter went: let the watchdog look at the other files now, before a call
	 * on them reaches a dmxdev that still answers (DMX_STOP succeeds after its exit) */
	event_active(dt->watchdog, EV_TIMEOUT, 0);
}

/* -errno of a failed call; ENODEV and EIO mean the device went away. */
static int fail(struct dvb_file *df, int e)
{
	if (e == ENODEV || e == EIO) {
		file_gone(df);
		return -ENODEV;
	}
	return -e;
}

static void arm(struct dvb_file *df)
{
	if (df->fd >= 0 && !df->armed && event_add(df->ev, NULL) == 0)
		df->armed = 1;
}

static void watch_files(struct dvb_tuner *dt)
{
	struct timeval period = { 0, WATCH_PERIOD_MS * 1000 };

	if (dt->files && !event_pending(dt->watchdog, EV_TIMEOUT, NULL))
		evtimer_add(dt->watchdog, &period);
	else if (!dt->files)
		evtimer_del(dt->watchdog);
}

static int node_replaced(const struct dvb_file *df)
{
	struct stat st;

	return stat(df->path, &st) != 0 || !S_ISCHR(st.st_mode) || st.st_rdev != df->rdev;
}

static void watchdog_cb(evutil_socket_t fd, short what, void *ctx)
{
	struct dvb_tuner *dt = ctx;

	(void)fd, (void)what;
	for (struct dvb_file *df = dt->files; df; df = df->next) {
		struct pollfd p;

		if (df->fd < 0)
			continue;
		if (df->base.dev != FFDVB_TUNER_FRONTEND) {
			p = (struct pollfd){ .fd = df->fd, .events = POLLIN | POLLPRI };
			if (poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLNVAL)) &&
			    !(p.revents & POLLIN)) {
				file_gone(df);
				continue;
			}
		}
		if (node_replaced(df))
			file_gone(df);
	}
	watch_files(dt);
}

/* dvb_dev_seek_by_adapter leaks the name it looks for when the device is not there (libdvbv5
 * 1.22, once per open while the card is gone): it is only asked after a look at the list. */
static struct dvb_dev_list *seek(struct dvb_device *dvb, unsigned int adapter,
				 unsigned int num, enum dvb_dev_type type)
{
	static const char *const names[] = { "frontend", "demux", "dvr" };
	char sysname[64];

	snprintf(sysname, sizeof(sysname), "dvb%u.%s%u", adapter,
		 names[type == DVB_DEVICE_FRONTEND ? 0 : type == DVB_DEVICE_DEMUX ? 1 : 2], num);
	for (int i = 0; i < dvb->num_devices; i++) {
		if (dvb->devices[i].sysname && strcmp(dvb->devices[i].sysname, sysname) == 0)
			return dvb_dev_seek_by_adapter(dvb, adapter, num, type);
	}
	return NULL;
}

static void log_quietly(struct dvb_device *dvb)
{
	dvb_dev_set_logpriv(dvb, 0, dvbv5_log, NULL);
}

static int dvb_open(struct ffdvb_tuner *t, enum ffdvb_tuner_dev dev, int flags,
		    struct ffdvb_tuner_file **out)
{
	struct dvb_tuner *dt = tuner_of(t);
	struct dvb_file *df = calloc(1, sizeof(*df));
	struct dvb_dev_list *l;
	struct stat st;
	int e;

	if (!df)
		return -ENOMEM;
	df->fd = -1;
	df->dvb = dvb_dev_alloc();
	if (!df->dvb) {
		free(df);
		return -ENOMEM;
	}
	log_quietly(df->dvb);
	/* the frontend's one-writer rule and the dvr's modes are the kernel's to check */
	flags &= O_ACCMODE | O_NONBLOCK;
	e = ENODEV;
	if (dvb_dev_find(df->dvb, NULL, NULL) < 0)
		goto fail;
	l = seek(df->dvb, dt->adapter, dt->frontend, dev_type(dev));
	if (!l || !l->path)
		goto fail;
	errno = 0;
	df->od = dvb_dev_open(df->dvb, l->sysname, flags);
	if (!df->od) {
		e = errno ? errno : ENODEV;
		goto fail;
	}
	df->fd = dvb_dev_get_fd(df->od);
	df->path = strdup(l->path);
	if (df->fd < 0 || !df->path || fstat(df->fd, &st) != 0) {
		e = df->path ? ENODEV : ENOMEM;
		goto fail;
	}
	df->rdev = st.st_rdev;
	/* libdvbv5 drops O_NONBLOCK for frontends; the loop must never sleep in the kernel */
	if (fcntl(df->fd, F_SETFL, fcntl(df->fd, F_GETFL) | O_NONBLOCK) != 0) {
		e = errno;
		goto fail;
	}
	df->ev = event_new(t->base, df->fd, EV_READ, io_ready, df);
	if (!df->ev) {
		e = ENOMEM;
		goto fail;
	}
	df->next = dt->files;
	dt->files = df;
	dt->present = 1;
	dt->opens++;
	watch_files(dt);
	*out = &df->base;
	return 0;
fail:
	if (df->od)
		dvb_dev_close(df->od);
	if (e == ENODEV)
		dt->present = 0;
	dvb_dev_free(df->dvb);
	free(df->path);
	free(df);
	return -e;
}

static void dvb_close(struct ffdvb_tuner_file *f)
{
	struct dvb_file *df = file_of(f);
	struct dvb_tuner *dt = tuner_of(f->tuner);

	for (struct dvb_file **p = &dt->files; *p; p = &(*p)->next) {
		if (*p == df) {
			*p = df->next;
			break;
		}
	}
	if (df->ev)
		event_free(df->ev);
	if (df->od)
		dvb_dev_close(df->od);
	dvb_dev_free(df->dvb);
	free(df->path);
	free(df);
	watch_files(dt);
}

/* What the client's DTV_STAT_* / FE_READ_STATUS said about the lock, for status_json. */
static void note_lock(struct dvb_tuner *dt, const struct ffdvb_ioctl *io)
{
	if (io->cmd == FE_READ_STATUS && io->buf)
		dt->locked = !!(*(const uint32_t *)io->buf & FE_HAS_LOCK);
}

int tuner_dvb_forwards(enum ffdvb_tuner_dev dev, unsigned int cmd)
{
	static const unsigned int frontend[] = {
		FE_GET_INFO, FE_DISEQC_RESET_OVERLOAD, FE_DISEQC_SEND_MASTER_CMD,
		FE_DISEQC_RECV_SLAVE_REPLY, FE_DISEQC_SEND_BURST, FE_SET_TONE, FE_SET_VOLTAGE,
		FE_ENABLE_HIGH_LNB_VOLTAGE, FE_READ_STATUS, FE_READ_BER, FE_READ_SIGNAL_STRENGTH,
		FE_READ_SNR, FE_READ_UNCORRECTED_BLOCKS, FE_SET_FRONTEND, FE_GET_FRONTEND,
		FE_SET_FRONTEND_TUNE_MODE, FE_GET_EVENT, FE_DISHNETWORK_SEND_LEGACY_CMD,
		FE_SET_PROPERTY, FE_GET_PROPERTY,
	};
	static const unsigned int demux[] = {
		DMX_START, DMX_STOP, DMX_SET_FILTER, DMX_SET_PES_FILTER, DMX_SET_BUFFER_SIZE,
		DMX_ADD_PID, DMX_REMOVE_PID,
	};
	static const unsigned int dvr[] = { DMX_SET_BUFFER_SIZE };
	const unsigned int *list = dev == FFDVB_TUNER_FRONTEND ? frontend
				   : dev == FFDVB_TUNER_DEMUX  ? demux
							       : dvr;
	size_t n = dev == FFDVB_TUNER_FRONTEND ? sizeof(frontend) / sizeof(frontend[0])
		   : dev == FFDVB_TUNER_DEMUX  ? sizeof(demux) / sizeof(demux[0])
					       : sizeof(dvr) / sizeof(dvr[0]);

	for (size_t i = 0; i < n; i++)
		if (list[i] == cmd)
			return 1;
	return 0;
}

static int dvb_ioctl(struct ffdvb_tuner_file *f, struct ffdvb_ioctl *io)
{
	struct dvb_file *df = file_of(f);
	int r;

	if (df->fd < 0)
		return -ENODEV;
	/* only the requests whose arguments we know reach the real card: any other number could
	   make its driver read or write our memory at an address the client chose */
	if (!tuner_dvb_forwards(f->dev, io->cmd))
		return -ENOTTY;
	if (io->cmd == FE_SET_PROPERTY || io->cmd == FE_GET_PROPERTY) {
		/* the props array travels separately (io->data): rebuild the pointer */
		struct dtv_properties props;

		if (!io->buf)
			return -EFAULT;
		props = *(struct dtv_properties *)io->buf;
		if (io->data_fault && props.num)
			return -EFAULT;
		props.props = io->data;
		r = ioctl(df->fd, io->cmd, &props);
	} else if (io->buf) {
		r = ioctl(df->fd, io->cmd, io->buf);
	} else {
		r = ioctl(df->fd, io->cmd, io->arg);
	}
	if (r < 0) {
		if (errno == EAGAIN && io->cmd == FE_GET_EVENT)
			arm(df);
		return fail(df, errno);
	}
	note_lock(tuner_of(f->tuner), io);
	return r;
}

static ssize_t dvb_read(struct ffdvb_tuner_file *f, void *buf, size_t len)
{
	struct dvb_file *df = file_of(f);
	ssize_t r;

	if (df->fd < 0)
		return -ENODEV;
	r = read(df->fd, buf, len);
	if (r >= 0)
		return r;
	if (errno == EAGAIN)
		arm(df);
	return fail(df, errno);
}

static ssize_t dvb_write(struct ffdvb_tuner_file *f, const void *buf, size_t len)
{
	struct dvb_file *df = file_of(f);
	ssize_t r;

	if (df->fd < 0)
		return -ENODEV;
	r = write(df->fd, buf, len);
	return r >= 0 ? r : fail(df, errno);
}

static unsigned int dvb_poll(struct ffdvb_tuner_file *f)
{
	struct dvb_file *df = file_of(f);
	struct pollfd p;

	if (df->fd < 0)
		return POLLERR | POLLHUP;
	p = (struct pollfd){ .fd = df->fd, .events = POLLIN | POLLRDNORM | POLLPRI | POLLOUT };
	if (poll(&p, 1, 0) < 0)
		return POLLERR;
	if (f->dev != FFDVB_TUNER_FRONTEND && (p.revents & (POLLERR | POLLNVAL)) &&
	    !(p.revents & POLLIN)) {
		file_gone(df);  /* dmxdev's exit: the module is going */
		return POLLERR | POLLHUP;
	}
	if (!(p.revents & POLLIN))
		arm(df);
	return (unsigned int)p.revents;
}

/* Present: a fresh look through libdvbv5 (status is rare). */
static int dvb_status_json(struct ffdvb_tuner *t, char *buf, size_t len)
{
	struct dvb_tuner *dt = tuner_of(t);
	struct dvb_device *dvb = dvb_dev_alloc();
	unsigned int nfiles = 0, gone = 0;
	int present = 0;

	if (dvb) {
		log_quietly(dvb);
		present = dvb_dev_find(dvb, NULL, NULL) == 0 &&
			  seek(dvb, dt->adapter, dt->frontend, DVB_DEVICE_FRONTEND) != NULL;
		dvb_dev_free(dvb);
	}
	for (struct dvb_file *df = dt->files; df; df = df->next) {
		nfiles++;
		gone += df->fd < 0;
	}
	char spec[512];

	tuner_json_str(spec, sizeof(spec), t->spec);
	return snprintf(buf, len,
			"{\"spec\":\"%s\",\"present\":%s,\"locked\":%s,\"adapter\":%u,"
			"\"frontend\":%u,\"open_files\":%u,\"vanished_files\":%u,\"opens\":%lu,"
			"\"vanished\":%lu}",
			spec, present ? "true" : "false",
			present && dt->locked ? "true" : "false", dt->adapter, dt->frontend,
			nfiles, gone, dt->opens, dt->vanished);
}

const struct tuner_backend_ops tuner_dvb_ops = {
	.prefix = "dvb",
	.validates_demux = 1,
	.create = dvb_create,
	.destroy = dvb_destroy,
	.open = dvb_open,
	.close = dvb_close,
	.ioctl = dvb_ioctl,
	.read = dvb_read,
	.write = dvb_write,
	.poll = dvb_poll,
	.status_json = dvb_status_json,
};

static struct ffdvb_tuner *dvb_create(struct event_base *base, const char *arg, char *err,
				      size_t errlen)
{
	struct dvb_tuner *dt;
	unsigned int a, f;

	if (parse_spec(arg, &a, &f) != 0) {
		snprintf(err, errlen, "dvb:%s: expected dvb:ADAPTER[.FRONTEND] (numbers)", arg);
		errno = EINVAL;
		return NULL;
	}
	dt = calloc(1, sizeof(*dt));
	if (!dt) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	dt->adapter = a;
	dt->frontend = f;
	dt->watchdog = evtimer_new(base, watchdog_cb, dt);
	if (!dt->watchdog) {
		free(dt);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return &dt->base;
}
