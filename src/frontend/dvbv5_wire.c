/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dvbv5-daemon's remote protocol, client side (see dvbv5_wire.h for the wire format and the
 * daemon's rules). No threads: calls wait for their reply with poll() and dispatch what comes
 * meanwhile; the receive buffer holds at most one incomplete frame between calls. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ffdvb/clock.h"

#include "dvbv5_wire.h"

#define WIRE_DEFAULT_TIMEOUT_MS 5000
#define WIRE_MAX_SUBS 64
#define WIRE_HEADER_MIN 12              /* seq, empty cmd, retval */
#define WIRE_STATS_LAYER_BYTES (3 * 4 + 12 * 8)
#define DTV_DELIVERY_SYSTEM_CMD 17
#define LNA_AUTO (-1)

struct data_sub {
	int uid;
	dvbv5_wire_data_fn fn;
	void *opaque;
};

struct dvbv5_wire {
	int fd;
	int broken; /* sticky -ENODEV / -EPROTO once the stream is lost or out of step */
	int timeout_ms;
	int32_t seq;
	dvbv5_wire_log_fn log_fn;
	void *log_opaque;
	struct data_sub subs[WIRE_MAX_SUBS];
	int n_subs;
	unsigned long dropped;
	dvbv5_wire_wait_fn wait_fn; /* around every poll() that may sleep */
	void *wait_opaque;
	/* the reply a call waits for */
	int awaiting, got;
	int32_t want_seq, reply_ret;
	const char *want_cmd;
	size_t reply_len;
	uint8_t reply[DVBV5_WIRE_FRAME_MAX];
	size_t rx_len;
	uint8_t rx[4 + DVBV5_WIRE_FRAME_MAX];
	uint8_t tx[4 + DVBV5_WIRE_REQUEST_MAX];
};

/* ---------------------------------------------------------------- field codec */

struct enc {
	uint8_t *buf;
	size_t len, cap;
	int err;
};

struct dec {
	const uint8_t *p;
	size_t left;
	int err;
};

static void put_raw(struct enc *e, const void *p, size_t n)
{
	if (e->err || n > e->cap - e->len) {
		e->err = -EMSGSIZE;
		return;
	}
	memcpy(e->buf + e->len, p, n);
	e->len += n;
}

static void put_i(struct enc *e, int32_t v)
{
	uint32_t u = (uint32_t)v;
	uint8_t b[4] = { (uint8_t)(u >> 24), (uint8_t)(u >> 16), (uint8_t)(u >> 8), (uint8_t)u };
	put_raw(e, b, 4);
}

static void put_bytes(struct enc *e, const void *p, size_t n)
{
	put_i(e, (int32_t)n);
	put_raw(e, p, n);
}

