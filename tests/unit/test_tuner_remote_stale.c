/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The remote: tuner's demux file hands out only what its current filter asked for, as the
 * kernel's dmxdev does: against a fake dvbv5-daemon that pushes data_read frames around the
 * filter calls, a section of another table is never read, data pushed while no filter runs
 * (before and after DMX_STOP's reply) is never read, and DMX_SET_FILTER, DMX_SET_PES_FILTER
 * and DMX_STOP flush what the old filter left unread; every drop counts in stale_frames.
 * Matching data is read back byte-exact. The bug this guards: dvbv5-scan read a NIT section
 * of the previous filter after DMX_STOP + a new SDT filter, and gave up the SDT.
 *
 * Ordering without sleeps: the fake pushes data only when a request of the client came, and
 * the stream is in order, so data pushed before a reply has been dispatched when the call's
 * result is in; data pushed after a reply is waited for through the wake hook (poll shows
 * POLLIN), with a non-matching frame always pushed before the matching one it waits for. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <event2/event.h>
#include <linux/dvb/dmx.h>

#include "check.h"
#include "ffdvb/node.h"
#include "ffdvb/tuner.h"
#include "test_dvbv5_fake.h"

#define UID_FE 7
#define UID_DMX 8
#define PID_NIT 0x10
#define PID_SDT 0x11
#define PID_VIDEO 0x100
#define TID_NIT 0x40
#define TID_SDT 0x42
#define GUARD_SECONDS 20 /* a hang fails the test instead of reaching ctest's timeout */

/* ---------------------------------------------------------------- sections */

struct sec {
	uint8_t b[64];
	size_t n;
};

static uint32_t crc32_mpeg(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xffffffffu;

	while (n--) {
		crc ^= (uint32_t)*p++ << 24;
		for (int i = 0; i < 8; i++)
			crc = crc & 0x80000000u ? crc << 1 ^ 0x04c11db7u : crc << 1;
	}
	return crc;
}

/* a long-form section with CRC; fill tells the sections of one table apart */
static struct sec section(uint8_t table_id, uint16_t ext, uint8_t fill)
{
	struct sec s = { .n = 0 };
	size_t body = 12;

	s.b[s.n++] = table_id;
	s.b[s.n++] = (uint8_t)(0xf0 | (body + 9) >> 8);
	s.b[s.n++] = (uint8_t)(body + 9);
	s.b[s.n++] = (uint8_t)(ext >> 8);
	s.b[s.n++] = (uint8_t)ext;
	s.b[s.n++] = 0xc1; /* version 0, current */
	s.b[s.n++] = 0;    /* section_number */
	s.b[s.n++] = 0;    /* last_section_number */
	for (size_t i = 0; i < body; i++)
		s.b[s.n++] = (uint8_t)(fill + i);
	uint32_t crc = crc32_mpeg(s.b, s.n);

	for (int i = 3; i >= 0; i--)
		s.b[s.n++] = (uint8_t)(crc >> (8 * i));
	return s;
}

/* ---------------------------------------------------------------- the fake dvbv5-daemon */

struct fake {
	int listen_fd, fd;
	int done_fd[2];   /* the fake says "both files closed" here */
	int fails;        /* the fake's own failed checks (check.h's counters are the main's) */
	int32_t last_seq; /* of the client's requests: they count up from 1 */
	pthread_t thread;
};

static void fake_fail(struct fake *fk, const char *what, long got, long want)
{
	fk->fails++;
	printf("FAIL fake daemon: %s (expected %ld, got %ld)\n", what, want, got);
}

#define FAKE_EQ(fk, what, got, want)                                                         \
	do {                                                                                 \
		long g_ = (long)(got), w_ = (long)(want);                                   \
		if (g_ != w_)                                                                \
			fake_fail(fk, what, g_, w_);                                         \
	} while (0)

/* a frame to the client; a client gone fails the fake */
static void send_to_client(struct fake *fk, const struct buf *payload)
{
	if (send_frame(fk->fd, payload) < 0)
		fake_fail(fk, "frame sent", -1, 0);
}

static void reply(struct fake *fk, int32_t seq, const char *cmd, int32_t ret,
		  const struct buf *fields)
{
	struct buf b = { .n = 0 };

	b_i(&b, seq);
	b_s(&b, cmd);
	b_i(&b, ret);
	if (fields)
		b_raw(&b, fields->b, fields->n);
	send_to_client(fk, &b);
}

/* what the daemon's reader thread pushes for an open demux: result, uid, raw bytes */
static void push(struct fake *fk, const void *p, size_t n)
{
	struct buf b = { .n = 0 };

	b_i(&b, 0);
	b_s(&b, "data_read");
	b_i(&b, (int32_t)n);
	b_i(&b, UID_DMX);
	b_raw(&b, p, n);
	send_to_client(fk, &b);
}

static void push_sec(struct fake *fk, const struct sec *s)
{
	push(fk, s->b, s->n);
}

struct req {
	int32_t seq;
	const uint8_t *args;
	size_t left;
	uint8_t raw[20000];
};

/* the client's next request, which must be cmd: 0, or -1 (checked failed) */
static int expect(struct fake *fk, struct req *r, const char *cmd)
{
	uint8_t h[4];
	uint32_t n, v, len;

	if (read_all(fk->fd, h, 4) < 0) {
		printf("FAIL fake daemon: no request where %s was due\n", cmd);
		fk->fails++;
		return -1;
	}
	n = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
	if (n < 8 || n > sizeof(r->raw) || read_all(fk->fd, r->raw, n) < 0) {
		fake_fail(fk, "request length", (long)n, 0);
		return -1;
	}
	memcpy(&v, r->raw, 4);
	memcpy(&len, r->raw + 4, 4);
	r->seq = (int32_t)ntohl(v);
	len = ntohl(len);
	FAKE_EQ(fk, "request seq", r->seq, fk->last_seq + 1);
	fk->last_seq = r->seq;
	if (len > n - 8 || len != strlen(cmd) || memcmp(r->raw + 8, cmd, len)) {
		printf("FAIL fake daemon: request %.*s where %s was due\n",
		       (int)(len > n - 8 ? n - 8 : len), (const char *)r->raw + 8, cmd);
		fk->fails++;
		return -1;
	}
	r->args = r->raw + 8 + len;
	r->left = n - 8 - len; /* with the client's zero padding at the end */
	return 0;
}

static int32_t arg_i(struct req *r)
{
	uint32_t v = 0;

	if (r->left >= 4) {
		memcpy(&v, r->args, 4);
		r->args += 4;
		r->left -= 4;
	}
	return (int32_t)ntohl(v);
}

/* a %s argument's first byte (the filter/mask/mode arrays: 16 bytes each) */
static int arg_first_byte(struct fake *fk, struct req *r)
{
	int32_t len = arg_i(r);
	int first;

	FAKE_EQ(fk, "filter array length", len, 16);
	if (len < 1 || (size_t)len > r->left)
		return -1;
	first = r->args[0];
	r->args += len;
	r->left -= (size_t)len;
	return first;
}

/* the client's dev_dmx_set_section_filter: checked, not yet answered */
static int expect_section_filter(struct fake *fk, struct req *r, int pid, int table_id)
{
	if (expect(fk, r, "dev_dmx_set_section_filter") < 0)
		return -1;
	FAKE_EQ(fk, "section filter uid", arg_i(r), UID_DMX);
	FAKE_EQ(fk, "section filter pid", arg_i(r), pid);
	FAKE_EQ(fk, "section filter size", arg_i(r), 16);
	FAKE_EQ(fk, "filter[0]: table_id", arg_first_byte(fk, r), table_id);
	FAKE_EQ(fk, "mask[0]", arg_first_byte(fk, r), 0xff);
	FAKE_EQ(fk, "mode[0]", arg_first_byte(fk, r), 0);
	return 0;
}

static int expect_uid(struct fake *fk, struct req *r, const char *cmd, int uid)
{
	if (expect(fk, r, cmd) < 0)
		return -1;
	FAKE_EQ(fk, cmd, arg_i(r), uid);
	return 0;
}

/* The sections, the same on both sides; the phases are main()'s. */
static struct sec nit[8]; /* 1 to 7, in the order they are pushed */
static struct sec sdt[5], sdt_stray;
static const uint8_t pes[] = { 0x00, 0x00, 0x01, 0xe0, 0x00, 0x00, 0x80, 0x00, 0x00,
			       0xde, 0xad, 0xbe, 0xef };
static const uint8_t pes_late[] = { 0x00, 0x00, 0x01, 0xe0, 0x00, 0x00, 0x80, 0x00, 0x00, 0x55 };

static void make_sections(void)
{
	for (int i = 1; i < 8; i++)
		nit[i] = section(TID_NIT, 1, (uint8_t)(0x10 * i));
	sdt_stray = section(TID_SDT, 2, 0x80);
	for (int i = 0; i < 5; i++)
		sdt[i] = section(TID_SDT, 2, (uint8_t)(0x90 + 0x10 * i));
}

static void fake_script(struct fake *fk)
{
	struct req *r = malloc(sizeof(*r));
	struct buf version = { .n = 0 };

	if (!r) {
		fk->fails++;
		return;
	}
	/* the connection and the two opens */
	if (expect(fk, r, "daemon_get_version") < 0)
		goto out;
	b_s(&version, "1.22.1");
	reply(fk, r->seq, "daemon_get_version", 0, &version);
	if (expect(fk, r, "dev_open") < 0)
		goto out;
	reply(fk, r->seq, "dev_open", UID_FE, NULL);
	if (expect(fk, r, "dev_open") < 0)
		goto out;
	reply(fk, r->seq, "dev_open", UID_DMX, NULL);
	if (expect_uid(fk, r, "dev_set_bufsize", UID_DMX) < 0)
		goto out;
	reply(fk, r->seq, "dev_set_bufsize", 0, NULL);

	/* phase 1, NIT filter: the daemon's reader pushes before the reply (the filter runs from
	 * the request on): an SDT section (another table: dropped), then two NIT sections */
	if (expect_section_filter(fk, r, PID_NIT, TID_NIT) < 0)
		goto out;
	push_sec(fk, &sdt_stray);
	push_sec(fk, &nit[1]);
	push_sec(fk, &nit[2]);
	reply(fk, r->seq, "dev_dmx_set_section_filter", 0, NULL);

	/* phase 2, DMX_STOP with nit[2] unread: NIT sections read before the stop, pushed before
	 * and after its reply */
	if (expect_uid(fk, r, "dev_dmx_stop", UID_DMX) < 0)
		goto out;
	push_sec(fk, &nit[3]);
	reply(fk, r->seq, "dev_dmx_stop", 0, NULL);
	push_sec(fk, &nit[4]);

	/* phase 3, the SDT filter dvbv5-scan sets next: more of the old NIT around it */
	if (expect_section_filter(fk, r, PID_SDT, TID_SDT) < 0)
		goto out;
	push_sec(fk, &nit[5]);
	push_sec(fk, &sdt[0]);
	reply(fk, r->seq, "dev_dmx_set_section_filter", 0, NULL);
	push_sec(fk, &nit[6]);
	push_sec(fk, &sdt[1]);
	push_sec(fk, &sdt[2]);

	/* phase 4, a new section filter over the running one (no DMX_STOP), sdt[2] unread: it
	 * would match the new filter too, only the flush keeps it out */
	if (expect_section_filter(fk, r, PID_SDT, TID_SDT) < 0)
		goto out;
	reply(fk, r->seq, "dev_dmx_set_section_filter", 0, NULL);
	push_sec(fk, &nit[7]);
	push_sec(fk, &sdt[3]);
	push_sec(fk, &sdt[4]);

	/* phase 5, a PES filter over it, sdt[4] unread */
	if (expect_uid(fk, r, "dev_dmx_set_pesfilter", UID_DMX) < 0)
		goto out;
	FAKE_EQ(fk, "pes filter pid", arg_i(r), PID_VIDEO);
	reply(fk, r->seq, "dev_dmx_set_pesfilter", 0, NULL);
	push(fk, pes, sizeof(pes));

	/* phase 6, DMX_STOP of the PES filter: its late data is dropped too */
	if (expect_uid(fk, r, "dev_dmx_stop", UID_DMX) < 0)
		goto out;
	push(fk, pes_late, sizeof(pes_late));
	reply(fk, r->seq, "dev_dmx_stop", 0, NULL);

	/* the closes, in the test's order */
	if (expect_uid(fk, r, "dev_close", UID_DMX) < 0)
		goto out;
	reply(fk, r->seq, "dev_close", 0, NULL);
	if (expect_uid(fk, r, "dev_close", UID_FE) < 0)
		goto out;
	reply(fk, r->seq, "dev_close", 0, NULL);
out:
	free(r);
}

static void *fake_main(void *arg)
{
	struct fake *fk = arg;
	struct timeval tv = { .tv_sec = GUARD_SECONDS };
	uint8_t extra[4];
	int one = 1;

	fk->fd = accept(fk->listen_fd, NULL, NULL);
	if (fk->fd < 0) {
		fk->fails++;
		printf("FAIL fake daemon: accept: %s\n", strerror(errno));
	} else {
		setsockopt(fk->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fk->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		fake_script(fk);
	}
	if (write_all(fk->done_fd[1], "x", 1) < 0)
		fk->fails++;
	/* nothing more may come until the tuner lets go of the connection */
	if (fk->fd >= 0 && read(fk->fd, extra, sizeof(extra)) != 0)
		fake_fail(fk, "the connection ends after the closes", 1, 0);
	if (fk->fd >= 0)
		close(fk->fd);
	return NULL;
}

static int fake_start(struct fake *fk, int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	memset(fk, 0, sizeof(*fk));
	fk->fd = -1;
	fk->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fk->listen_fd < 0 || bind(fk->listen_fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fk->listen_fd, 1) < 0 ||
	    getsockname(fk->listen_fd, (struct sockaddr *)&a, &len) < 0 ||
	    pipe(fk->done_fd) < 0)
		return -1;
	*port = ntohs(a.sin_port);
	return pthread_create(&fk->thread, NULL, fake_main, fk) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- the client side */

struct client {
	struct event_base *base;
	struct event *guard;
	int expired; /* the guard ran: something never came */
	int wakes;
};

static void woke(void *ctx)
{
	struct client *c = ctx;

	c->wakes++;
}

static void guard_ran(evutil_socket_t fd, short what, void *ctx)
{
	struct client *c = ctx;

	(void)fd, (void)what;
	c->expired = 1;
	event_base_loopbreak(c->base);
}

/* one round of the loop: the tuner's wake event (a call's result, data) ends it */
static void turn(struct client *c)
{
	event_base_loop(c->base, EVLOOP_ONCE);
}

static int open_file(struct client *c, struct ffdvb_tuner *t, enum ffdvb_tuner_dev dev,
		     struct ffdvb_tuner_file **f)
{
	int r = ffdvb_tuner_open(t, dev, O_RDWR | O_NONBLOCK, f);

	if (r != -FFDVB_EBLOCK)
		return r;
	ffdvb_tuner_set_wake(*f, woke, c);
	while ((r = ffdvb_tuner_open_wait(*f, 0)) == -FFDVB_EBLOCK && !c->expired)
		turn(c);
	return r;
}

/* the ioctl to its result; the data pushed before the daemon's reply has been dispatched then */
static int call(struct client *c, struct ffdvb_tuner_file *f, unsigned int cmd, void *buf,
		unsigned long arg)
{
	struct ffdvb_ioctl io = { .cmd = cmd, .buf = buf, .arg = arg, .nonblock = 1 };
	int r;

	while ((r = ffdvb_tuner_ioctl(f, &io)) == -FFDVB_EBLOCK && !c->expired)
		turn(c);
	return r;
}

static int section_filter(struct client *c, struct ffdvb_tuner_file *f, int pid, int table_id)
{
	struct dmx_sct_filter_params p = { .pid = (uint16_t)pid, .flags = DMX_IMMEDIATE_START };

	p.filter.filter[0] = (uint8_t)table_id;
	p.filter.mask[0] = 0xff;
	return call(c, f, DMX_SET_FILTER, &p, 0);
}

/* until data is there to read (pushed after a reply: its own wake) */
static void wait_readable(struct client *c, struct ffdvb_tuner_file *f)
{
	while (!(ffdvb_tuner_poll(f) & POLLIN) && !c->expired)
		turn(c);
}

/* a counter of the tuner's status JSON ("name":N) */
static unsigned long status_field(struct ffdvb_tuner *t, const char *name)
{
	char json[2048], key[64];
	const char *p;

	ffdvb_tuner_status_json(t, json, sizeof(json));
	snprintf(key, sizeof(key), "\"%s\":", name);
	p = strstr(json, key);
	return p ? strtoul(p + strlen(key), NULL, 10) : 99999;
}

static unsigned long stale_frames(struct ffdvb_tuner *t)
{
	return status_field(t, "stale_frames");
}

/* one read: exactly want's bytes (a read gives at most one section) */
static void read_exactly(struct ffdvb_tuner_file *f, const void *want, size_t n, const char *what)
{
	uint8_t got[4096];
	ssize_t r = ffdvb_tuner_read(f, got, sizeof(got));

	EXPECT_EQ(what, r, (ssize_t)n);
	CHECK_LABELLED(what, r == (ssize_t)n && !memcmp(got, want, n));
	if (r > 0 && (r != (ssize_t)n || memcmp(got, want, n)))
		printf("  read %zd bytes starting %02x %02x ... %02x\n", r, got[0],
		       r > 1 ? got[1] : 0, r > 8 ? got[8] : 0);
}

static void read_nothing(struct ffdvb_tuner_file *f, ssize_t want, const char *what)
{
	uint8_t got[4096];

	EXPECT_EQ(what, ffdvb_tuner_read(f, got, sizeof(got)), want);
}

static void run(struct client *c, struct ffdvb_tuner *t, struct fake *fk)
{
	struct ffdvb_tuner_file *fe = NULL, *dmx = NULL;
	struct dmx_pes_filter_params pes_params = { .pid = PID_VIDEO, .input = DMX_IN_FRONTEND,
						    .output = DMX_OUT_TAP,
						    .pes_type = DMX_PES_OTHER,
						    .flags = DMX_IMMEDIATE_START };
	struct pollfd done = { .fd = fk->done_fd[0], .events = POLLIN };
	char x;

	CHECK_EQ(open_file(c, t, FFDVB_TUNER_FRONTEND, &fe), 0);
	CHECK_EQ(open_file(c, t, FFDVB_TUNER_DEMUX, &dmx), 0);
	if (!fe || !dmx || c->expired)
		goto out;
	read_nothing(dmx, 0, "no filter yet: EOF");

	/* phase 1: of sdt_stray, nit[1], nit[2] the SDT section is dropped */
	CHECK_EQ(section_filter(c, dmx, PID_NIT, TID_NIT), 0);
	EXPECT_EQ("another table's section dropped", stale_frames(t), 1);
	read_exactly(dmx, nit[1].b, nit[1].n, "the NIT filter's first section");

	/* phase 2: nit[2] flushed by the stop, nit[3] (before the reply) dropped; nit[4] (after it) is
	 * dropped whether it comes before the next filter's request or during its round trip */
	CHECK_EQ(call(c, dmx, DMX_STOP, NULL, 0), 0);
	/* nit[4] may still be on its way */
	CHECK_LABELLED("data pushed during DMX_STOP dropped",
		       stale_frames(t) == 2 || stale_frames(t) == 3);
	CHECK(!(ffdvb_tuner_poll(dmx) & POLLIN));
	read_nothing(dmx, 0, "stopped, the unread NIT section flushed: EOF");

	/* phase 3: the SDT filter gets sdt[0], sdt[1], never a NIT section (nit[4], nit[5], nit[6]) */
	CHECK_EQ(section_filter(c, dmx, PID_SDT, TID_SDT), 0);
	/* nit[4] and nit[5] dropped by now, nit[6] (after the reply) may be too */
	CHECK_LABELLED("old NIT data around the new filter dropped",
		       stale_frames(t) == 4 || stale_frames(t) == 5);
	read_exactly(dmx, sdt[0].b, sdt[0].n, "the SDT filter's first read: its section");
	wait_readable(c, dmx); /* sdt[1], after nit[6] */
	read_exactly(dmx, sdt[1].b, sdt[1].n, "the next read: the next SDT section");
	EXPECT_EQ("a NIT section after the reply dropped", stale_frames(t), 5);
	wait_readable(c, dmx); /* sdt[2]: left unread */

	/* phase 4: a new filter flushes sdt[2]; nit[7] dropped, sdt[3] read */
	CHECK_EQ(section_filter(c, dmx, PID_SDT, TID_SDT), 0);
	wait_readable(c, dmx);
	read_exactly(dmx, sdt[3].b, sdt[3].n, "after DMX_SET_FILTER: the new filter's section");
	EXPECT_EQ("a NIT section after the second SDT filter dropped", stale_frames(t), 6);
	wait_readable(c, dmx); /* sdt[4]: left unread */

	/* phase 5: a PES filter flushes sdt[4]; its data is not section-filtered */
	CHECK_EQ(call(c, dmx, DMX_SET_PES_FILTER, &pes_params, 0), 0);
	wait_readable(c, dmx);
	read_exactly(dmx, pes, sizeof(pes), "after DMX_SET_PES_FILTER: its PES data only");
	read_nothing(dmx, -EAGAIN, "nothing more pushed: EAGAIN");

	/* phase 6: PES data pushed during the stop dropped */
	CHECK_EQ(call(c, dmx, DMX_STOP, NULL, 0), 0);
	EXPECT_EQ("PES data pushed during DMX_STOP dropped", stale_frames(t), 7);
	read_nothing(dmx, 0, "stopped: EOF");
	EXPECT_EQ("every frame had its uid's file", status_field(t, "data_dropped"), 0);
out:
	CHECK(!c->expired);
	if (dmx)
		ffdvb_tuner_close(dmx);
	if (fe)
		ffdvb_tuner_close(fe);
	/* the closes reach the fake before the tuner's end cuts the connection */
	CHECK_EQ(poll(&done, 1, GUARD_SECONDS * 1000), 1);
	CHECK_EQ(read(fk->done_fd[0], &x, 1), 1);
}

int main(void)
{
	struct client c = { .base = event_base_new() };
	struct timeval limit = { GUARD_SECONDS, 0 };
	struct ffdvb_tuner *t = NULL;
	struct fake fk;
	char spec[64], err[256];
	int port;

	make_sections();
	CHECK(c.base != NULL);
	if (!c.base || fake_start(&fk, &port) < 0) {
		CHECK_LABELLED("fake daemon started", 0);
		return finish("test_tuner_remote_stale");
	}
	c.guard = evtimer_new(c.base, guard_ran, &c);
	evtimer_add(c.guard, &limit);
	snprintf(spec, sizeof(spec), "remote:127.0.0.1:%d", port);
	t = ffdvb_tuner_new(c.base, spec, err, sizeof(err));
	CHECK(t != NULL);
	if (t) {
		run(&c, t, &fk);
		ffdvb_tuner_free(t); /* the fake reads its EOF */
	} else {
		printf("%s\n", err);
		shutdown(fk.listen_fd, SHUT_RDWR); /* the fake's accept ends */
	}
	pthread_join(fk.thread, NULL);
	EXPECT_EQ("the fake daemon's checks", fk.fails, 0);
	close(fk.listen_fd);
	close(fk.done_fd[0]);
	close(fk.done_fd[1]);
	event_free(c.guard);
	event_base_free(c.base);
	return finish("test_tuner_remote_stale");
}
