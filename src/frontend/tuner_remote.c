/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The remote: tuner: a budget adapter behind dvbv5-daemon (remote:HOST:PORT[:A[.F]]), spoken to
 * with our own client of its wire protocol (dvbv5_wire.c), not libdvbv5's remote client, which
 * aborts the process and loses the frontend parameters in Debian's 1.22.1 (docs/tuner.md).
 *
 * One connection per tuner, owned by the tuner and watched by the loop: the daemon keeps one
 * global state (closing any connection closes every device it has open, and it pushes all data
 * to the connection that last said daemon_get_version). Each client file is its own dev_open
 * of "dvbA.frontendF" / "dvbA.demuxF" / "dvbA.dvrF" on it (a uid). The daemon reads every open
 * demux/dvr itself and pushes data_read frames tagged with the uid; they go into that file's
 * ring and wake its client. Commands are synchronous round trips, made by the tuner's worker
 * thread (tuner_remote_calls.c): the daemon's loop only queues calls and reads the rings.
 *
 * The daemon stopping: the connection's EOF (seen by the loop or by the next command) marks
 * every file gone (-ENODEV from then on); the next open connects again. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <event2/event.h>

#include "ffdvb/log.h"
#include "tuner_remote.h"

#define REMOTE_CONNECT_TIMEOUT_MS 2000
#define REMOTE_RING_MIN (2 * 16384) /* two of the daemon's largest data_read frames */

static struct remote_tuner *tuner_of(struct ffdvb_tuner *t)
{
	return (struct remote_tuner *)t;
}

static const char *const type_names[] = { "frontend", "demux", "dvr" };

/* ---------------------------------------------------------------- the connection */

static void close_connection(struct remote_tuner *rt)
{
	if (rt->idle_ev)
		event_del(rt->idle_ev);
	if (rt->wire_ev)
		event_free(rt->wire_ev);
	rt->wire_ev = NULL;
	dvbv5_wire_close(rt->w);
	rt->w = NULL;
}

/* the worker sleeps on the daemon: the loop may read rings and queue calls meanwhile */
static void wire_waiting(void *opaque, int waiting)
{
	struct remote_tuner *rt = opaque;

	if (waiting)
		pthread_mutex_unlock(&rt->lock);
	else
		pthread_mutex_lock(&rt->lock);
}

/* No file open for a while: let go of the daemon (it does not exit on SIGTERM while a
 * connection is open). Not at once: a connection's end makes the daemon close every device
 * and forget where its data goes, which must not overtake the next connection's start. */
static void idle_close(evutil_socket_t fd, short what, void *ctx)
{
	struct remote_tuner *rt = ctx;

	(void)fd, (void)what;
	pthread_mutex_lock(&rt->lock);
	if (!rt->files && rt->w)
		close_connection(rt);
	pthread_mutex_unlock(&rt->lock);
}

static void drop_connection(struct remote_tuner *rt)
{
	if (!rt->w)
		return;
	rt->dropped += dvbv5_wire_dropped(rt->w);
	close_connection(rt);
	rt->present = rt->locked = 0;
	rt->disconnects++;
	for (struct remote_file *rf = rt->files; rf; rf = rf->next) {
		if (rf->gone)
			continue;
		rf->gone = 1;
		if (rf->ev)
			event_del(rf->ev);
		remote_mark_wake(rf);
	}
}

/* nonzero when the connection is closed or broken (dvbv5_wire's errors are sticky) */
static int connection_lost(struct remote_tuner *rt)
{
	return !rt->w || dvbv5_wire_pump(rt->w, 0) < 0;
}

int remote_gone(struct remote_file *rf, int r)
{
	struct remote_tuner *rt = remote_tuner_of(rf);

	if (rf->gone)
		return -ENODEV;
	if ((r == -ENODEV || r == -EPROTO || r == -ETIMEDOUT) && connection_lost(rt)) {
		drop_connection(rt);
		return -ENODEV;
	}
	return r;
}

static void wire_readable(evutil_socket_t fd, short what, void *ctx)
{
	struct remote_tuner *rt = ctx;

	(void)fd, (void)what;
	pthread_mutex_lock(&rt->lock);
	if (rt->w && dvbv5_wire_pump(rt->w, 0) < 0)
		drop_connection(rt);
	pthread_mutex_unlock(&rt->lock);
}

static void wire_log(void *opaque, int level, const char *text)
{
	struct remote_tuner *rt = opaque;

	if (getenv("FFDVB_TUNER_DEBUG"))
		ffdvb_log(FFDVB_LOG_NOTICE, "%s: dvbv5-daemon log %d: %s", rt->base.spec, level, text);
	remote_fe_log_line(rt, text);
}