static void put_s(struct enc *e, const char *s)
{
	put_bytes(e, s, strlen(s));
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int32_t get_i(struct dec *d)
{
	if (d->err || d->left < 4) {
		d->err = -EPROTO;
		return 0;
	}
	uint32_t u = be32(d->p);
	d->p += 4;
	d->left -= 4;
	return (int32_t)u;
}

static uint64_t get_lu(struct dec *d)
{
	uint64_t hi = (uint32_t)get_i(d);
	return hi << 32 | (uint32_t)get_i(d);
}

/* a %s into buf (truncated to size - 1, NUL-terminated) */
static void get_s(struct dec *d, char *buf, size_t size)
{
	int32_t n = get_i(d);
	if (d->err || n < 0 || (size_t)n > d->left) {
		d->err = -EPROTO;
		buf[0] = '\0';
		return;
	}
	size_t keep = (size_t)n < size - 1 ? (size_t)n : size - 1;
	memcpy(buf, d->p, keep);
	buf[keep] = '\0';
	d->p += n;
	d->left -= (size_t)n;
}

size_t dvbv5_wire_padded_len(size_t n)
{
	/* the daemon builds the length from signed chars: a byte >= 0x80 would be sign-extended */
	while ((n & 0x80808080u) != 0)
		n = (n | 0xff) + 1;
	return n;
}

/* ---------------------------------------------------------------- connection */

static int fail(struct dvbv5_wire *w, int err)
{
	if (!w->broken)
		w->broken = err;
	return w->broken;
}

static long long now_ms(void)
{
	return (long long)(ffdvb_monotonic_ns() / 1000000);
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

int dvbv5_wire_attach(struct dvbv5_wire **out, int fd)
{
	int r = set_nonblock(fd);
	if (r < 0)
		return r;
	struct dvbv5_wire *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->timeout_ms = WIRE_DEFAULT_TIMEOUT_MS;
	*out = w;
	return 0;
}

static int connect_one(const struct addrinfo *ai, int timeout_ms)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			ai->ai_protocol);
	if (fd < 0)
		return -errno;
	int r = 0;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			r = -errno;
		} else {
			struct pollfd p = { .fd = fd, .events = POLLOUT };
			int err = 0;
			socklen_t len = sizeof(err);
			int n = poll(&p, 1, timeout_ms);
			if (n == 0)
				r = -ETIMEDOUT;
			else if (n < 0)
				r = -errno;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
				r = -errno;
			else if (err)
				r = -err;
		}
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)); /* small requests */
	return fd;
}

int dvbv5_wire_connect(struct dvbv5_wire **out, const char *host, int port, int timeout_ms)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char service[16];
	if (port <= 0 || port > 65535)
		return -EINVAL;
	snprintf(service, sizeof(service), "%d", port);
	if (getaddrinfo(host, service, &hints, &res) != 0)
		return -EHOSTUNREACH;
	int fd = -EHOSTUNREACH;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		fd = connect_one(ai, timeout_ms);
		if (fd >= 0)
			break;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return fd;
	int r = dvbv5_wire_attach(out, fd);
	if (r < 0)
		close(fd);
	return r;
}

void dvbv5_wire_close(struct dvbv5_wire *w)
{
	if (!w)
		return;
	close(w->fd);
	free(w);
}

int dvbv5_wire_fd(const struct dvbv5_wire *w)
{
	return w->fd;
}

void dvbv5_wire_set_timeout(struct dvbv5_wire *w, int timeout_ms)
{
	w->timeout_ms = timeout_ms;
}

void dvbv5_wire_on_wait(struct dvbv5_wire *w, dvbv5_wire_wait_fn fn, void *opaque)
{
	w->wait_fn = fn;
	w->wait_opaque = opaque;
}

/* poll(2) of the connection, with the owner told while it may sleep */
static int wait_fd(struct dvbv5_wire *w, struct pollfd *p, int timeout_ms)
{
	int n, saved;

	if (timeout_ms <= 0 || !w->wait_fn)
		return poll(p, 1, timeout_ms < 0 ? 0 : timeout_ms);
	w->wait_fn(w->wait_opaque, 1);
	n = poll(p, 1, timeout_ms);
	saved = errno;
	w->wait_fn(w->wait_opaque, 0);
	errno = saved;
	return n;
}

void dvbv5_wire_on_log(struct dvbv5_wire *w, dvbv5_wire_log_fn fn, void *opaque)
{
	w->log_fn = fn;
	w->log_opaque = opaque;
}

int dvbv5_wire_on_data(struct dvbv5_wire *w, int uid, dvbv5_wire_data_fn fn, void *opaque)
{
	for (int i = 0; i < w->n_subs; i++) {
		if (w->subs[i].uid != uid)
			continue;
		if (fn) {
			w->subs[i].fn = fn;
			w->subs[i].opaque = opaque;
		} else {
			w->subs[i] = w->subs[--w->n_subs];
		}
		return 0;
	}
	if (!fn)
		return 0;
	if (w->n_subs == WIRE_MAX_SUBS)
		return -ENOSPC;
	w->subs[w->n_subs++] = (struct data_sub){ uid, fn, opaque };
	return 0;
}

