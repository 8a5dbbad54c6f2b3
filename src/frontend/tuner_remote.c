/* The remote: tuner: a budget adapter behind dvbv5-daemon (remote:HOST:PORT), through libdvbv5's
 * remote protocol. Each client file gets its own connection to the daemon (libdvbv5 keeps one
 * frontend state per struct dvb_device, and the daemon serves a connection's commands one after
 * the other), opened on the adapter "dvbA.xxx0" (A from ADAPTER after the port, default 0).
 *
 * The protocol has no raw ioctls: the frontend calls a client makes are mapped onto libdvbv5's
 * frontend parameters (tuner_remote_fe.c); the demux filters onto dvb_dev_dmx_set_pesfilter /
 * _section_filter / _stop and dvb_dev_set_bufsize. Data comes through dvb_dev_read, a round trip
 * per call, so a thread per data file reads (the remote file is non-blocking: a read waiting in
 * the daemon would hold the connection's other commands) into a bounded ring and wakes the loop
 * through an eventfd. Calls other than reads are synchronous round trips on the loop thread.
 *
 * The daemon stopping: libdvbv5 answers -ENODEV on a dead connection; the file answers -ENODEV
 * from then on and the next open connects again. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <event2/event.h>
#include <libdvbv5/libdvb-version.h>

#include "tuner_remote.h"

static struct remote_tuner *tuner_of(struct ffdvb_tuner *t)
{
	return (struct remote_tuner *)t;
}

static const char *const type_names[] = { "frontend", "demux", "dvr" };

/* ---------------------------------------------------------------- the reader thread */

static void reader_unref(struct remote_reader *r)
{
	int last;

	pthread_mutex_lock(&r->mu);
	last = --r->refs == 0;
	pthread_mutex_unlock(&r->mu);
	if (!last)
		return;
	/* the connection goes with the last user: a thread stuck in a read that the daemon never
	 * answers keeps it (and only it) */
	if (r->od)
		dvb_dev_close(r->od);
	if (r->dvb)
		dvb_dev_free(r->dvb);
	if (r->efd >= 0)
		close(r->efd);
	pthread_mutex_destroy(&r->mu);
	free(r->ring);
	free(r);
}

static void *reader_main(void *arg)
{
	struct remote_reader *r = arg;
	char buf[REMOTE_READ_CHUNK];
	uint64_t one = 1;

	for (;;) {
		ssize_t n;
		int stop;

		pthread_mutex_lock(&r->mu);
		stop = r->stop;
		pthread_mutex_unlock(&r->mu);
		if (stop)
			break;
		errno = 0;
		n = dvb_dev_read(r->od, buf, sizeof(buf));
		if (n < 0 && errno && n == -1)
			n = -errno;
		if (n == -EAGAIN || n == 0) {
			usleep(REMOTE_IDLE_US);
			continue;
		}
		pthread_mutex_lock(&r->mu);
		if (n > 0) {
			size_t room = r->size - r->len, take = (size_t)n < room ? (size_t)n : room;

			for (size_t i = 0; i < take; i++)
				r->ring[(r->head + r->len + i) % r->size] = buf[i];
			r->len += take;
			if (take < (size_t)n)
				r->err = EOVERFLOW; /* as dmxdev: the buffer overflowed, reported once */
		} else if (n == -ENODEV || n == -EIO || n == -ECONNRESET || n == -EPIPE) {
			r->gone = 1;
		} else {
			r->err = (int)-n;
		}
		stop = r->gone;
		pthread_mutex_unlock(&r->mu);
		if (write(r->efd, &one, sizeof(one)) < 0) {
			/* the counter is saturated: the loop has a wake-up pending anyway */
		}
		if (stop)
			break;
	}
	reader_unref(r);
	return NULL;
}