/* A working connection (the old one if it is still there): 0 or -ENODEV. */
static int ensure_connection(struct remote_tuner *rt)
{
	struct dvbv5_wire *w;
	char version[128];
	int r;

	if (!rt->idle_ev)
		rt->idle_ev = event_new(rt->wbase, -1, 0, idle_close, rt);
	if (!rt->idle_ev)
		return -ENOMEM;
	event_del(rt->idle_ev);
	if (rt->w && !connection_lost(rt))
		return 0;
	drop_connection(rt);
	pthread_mutex_unlock(&rt->lock); /* the name lookup and the connect touch nothing here */
	r = dvbv5_wire_connect(&w, rt->host, rt->port, REMOTE_CONNECT_TIMEOUT_MS);
	pthread_mutex_lock(&rt->lock);
	if (r < 0)
		return -ENODEV;
	if (rt->stopping) {
		dvbv5_wire_close(w);
		return -ENODEV;
	}
	dvbv5_wire_set_timeout(w, REMOTE_TIMEOUT_MS);
	dvbv5_wire_on_wait(w, wire_waiting, rt);
	dvbv5_wire_on_log(w, wire_log, rt);
	/* first, always: the daemon answers nothing else before it, and it makes this connection
	 * the one its logs and data go to */
	r = dvbv5_wire_get_version(w, version, sizeof(version));
	if (r < 0) {
		dvbv5_wire_close(w);
		return -ENODEV;
	}
	rt->wire_ev = event_new(rt->wbase, dvbv5_wire_fd(w), EV_READ | EV_PERSIST,
				wire_readable, rt);
	if (!rt->wire_ev || event_add(rt->wire_ev, NULL) != 0) {
		if (rt->wire_ev)
			event_free(rt->wire_ev);
		rt->wire_ev = NULL;
		dvbv5_wire_close(w);
		return -ENOMEM;
	}
	rt->w = w;
	return 0;
}

/* ---------------------------------------------------------------- data */

static void data_arrived(void *opaque, int uid, int result, const uint8_t *data, size_t len)
{
	struct remote_file *rf = opaque;

	(void)uid;
	if (result < 0) {
		if (result != -EAGAIN && result != -EINTR) {
			rf->err = -result;
			remote_mark_wake(rf);
		}
		return;
	}
	if (!len || !rf->buf.data)
		return;
	if (rf->base.dev == FFDVB_TUNER_DEMUX &&
	    (!rf->accepting || (rf->sections && !ffdvb_section_matches(&rf->match, data, len)))) {
		remote_tuner_of(rf)->stale_frames++;
		return;
	}
	size_t before = rf->buf.len;

	ffdvb_dmxbuf_write2(&rf->buf, data, len, NULL, 0); /* -EOVERFLOW when it does not fit */
	if (rf->sections && rf->buf.len > before) {
		if (rf->fr_len == REMOTE_FRAMES) /* a client that does not read: join the last */
			rf->frames[(rf->fr_head + rf->fr_len - 1) % REMOTE_FRAMES] += (uint32_t)len;
		else
			rf->frames[(rf->fr_head + rf->fr_len++) % REMOTE_FRAMES] = (uint32_t)len;
	}
	remote_mark_wake(rf);
}

static void frames_clear(struct remote_file *rf)
{
	rf->fr_head = rf->fr_len = 0;
}

/* dmxdev's flush when a filter starts or stops: nothing of the old filter is read after it */
static void filter_changes(struct remote_file *rf, int accepting)
{
	ffdvb_dmxbuf_flush(&rf->buf);
	frames_clear(rf);
	rf->accepting = accepting;
}

/* reads up to len bytes, not past the end of the oldest section */
static size_t frames_read(struct remote_file *rf, void *buf, size_t len)
{
	uint32_t *front = &rf->frames[rf->fr_head];
	size_t n;

	if (rf->fr_len && *front < len)
		len = *front;
	n = ffdvb_dmxbuf_read(&rf->buf, buf, len);
	if (rf->fr_len && (*front -= (uint32_t)n) == 0) {
		rf->fr_head = (rf->fr_head + 1) % REMOTE_FRAMES;
		rf->fr_len--;
	}
	if (!rf->buf.len)
		frames_clear(rf); /* never out of step with the ring */
	return n;
}

/* ---------------------------------------------------------------- files */