unsigned long dvbv5_wire_dropped(const struct dvbv5_wire *w)
{
	return w->dropped;
}

/* ---------------------------------------------------------------- receiving */

static void dispatch_data(struct dvbv5_wire *w, int uid, int result, const uint8_t *p, size_t n)
{
	for (int i = 0; i < w->n_subs; i++) {
		if (w->subs[i].uid == uid) {
			w->subs[i].fn(w->subs[i].opaque, uid, result, p, n);
			return;
		}
	}
	w->dropped++;
}

/* one complete frame: 0, or -EPROTO when it does not parse */
static int handle_frame(struct dvbv5_wire *w, const uint8_t *f, size_t n)
{
	struct dec d = { f, n, 0 };
	char cmd[64];
	int32_t seq = get_i(&d);
	get_s(&d, cmd, sizeof(cmd));
	int32_t ret = get_i(&d);
	if (d.err)
		return -EPROTO;
	if (seq == 0) {
		if (!strcmp(cmd, "data_read")) {
			int32_t uid = get_i(&d);
			if (d.err)
				return -EPROTO;
			dispatch_data(w, uid, ret, d.p, d.left);
		} else if (!strcmp(cmd, "log")) {
			char text[512];
			get_s(&d, text, sizeof(text));
			if (d.err)
				return -EPROTO;
			if (w->log_fn)
				w->log_fn(w->log_opaque, ret, text);
		} /* dev_change and anything newer: nothing to do */
		return 0;
	}
	if (!w->awaiting || w->got || seq != w->want_seq)
		return 0; /* a reply to a call that timed out */
	if (strcmp(cmd, w->want_cmd))
		return -EPROTO;
	memcpy(w->reply, d.p, d.left);
	w->reply_len = d.left;
	w->reply_ret = ret;
	w->got = 1;
	return 0;
}

/* handles every complete frame in rx (so a caller's loop only needs to watch the fd for the
 * rest): count or -errno */
static int drain(struct dvbv5_wire *w)
{
	size_t off = 0;
	int n = 0, r = 0;
	while (w->rx_len - off >= 4) {
		uint32_t len = be32(w->rx + off);
		if (len < WIRE_HEADER_MIN || len > DVBV5_WIRE_FRAME_MAX) {
			r = fail(w, -EPROTO);
			break;
		}
		if (w->rx_len - off - 4 < len)
			break;
		r = handle_frame(w, w->rx + off + 4, len);
		if (r < 0) {
			r = fail(w, r);
			break;
		}
		off += 4 + len;
		n++;
	}
	memmove(w->rx, w->rx + off, w->rx_len - off);
	w->rx_len -= off;
	return r < 0 ? r : n;
}