static void reader_ready(evutil_socket_t fd, short what, void *ctx)
{
	struct remote_file *rf = ctx;
	uint64_t v;

	(void)what;
	if (read(fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: somebody drained it already */
	}
	tuner_file_wake(&rf->base);
}

/* Debian's libdvbv5 1.22.1 aborts the whole process (glibc's fortify check in its receive
 * thread) on dvbv5-daemon's answer to dvb_dev_read, so data is off unless FFDVB_REMOTE_READ=1
 * says the library in use is a fixed one (docs/tuner.md). */
static int reads_enabled(void)
{
	const char *v = getenv("FFDVB_REMOTE_READ");

	return v && *v == '1';
}

/* Starts the thread that reads rf's connection; the thread then owns the connection with rf. */
static int reader_start(struct remote_file *rf)
{
	struct remote_reader *r;
	pthread_t th;

	if (rf->reader || !reads_enabled())
		return 0;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->size = REMOTE_RING_SIZE;
	r->ring = malloc(r->size);
	r->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (!r->ring || r->efd < 0)
		goto fail;
	pthread_mutex_init(&r->mu, NULL);
	r->refs = 2;
	r->dvb = rf->dvb;
	r->od = rf->od;
	rf->ev = event_new(rf->base.tuner->base, r->efd, EV_READ | EV_PERSIST, reader_ready, rf);
	if (!rf->ev || event_add(rf->ev, NULL) != 0)
		goto fail_mutex;
	if (pthread_create(&th, NULL, reader_main, r) != 0)
		goto fail_mutex;
	pthread_detach(th);
	rf->dvb = NULL; /* the reader's now: freed by the last of the two */
	rf->reader = r;
	return 0;
fail_mutex:
	if (rf->ev)
		event_free(rf->ev);
	rf->ev = NULL;
	pthread_mutex_destroy(&r->mu);
fail:
	if (r->efd >= 0)
		close(r->efd);
	free(r->ring);
	free(r);
	return -ENOMEM;
}

/* ---------------------------------------------------------------- files */

static struct dvb_open_descriptor *remote_od(struct remote_file *rf)
{
	return rf->reader ? rf->reader->od : rf->od;
}

int remote_gone(struct remote_file *rf, int r)
{
	if (r == -ENODEV || r == -EIO || r == -ECONNRESET || r == -EPIPE) {
		if (!rf->gone) {
			rf->gone = 1;
			tuner_of(rf->base.tuner)->disconnects++;
			tuner_of(rf->base.tuner)->present = 0;
			tuner_file_wake(&rf->base);
		}
		return -ENODEV;
	}
	return r;
}

static void quiet(void *priv, int level, const char *fmt, ...)
{
	(void)priv, (void)level, (void)fmt;
}

static int remote_open(struct ffdvb_tuner *t, enum ffdvb_tuner_dev dev, int flags,
		       struct ffdvb_tuner_file **out)
{
	struct remote_tuner *rt = tuner_of(t);
	struct remote_file *rf = calloc(1, sizeof(*rf));
	char sysname[64];
	int r = -ENODEV;

	if (!rf)
		return -ENOMEM;
	rf->base.tuner = t; /* tuner.c sets it after open; the reader needs it now */
	rf->base.dev = dev;
	rf->base.flags = flags;
	rf->dvb = dvb_dev_alloc();
	if (!rf->dvb) {
		free(rf);
		return -ENOMEM;
	}
	if (!getenv("FFDVB_TUNER_DEBUG"))
		dvb_dev_set_logpriv(rf->dvb, 0, quiet, NULL);
	/* a connection per file; refused or unreachable: the tuner is not there */
	if (dvb_dev_remote_init(rf->dvb, rt->host, rt->port) != 0 ||
	    dvb_dev_find(rf->dvb, NULL, NULL) < 0)
		goto fail;
	snprintf(sysname, sizeof(sysname), "dvb%u.%s%u", rt->adapter, type_names[dev], rt->frontend);
	/* not dvb_dev_seek_by_adapter: libdvbv5 1.22's remote seek aborts (see docs/tuner.md) */
	errno = 0;
	rf->od = dvb_dev_open(rf->dvb, sysname, (flags & O_ACCMODE) |
			      (dev == FFDVB_TUNER_FRONTEND ? 0 : O_NONBLOCK));
	if (!rf->od) {
		r = errno && errno != ENOENT ? -errno : -ENODEV;
		goto fail;
	}
	if (dev == FFDVB_TUNER_FRONTEND)
		remote_fe_opened(rf);
	rf->next = rt->files;
	rt->files = rf;
	rt->present = 1;
	rt->opens++;
	if (dev == FFDVB_TUNER_DVR && (flags & O_ACCMODE) == O_RDONLY && reader_start(rf) < 0) {
		*out = &rf->base;
		return 0; /* reads answer -ENODEV: no thread */
	}
	*out = &rf->base;
	return 0;
fail:
	if (rf->od)
		dvb_dev_close(rf->od);
	dvb_dev_free(rf->dvb);
	free(rf);
	rt->present = 0;
	return r;
}

static void remote_close(struct ffdvb_tuner_file *f)
{
	struct remote_file *rf = (struct remote_file *)f;
	struct remote_tuner *rt = tuner_of(f->tuner);

	for (struct remote_file **p = &rt->files; *p; p = &(*p)->next) {
		if (*p == rf) {
			*p = rf->next;
			break;
		}
	}
	remote_fe_closed(rf);
	if (rf->ev)
		event_free(rf->ev);
	if (rf->reader) {
		pthread_mutex_lock(&rf->reader->mu);
		rf->reader->stop = 1;
		pthread_mutex_unlock(&rf->reader->mu);
		reader_unref(rf->reader);
	} else {
		if (rf->od && !rf->gone)
			dvb_dev_close(rf->od);
		if (rf->dvb)
			dvb_dev_free(rf->dvb);
	}
	free(rf);
}

static int demux_ioctl(struct remote_file *rf, struct ffdvb_ioctl *io)
{
	struct dvb_open_descriptor *od = remote_od(rf);
	int r;

	switch (io->cmd) {
	case DMX_SET_PES_FILTER: {
		const struct dmx_pes_filter_params *p = io->buf;

		if (!p)
			return -EFAULT;
		if (rf->base.dev == FFDVB_TUNER_DVR)
			return -ENOTTY;
		r = dvb_dev_dmx_set_pesfilter(od, p->pid, p->pes_type, p->output, 0);
		break;
	}
	case DMX_SET_FILTER: {
		struct dmx_sct_filter_params *p = io->buf;

		if (!p)
			return -EFAULT;
		if (rf->base.dev == FFDVB_TUNER_DVR)
			return -ENOTTY;
		r = dvb_dev_dmx_set_section_filter(od, p->pid, DMX_FILTER_SIZE, p->filter.filter,
						   p->filter.mask, p->filter.mode, p->flags);
		break;
	}
	case DMX_STOP:
		dvb_dev_dmx_stop(od);
		rf->filter_set = 0;
		return 0;
	case DMX_START:
		/* libdvbv5 starts every filter at once; a stopped one cannot be restarted */
		return rf->filter_set ? 0 : -EINVAL;
	case DMX_SET_BUFFER_SIZE:
		r = dvb_dev_set_bufsize(od, (int)io->arg);
		break;
	default:
		return -EOPNOTSUPP; /* no other demux call exists in the remote protocol */
	}
	if (r == -1)
		r = errno ? -errno : -EINVAL;
	r = remote_gone(rf, r);
	if (r == 0 && io->cmd != DMX_SET_BUFFER_SIZE) {
		rf->filter_set = 1;
		r = reader_start(rf);
	}
	return r < 0 ? r : 0;
}

static int remote_ioctl(struct ffdvb_tuner_file *f, struct ffdvb_ioctl *io)
{
	struct remote_file *rf = (struct remote_file *)f;

	if (rf->gone)
		return -ENODEV;
	if (f->dev == FFDVB_TUNER_FRONTEND)
		return remote_fe_ioctl(rf, io);
	if (!remote_od(rf))
		return -ENODEV;
	return demux_ioctl(rf, io);
}

static ssize_t remote_read(struct ffdvb_tuner_file *f, void *buf, size_t len)
{
	struct remote_file *rf = (struct remote_file *)f;
	struct remote_reader *r = rf->reader;
	ssize_t n = 0;

	if (f->dev == FFDVB_TUNER_FRONTEND)
		return -EINVAL;
	if (rf->gone)
		return -ENODEV;
	if (!r && f->dev == FFDVB_TUNER_DEMUX && !rf->filter_set)
		return 0; /* no filter yet: dmxdev's EOF */
	if (!r)
		return reads_enabled() ? -EAGAIN : -EOPNOTSUPP;
	pthread_mutex_lock(&r->mu);
	if (r->err) {
		n = -r->err;
		r->err = 0;
		if (n == -EOVERFLOW)
			r->len = 0; /* dmxdev flushes the buffer with the error */
	} else if (r->len) {
		size_t take = len < r->len ? len : r->len;

		for (size_t i = 0; i < take; i++)
			((char *)buf)[i] = r->ring[(r->head + i) % r->size];
		r->head = (r->head + take) % r->size;
		r->len -= take;
		n = (ssize_t)take;
	} else if (r->gone) {
		n = -ENODEV;
	} else {
		n = -EAGAIN;
	}
	pthread_mutex_unlock(&r->mu);
	return n == -ENODEV ? remote_gone(rf, -ENODEV) : n;
}

static unsigned int remote_poll(struct ffdvb_tuner_file *f)
{
	struct remote_file *rf = (struct remote_file *)f;
	struct remote_reader *r = rf->reader;
	unsigned int mask = 0;

	if (rf->gone)
		return POLLERR | POLLHUP;
	if (f->dev == FFDVB_TUNER_FRONTEND)
		return remote_fe_poll(rf);
	if (!r)
		return reads_enabled() || (f->dev == FFDVB_TUNER_DEMUX && !rf->filter_set) ? 0 :
		       POLLERR;
	pthread_mutex_lock(&r->mu);
	if (r->len)
		mask |= POLLIN | POLLRDNORM | POLLPRI;
	if (r->err)
		mask |= POLLIN | POLLRDNORM | POLLPRI | POLLERR;
	if (r->gone)
		mask |= POLLERR | POLLHUP;
	pthread_mutex_unlock(&r->mu);
	return mask;
}

static int remote_status_json(struct ffdvb_tuner *t, char *buf, size_t len)
{
	struct remote_tuner *rt = tuner_of(t);
	unsigned int nfiles = 0, gone = 0;

	for (struct remote_file *rf = rt->files; rf; rf = rf->next) {
		nfiles++;
		gone += rf->gone;
	}
	return snprintf(buf, len,
			"{\"spec\":\"%s\",\"present\":%s,\"locked\":%s,\"host\":\"%s\",\"port\":%d,"
			"\"adapter\":%u,\"open_files\":%u,\"disconnected_files\":%u,\"opens\":%lu,"
			"\"disconnects\":%lu}",
			t->spec ? t->spec : "", rt->present ? "true" : "false",
			rt->present && rt->locked ? "true" : "false", rt->host, rt->port,
			rt->adapter, nfiles, gone, rt->opens, rt->disconnects);
}

static void remote_destroy(struct ffdvb_tuner *t)
{
	struct remote_tuner *rt = tuner_of(t);

	free(rt->host);
	free(rt);
}

/* HOST:PORT[:ADAPTER[.FRONTEND]]; an IPv6 address goes in brackets. */
static struct ffdvb_tuner *remote_create(struct event_base *base, const char *arg, char *err,
					 size_t errlen)
{
	struct remote_tuner *rt;
	const char *host = arg, *colon;
	size_t hostlen;
	char *end;
	unsigned long port, a = 0, fe = 0;

	(void)base;
#if LIBDVBV5_VERSION_MAJOR == 1 && LIBDVBV5_VERSION_MINOR == 22
	/* its remote client aborts the whole process on some daemon answers (docs/tuner.md):
	 * every adapter of this ffdvbd would go with it */
	if (!getenv("FFDVB_REMOTE_UNSAFE")) {
		snprintf(err, errlen, "remote:%s: libdvbv5 " LIBDVBV5_VERSION "'s remote protocol is "
			 "broken (it can abort ffdvbd; see docs/tuner.md); FFDVB_REMOTE_UNSAFE=1 "
			 "uses it anyway", arg);
		errno = ENOTSUP;
		return NULL;
	}
#endif
	if (*arg == '[') {
		const char *close = strchr(arg, ']');

		if (!close || close[1] != ':')
			goto bad;
		host = arg + 1;
		hostlen = (size_t)(close - host);
		colon = close + 1;
	} else {
		colon = strchr(arg, ':');
		if (!colon)
			goto bad;
		hostlen = (size_t)(colon - arg);
	}
	if (!hostlen || colon[1] < '0' || colon[1] > '9') {
		snprintf(err, errlen, "remote:%s: expected remote:HOST:PORT (port is a number)", arg);
		errno = EINVAL;
		return NULL;
	}
	port = strtoul(colon + 1, &end, 10);
	if (*end == ':') {
		a = strtoul(end + 1, &end, 10);
		if (*end == '.')
			fe = strtoul(end + 1, &end, 10);
	}
	if (*end || port == 0 || port > 65535 || a > 255 || fe > 255) {
		snprintf(err, errlen, "remote:%s: expected remote:HOST:PORT[:ADAPTER[.FRONTEND]] "
			 "(port 1..65535)", arg);
		errno = EINVAL;
		return NULL;
	}
	rt = calloc(1, sizeof(*rt));
	if (!rt || !(rt->host = strndup(host, hostlen))) {
		free(rt);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	rt->port = (int)port;
	rt->adapter = (unsigned int)a;
	rt->frontend = (unsigned int)fe;
	return &rt->base;
bad:
	snprintf(err, errlen, "remote:%s: expected remote:HOST:PORT", arg);
	errno = EINVAL;
	return NULL;
}

const struct tuner_backend_ops tuner_remote_ops = {
	.prefix = "remote",
	.validates_demux = 1,
	.create = remote_create,
	.destroy = remote_destroy,
	.open = remote_open,
	.close = remote_close,
	.ioctl = remote_ioctl,
	.read = remote_read,
	.poll = remote_poll,
	.status_json = remote_status_json,
};