static int open_uid(struct remote_tuner *rt, enum ffdvb_tuner_dev dev, int flags)
{
	char sysname[64];
	int uid = -ENODEV;

	snprintf(sysname, sizeof(sysname), "dvb%u.%s%u", rt->adapter, type_names[dev],
		 rt->frontend);
	/* a connection that died while idle shows up here: connect again, once */
	for (int attempt = 0; attempt < 2; attempt++) {
		if (ensure_connection(rt) < 0)
			return -ENODEV;
		uid = dvbv5_wire_dev_open(rt->w, sysname, flags & O_ACCMODE);
		if (uid >= 0 || !connection_lost(rt))
			break;
		drop_connection(rt);
		uid = -ENODEV;
	}
	return uid;
}

/* The worker's half of an open: the daemon's dev_open (connecting first if needed). */
int remote_do_open(struct remote_file *rf)
{
	struct remote_tuner *rt = remote_tuner_of(rf);
	int r;

	rf->gone = 0; /* a connection lost before this open ran is not this file's */
	r = open_uid(rt, rf->base.dev, rf->base.flags);
	if (r < 0) {
		if (!rt->w)
			rt->present = 0;
		rf->gone = 1;
		return r;
	}
	rf->uid = r;
	rt->present = 1;
	rt->opens++;
	if (rf->base.dev == FFDVB_TUNER_FRONTEND) {
		remote_fe_opened(rf);
		return 0;
	}
	r = dvbv5_wire_on_data(rt->w, rf->uid, data_arrived, rf);
	/* the daemon's buffer before any filter starts (EBUSY after); only readers get data, but
	 * a demux's buffer counts for its section/PES reads too */
	if (r == 0 && (rf->base.flags & O_ACCMODE) != O_WRONLY)
		r = remote_gone(rf, dvbv5_wire_dev_set_bufsize(rt->w, rf->uid, REMOTE_DEV_BUFSIZE));
	if (r == -ENOSPC) { /* too many files on one connection: this one cannot work */
		dvbv5_wire_on_data(rt->w, rf->uid, NULL, NULL);
		remote_gone(rf, dvbv5_wire_dev_close(rt->w, rf->uid)); /* drops a lost connection */
		rf->gone = 1;
		return -EMFILE;
	}
	if (r == -ENODEV) {
		rf->gone = 1;
		return -ENODEV;
	}
	return 0;
}

void remote_do_close(struct remote_file *rf)
{
	struct remote_tuner *rt = remote_tuner_of(rf);

	for (struct remote_file **p = &rt->files; *p; p = &(*p)->next) {
		if (*p == rf) {
			*p = rf->next;
			break;
		}
	}
	remote_fe_closed(rf);
	if (rf->ev)
		event_free(rf->ev);
	if (!rf->gone && rf->open_result == 0 && rt->w) {
		int r;

		dvbv5_wire_on_data(rt->w, rf->uid, NULL, NULL);
		r = dvbv5_wire_dev_close(rt->w, rf->uid);
		if ((r == -ENODEV || r == -EPROTO || r == -ETIMEDOUT) && connection_lost(rt))
			drop_connection(rt);
	}
	ffdvb_dmxbuf_release(&rf->buf);
	free(rf);
	if (!rt->files && rt->w && rt->idle_ev && !rt->stopping) {
		struct timeval idle = { REMOTE_IDLE_CLOSE_MS / 1000,
				       (REMOTE_IDLE_CLOSE_MS % 1000) * 1000 };

		event_add(rt->idle_ev, &idle);
	}
}

void remote_do_watch(struct remote_tuner *rt)
{
	for (struct remote_file *rf = rt->files; rf; rf = rf->next) {
		if (!rf->watch_wanted)
			continue;
		rf->watch_wanted = 0;
		if (!rf->closing && !rf->gone && rf->open_result == 0)
			remote_fe_watch(rf);
	}
}

void remote_do_stop(struct remote_tuner *rt)
{
	if (rt->w)
		close_connection(rt);
}

/* The loop's open: the file exists at once, its dev_open is the worker's. */
static int remote_open(struct ffdvb_tuner *t, enum ffdvb_tuner_dev dev, int flags,
		       struct ffdvb_tuner_file **out)
{
	struct remote_tuner *rt = tuner_of(t);
	struct remote_file *rf = calloc(1, sizeof(*rf));
	int r;

	if (!rf)
		return -ENOMEM;
	rf->base.tuner = t; /* tuner.c does not: the worker may use rf before we return */
	rf->base.dev = dev;
	rf->base.flags = flags;
	if (dev != FFDVB_TUNER_FRONTEND && ffdvb_dmxbuf_alloc(&rf->buf, REMOTE_RING_SIZE) < 0) {
		free(rf);
		return -ENOMEM;
	}
	pthread_mutex_lock(&rt->lock);
	r = remote_queue_open(rf);
	if (r == -FFDVB_EBLOCK) {
		rf->next = rt->files;
		rt->files = rf;
	}
	pthread_mutex_unlock(&rt->lock);
	if (r != -FFDVB_EBLOCK) {
		ffdvb_dmxbuf_release(&rf->buf);
		free(rf);
		return r;
	}
	*out = &rf->base;
	return r;
}