/* waits up to timeout_ms for bytes and appends them to rx: 0 or -errno */
static int fill(struct dvbv5_wire *w, int timeout_ms)
{
	struct pollfd p = { .fd = w->fd, .events = POLLIN };
	int n = wait_fd(w, &p, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : fail(w, -ENODEV);
	if (n == 0)
		return 0;
	ssize_t got = read(w->fd, w->rx + w->rx_len, sizeof(w->rx) - w->rx_len);
	if (got == 0)
		return fail(w, -ENODEV);
	if (got < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : fail(w, -ENODEV);
	w->rx_len += (size_t)got;
	return 0;
}

int dvbv5_wire_pump(struct dvbv5_wire *w, int timeout_ms)
{
	if (w->broken)
		return w->broken;
	long long deadline = now_ms() + timeout_ms;
	int total = 0;
	for (;;) {
		int r = fill(w, (int)(deadline - now_ms()));
		if (r < 0)
			return total ? total : r;
		r = drain(w);
		if (r < 0)
			return r;
		total += r;
		if (total || now_ms() >= deadline)
			return total;
	}
}

/* ---------------------------------------------------------------- calls */

static struct enc begin(struct dvbv5_wire *w, const char *cmd)
{
	struct enc e = { w->tx + 4, 0, DVBV5_WIRE_REQUEST_MAX, 0 };
	if (++w->seq <= 0)
		w->seq = 1;
	put_i(&e, w->seq);
	put_s(&e, cmd);
	return e;
}

static int send_all(struct dvbv5_wire *w, const uint8_t *p, size_t n, long long deadline)
{
	while (n) {
		ssize_t k = send(w->fd, p, n, MSG_NOSIGNAL);
		if (k > 0) {
			p += k;
			n -= (size_t)k;
			continue;
		}
		if (k < 0 && errno != EAGAIN && errno != EINTR)
			return fail(w, -ENODEV);
		struct pollfd pf = { .fd = w->fd, .events = POLLOUT };
		long long left = deadline - now_ms();
		if (left <= 0)
			return fail(w, -ETIMEDOUT); /* a half-sent request: the stream is lost */
		wait_fd(w, &pf, (int)left);
	}
	return 0;
}

/* sends the request in e and waits for its reply: the daemon's retval, the fields in d */
static int transact(struct dvbv5_wire *w, struct enc *e, const char *cmd, struct dec *d)
{
	if (w->broken)
		return w->broken;
	if (e->err)
		return e->err;
	size_t len = dvbv5_wire_padded_len(e->len);
	if (len > DVBV5_WIRE_REQUEST_MAX)
		return -EMSGSIZE;
	memset(w->tx + 4 + e->len, 0, len - e->len);
	uint8_t *h = w->tx;
	h[0] = (uint8_t)(len >> 24), h[1] = (uint8_t)(len >> 16);
	h[2] = (uint8_t)(len >> 8), h[3] = (uint8_t)len;

	long long deadline = now_ms() + w->timeout_ms;
	int r = send_all(w, w->tx, 4 + len, deadline);
	if (r < 0)
		return r;
	w->awaiting = 1;
	w->got = 0;
	w->want_seq = w->seq;
	w->want_cmd = cmd;
	while ((r = drain(w)) >= 0 && !w->got) {
		long long left = deadline - now_ms();
		if (left <= 0) {
			r = -ETIMEDOUT;
			break;
		}
		r = fill(w, (int)left);
		if (r < 0)
			break;
	}
	int got = w->got;
	w->awaiting = 0;
	w->got = 0;
	if (!got)
		return r < 0 ? r : -ETIMEDOUT;
	*d = (struct dec){ w->reply, w->reply_len, 0 };
	return w->reply_ret;
}

/* a command whose answer is only its retval (the daemon puts byte counts there: >= 0 is ok) */
static int simple(struct dvbv5_wire *w, struct enc *e, const char *cmd)
{
	struct dec d;
	int r = transact(w, e, cmd, &d);
	return r < 0 ? r : 0;
}

int dvbv5_wire_get_version(struct dvbv5_wire *w, char *buf, size_t size)
{
	static const char cmd[] = "daemon_get_version";
	struct enc e = begin(w, cmd);
	struct dec d;
	int r = transact(w, &e, cmd, &d);
	if (r < 0)
		return r;
	char v[256];
	get_s(&d, v, sizeof(v));
	if (d.err)
		return -EPROTO;
	if (size)
		snprintf(buf, size, "%s", v);
	return 0;
}

int dvbv5_wire_dev_open(struct dvbv5_wire *w, const char *sysname, int flags)
{
	static const char cmd[] = "dev_open";
	struct enc e = begin(w, cmd);
	struct dec d;
	put_s(&e, sysname);
	put_i(&e, flags);
	int r = transact(w, &e, cmd, &d);
	return r == 0 ? -ENODEV : r; /* the daemon answers 0 for a name it does not know */
}

static int uid_cmd(struct dvbv5_wire *w, const char *cmd, int v)
{
	struct enc e = begin(w, cmd);
	put_i(&e, v);
	return simple(w, &e, cmd);
}

int dvbv5_wire_dev_close(struct dvbv5_wire *w, int uid)
{
	return uid_cmd(w, "dev_close", uid);
}

int dvbv5_wire_dmx_stop(struct dvbv5_wire *w, int uid)
{
	return uid_cmd(w, "dev_dmx_stop", uid);
}

int dvbv5_wire_dev_set_bufsize(struct dvbv5_wire *w, int uid, int size)
{
	static const char cmd[] = "dev_set_bufsize";
	struct enc e = begin(w, cmd);
	put_i(&e, uid);
	put_i(&e, size);
	return simple(w, &e, cmd);
}

int dvbv5_wire_dev_set_sys(struct dvbv5_wire *w, int sys)
{
	return uid_cmd(w, "dev_set_sys", sys);
}

int dvbv5_wire_fe_get_parms(struct dvbv5_wire *w, struct dvbv5_wire_fe_parms *p)
{
	static const char cmd[] = "fe_get_parms";
	struct enc e = begin(w, cmd);
	struct dec d;
	int r = transact(w, &e, cmd, &d);
	if (r < 0)
		return r;
	memset(p, 0, sizeof(*p));
	get_s(&d, p->name, sizeof(p->name));
	uint32_t *info[] = { &p->freq_min, &p->freq_max, &p->stepsize, &p->tolerance,
			     &p->sr_min, &p->sr_max, &p->sr_tolerance };
	for (size_t i = 0; i < sizeof(info) / sizeof(info[0]); i++)
		*info[i] = (uint32_t)get_i(&d);
	int *pub[] = { &p->version, &p->has_v5_stats, &p->current_sys, &p->num_systems,
		       &p->legacy_fe, &p->abort, &p->lna };
	for (size_t i = 0; i < sizeof(pub) / sizeof(pub[0]); i++)
		*pub[i] = get_i(&d);
	get_s(&d, p->lnb, sizeof(p->lnb));
	p->sat_number = get_i(&d);
	p->freq_bpf = get_i(&d);
	p->diseqc_wait = get_i(&d);
	p->verbose = get_i(&d);
	get_s(&d, p->default_charset, sizeof(p->default_charset));
	get_s(&d, p->output_charset, sizeof(p->output_charset));
	for (int i = 0; i < DVBV5_WIRE_MAX_SYSTEMS; i++)
		p->systems[i] = get_i(&d);
	p->n_props = get_i(&d);
	p->country = get_i(&d);
	p->high_band = get_i(&d);
	p->freq_offset = get_i(&d);
	if (d.err || p->n_props < 0 || p->n_props > DVBV5_WIRE_MAX_PROPS ||
	    p->num_systems < 0 || p->num_systems > DVBV5_WIRE_MAX_SYSTEMS)
		return -EPROTO;
	for (int i = 0; i < p->n_props; i++) {
		p->props[i].cmd = (uint32_t)get_i(&d);
		p->props[i].data = (uint32_t)get_i(&d);
	}
	return d.err ? -EPROTO : 0;
}

int dvbv5_wire_fe_set_parms(struct dvbv5_wire *w, const struct dvbv5_wire_fe_parms *p)
{
	static const char cmd[] = "fe_set_parms";
	if (p->n_props < 0 || p->n_props > DVBV5_WIRE_MAX_PROPS)
		return -EINVAL;
	struct enc e = begin(w, cmd);
	put_i(&e, p->abort);
	put_i(&e, p->lna);
	put_s(&e, p->lnb);
	put_i(&e, p->sat_number);
	put_i(&e, p->freq_bpf);
	put_i(&e, p->diseqc_wait);
	put_i(&e, p->verbose);
	put_s(&e, p->default_charset);
	put_s(&e, p->output_charset);
	put_i(&e, p->country);
	for (int i = 0; i < p->n_props; i++) {
		put_i(&e, (int32_t)p->props[i].cmd);
		put_i(&e, (int32_t)p->props[i].data);
	}
	return simple(w, &e, cmd);
}

int dvbv5_wire_fe_get_stats(struct dvbv5_wire *w, struct dvbv5_wire_fe_stats *s)
{
	static const char cmd[] = "fe_get_stats";
	struct enc e = begin(w, cmd);
	struct dec d;
	int r = transact(w, &e, cmd, &d);
	if (r < 0)
		return r;
	memset(s, 0, sizeof(*s));
	s->status = (uint32_t)get_i(&d);
	if (d.err || d.left < DVBV5_WIRE_STATS_LAYERS * WIRE_STATS_LAYER_BYTES)
		return -EPROTO;
	/* the count of statistics properties is the daemon's build constant: infer it */
	size_t props = d.left - DVBV5_WIRE_STATS_LAYERS * WIRE_STATS_LAYER_BYTES;
	if (props % 8 || props / 8 > DVBV5_WIRE_MAX_STATS_PROPS)
		return -EPROTO;
	s->n_props = (int)(props / 8);
	for (int i = 0; i < s->n_props; i++) {
		s->props[i].cmd = (uint32_t)get_i(&d);
		s->props[i].data = (uint32_t)get_i(&d);
	}
	for (int l = 0; l < DVBV5_WIRE_STATS_LAYERS; l++) {
		s->layers[l].has_post_ber = get_i(&d);
		s->layers[l].has_pre_ber = get_i(&d);
		s->layers[l].has_per = get_i(&d);
		for (int c = 0; c < 12; c++)
			s->layers[l].counters[c] = get_lu(&d);
	}
	return d.err ? -EPROTO : 0;
}

int dvbv5_wire_dmx_set_pesfilter(struct dvbv5_wire *w, int uid, int pid, int type, int output,
				 int bufsize)
{
	static const char cmd[] = "dev_dmx_set_pesfilter";
	struct enc e = begin(w, cmd);
	put_i(&e, uid);
	put_i(&e, pid);
	put_i(&e, type);
	put_i(&e, output);
	put_i(&e, bufsize);
	return simple(w, &e, cmd);
}

int dvbv5_wire_dmx_set_section_filter(struct dvbv5_wire *w, int uid, int pid, int filtsize,
				      const uint8_t filter[16], const uint8_t mask[16],
				      const uint8_t mode[16], int flags)
{
	static const char cmd[] = "dev_dmx_set_section_filter";
	if (filtsize < 0 || filtsize > 16)
		return -EINVAL;
	struct enc e = begin(w, cmd);
	put_i(&e, uid);
	put_i(&e, pid);
	put_i(&e, filtsize);
	/* the daemon copies each into a 17-byte array: always 16 raw bytes (zeros travel fine) */
	put_bytes(&e, filter, 16);
	put_bytes(&e, mask, 16);
	put_bytes(&e, mode, 16);
	put_i(&e, flags);
	return simple(w, &e, cmd);
}

int dvbv5_wire_fe_parms_init(struct dvbv5_wire_fe_parms *p, int sys, const uint32_t *cmds,
			     int n_cmds)
{
	if (n_cmds < 0 || n_cmds + 1 > DVBV5_WIRE_MAX_PROPS)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->lna = LNA_AUTO;
	p->sat_number = -1;
	p->current_sys = sys;
	snprintf(p->default_charset, sizeof(p->default_charset), "iso-8859-1");
	snprintf(p->output_charset, sizeof(p->output_charset), "utf-8");
	for (int i = 0; i < n_cmds; i++)
		p->props[i] = (struct dvbv5_wire_prop){ cmds[i], 0 };
	p->props[n_cmds] = (struct dvbv5_wire_prop){ DTV_DELIVERY_SYSTEM_CMD, (uint32_t)sys };
	p->n_props = n_cmds + 1;
	return 0;
}