static int remote_open_wait(struct ffdvb_tuner_file *f, int interrupted)
{
	struct remote_file *rf = (struct remote_file *)f;
	struct remote_tuner *rt = tuner_of(f->tuner);
	int r;

	pthread_mutex_lock(&rt->lock);
	r = rf->open_result;
	pthread_mutex_unlock(&rt->lock);
	if (r == REMOTE_OPENING)
		return interrupted ? -EINTR : -FFDVB_EBLOCK;
	return r;
}

static void remote_close(struct ffdvb_tuner_file *f)
{
	struct remote_tuner *rt = tuner_of(f->tuner);

	pthread_mutex_lock(&rt->lock);
	remote_queue_close((struct remote_file *)f);
	pthread_mutex_unlock(&rt->lock);
}

static int demux_ioctl(struct remote_file *rf, struct ffdvb_ioctl *io)
{
	struct dvbv5_wire *w = remote_tuner_of(rf)->w;
	int r;

	switch (io->cmd) {
	case DMX_SET_PES_FILTER: {
		const struct dmx_pes_filter_params *p = io->buf;

		if (!p)
			return -EFAULT;
		if (rf->base.dev == FFDVB_TUNER_DVR)
			return -ENOTTY;
		/* libdvbv5 starts the filter at once (DMX_IMMEDIATE_START implied) */
		filter_changes(rf, 1);
		rf->sections = 0;
		r = dvbv5_wire_dmx_set_pesfilter(w, rf->uid, p->pid, p->pes_type, p->output, 0);
		break;
	}
	case DMX_SET_FILTER: {
		const struct dmx_sct_filter_params *p = io->buf;

		if (!p)
			return -EFAULT;
		if (rf->base.dev == FFDVB_TUNER_DVR)
			return -ENOTTY;
		/* there is no DMX_START in the protocol: the filter starts now, its sections may
		 * come before the reply */
		filter_changes(rf, 1);
		rf->sections = 1;
		ffdvb_section_match_prepare(&rf->match, p->filter.filter, p->filter.mask,
					    p->filter.mode);
		r = dvbv5_wire_dmx_set_section_filter(w, rf->uid, p->pid, DMX_FILTER_SIZE,
						      p->filter.filter, p->filter.mask,
						      p->filter.mode,
						      (int)(p->flags | DMX_IMMEDIATE_START));
		break;
	}
	case DMX_STOP:
		filter_changes(rf, 0);
		r = remote_gone(rf, dvbv5_wire_dmx_stop(w, rf->uid));
		rf->filter_set = 0;
		return r < 0 ? r : 0;
	case DMX_START:
		/* every filter started with its set call; a stopped one cannot be restarted */
		return rf->filter_set ? 0 : -EINVAL;
	case DMX_SET_BUFFER_SIZE: {
		size_t want = io->arg;

		if (want > FFDVB_DMX_BUFFER_MAX)
			return -ENOMEM; /* as our own ring would: not sent to the server either */

		r = dvbv5_wire_dev_set_bufsize(w, rf->uid, (int)(io->arg > REMOTE_DEV_BUFSIZE ?
							     io->arg : REMOTE_DEV_BUFSIZE));
		r = remote_gone(rf, r);
		if (r < 0)
			return r;
		/* the client's buffer is our ring: it overflows when the client does not read */
		frames_clear(rf);
		return ffdvb_dmxbuf_alloc(&rf->buf, want > REMOTE_RING_MIN ? want : REMOTE_RING_MIN);
	}
	default:
		return -EOPNOTSUPP; /* no other demux call exists in the remote protocol */
	}
	r = remote_gone(rf, r);
	if (r < 0)
		return r;
	rf->filter_set = 1;
	rf->err = 0;
	rf->buf.error = 0;
	return 0;
}

int remote_do_ioctl(struct remote_file *rf, struct ffdvb_ioctl *io)
{
	if (rf->gone || !remote_tuner_of(rf)->w)
		return -ENODEV;
	if (rf->base.dev == FFDVB_TUNER_FRONTEND)
		return remote_fe_ioctl(rf, io);
	return demux_ioctl(rf, io);
}

static int remote_ioctl(struct ffdvb_tuner_file *f, struct ffdvb_ioctl *io)
{
	struct remote_file *rf = (struct remote_file *)f;
	struct remote_tuner *rt = tuner_of(f->tuner);
	int r;

	pthread_mutex_lock(&rt->lock);
	r = !io->progress && rf->gone ? -ENODEV : remote_queue_ioctl(rf, io);
	pthread_mutex_unlock(&rt->lock);
	return r;
}

static ssize_t read_locked(struct ffdvb_tuner_file *f, void *buf, size_t len)
{
	struct remote_file *rf = (struct remote_file *)f;
	ssize_t n;

	if (f->dev == FFDVB_TUNER_FRONTEND)
		return -EINVAL;
	if (rf->gone)
		return -ENODEV;
	if (rf->err) {
		n = -rf->err;
		rf->err = 0;
		return n;
	}
	if (rf->buf.error) {
		n = rf->buf.error;
		rf->buf.error = 0;
		ffdvb_dmxbuf_flush(&rf->buf); /* dmxdev flushes the buffer with the error */
		frames_clear(rf);
		return n;
	}
	if (rf->buf.len)
		return (ssize_t)frames_read(rf, buf, len);
	if (f->dev == FFDVB_TUNER_DEMUX && !rf->filter_set)
		return 0; /* no filter: dmxdev's EOF */
	return -EAGAIN;
}

static unsigned int poll_locked(struct ffdvb_tuner_file *f)
{
	struct remote_file *rf = (struct remote_file *)f;
	unsigned int mask = 0;

	if (rf->gone)
		return POLLERR | POLLHUP;
	if (f->dev == FFDVB_TUNER_FRONTEND)
		return remote_fe_poll(rf);
	if (rf->buf.len)
		mask |= POLLIN | POLLRDNORM | POLLPRI;
	if (rf->err || rf->buf.error)
		mask |= POLLIN | POLLRDNORM | POLLPRI | POLLERR;
	return mask;
}

static ssize_t remote_read(struct ffdvb_tuner_file *f, void *buf, size_t len)
{
	struct remote_tuner *rt = tuner_of(f->tuner);
	ssize_t n;

	pthread_mutex_lock(&rt->lock);
	n = read_locked(f, buf, len);
	pthread_mutex_unlock(&rt->lock);
	return n;
}

static unsigned int remote_poll(struct ffdvb_tuner_file *f)
{
	struct remote_tuner *rt = tuner_of(f->tuner);
	unsigned int mask;

	pthread_mutex_lock(&rt->lock);
	mask = poll_locked(f);
	pthread_mutex_unlock(&rt->lock);
	return mask;
}

static int remote_status_json(struct ffdvb_tuner *t, char *buf, size_t len)
{
	struct remote_tuner *rt = tuner_of(t);
	unsigned int nfiles = 0, gone = 0;
	char spec[512], host[512];
	int n;

	tuner_json_str(spec, sizeof(spec), t->spec);
	tuner_json_str(host, sizeof(host), rt->host);
	pthread_mutex_lock(&rt->lock);
	for (struct remote_file *rf = rt->files; rf; rf = rf->next) {
		nfiles += !rf->closing;
		gone += rf->gone && !rf->closing;
	}
	n = snprintf(buf, len,
			"{\"spec\":\"%s\",\"present\":%s,\"locked\":%s,\"host\":\"%s\",\"port\":%d,"
			"\"adapter\":%u,\"connected\":%s,\"open_files\":%u,\"disconnected_files\":%u,"
			"\"opens\":%lu,\"disconnects\":%lu,\"data_dropped\":%lu,\"stale_frames\":%lu}",
			spec, rt->present ? "true" : "false",
			rt->present && rt->locked ? "true" : "false", host, rt->port,
			rt->adapter, rt->w ? "true" : "false", nfiles, gone, rt->opens,
			rt->disconnects, rt->dropped + (rt->w ? dvbv5_wire_dropped(rt->w) : 0UL),
			rt->stale_frames);
	pthread_mutex_unlock(&rt->lock);
	return n;
}

static void remote_destroy(struct ffdvb_tuner *t)
{
	struct remote_tuner *rt = tuner_of(t);

	remote_calls_stop(rt);
	pthread_mutex_destroy(&rt->lock);
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
	rt->submit_fd = rt->wake_fd = -1;
	pthread_mutex_init(&rt->lock, NULL);
	if (remote_calls_start(rt, base, err, errlen) < 0) {
		pthread_mutex_destroy(&rt->lock);
		free(rt->host);
		free(rt);
		return NULL;
	}
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
	.open_wait = remote_open_wait,
	.close = remote_close,
	.ioctl = remote_ioctl,
	.read = remote_read,
	.poll = remote_poll,
	.status_json = remote_status_json,
};
