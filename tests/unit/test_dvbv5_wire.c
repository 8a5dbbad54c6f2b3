/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/frontend/dvbv5_wire.c against a fake dvbv5-daemon on the other end of a socketpair: the
 * fake's answers are written before each call (seqs are predictable), the requests read back
 * after it. Framing, length bytes >= 0x80 both ways, request padding, seq matching, data_read
 * dispatch, and short/corrupt frames (-EPROTO, never a crash). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "check.h"
#include "dvbv5_wire.h"
#include "test_dvbv5_fake.h"

#define SYS_DVBT 3
#define FE_HAS_LOCK 0x10
static const uint32_t dvbt_cmds[] = { 3, 4, 5, 6, 36, 37, 38, 39, 40 };

/* ---------------------------------------------------------------- the fake daemon */

static void b_lu(struct buf *b, uint64_t v)
{
	b_i(b, (int32_t)(v >> 32));
	b_i(b, (int32_t)v);
}

/* a request that never comes fails the check instead of hanging the test */
static void peer_timeout(int fd)
{
	struct timeval tv = { .tv_sec = 1 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

struct fake {
	int peer;
	int32_t seq; /* the client's next seq */
	struct dvbv5_wire *w;
};

static void fake_open(struct fake *f)
{
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK_EQ(dvbv5_wire_attach(&f->w, sv[0]), 0);
	dvbv5_wire_set_timeout(f->w, 300);
	f->peer = sv[1];
	f->seq = 1;
	peer_timeout(f->peer);
}

static void fake_close(struct fake *f)
{
	dvbv5_wire_close(f->w);
	if (f->peer >= 0)
		close(f->peer);
}

/* a reply: seq, cmd, retval, then the fields */
static void reply(struct fake *f, int32_t seq, const char *cmd, int32_t ret,
		  const struct buf *fields)
{
	static struct buf b;
	b.n = 0;
	b_i(&b, seq);
	b_s(&b, cmd);
	b_i(&b, ret);
	if (fields)
		b_raw(&b, fields->b, fields->n);
	send_frame(f->peer, &b);
}

static void data_read(struct fake *f, int32_t result, int32_t uid, const uint8_t *p, size_t n)
{
	static struct buf b;
	b.n = 0;
	b_i(&b, 0);
	b_s(&b, "data_read");
	b_i(&b, result);
	b_i(&b, uid);
	b_raw(&b, p, n);
	send_frame(f->peer, &b);
}

static void log_frame(struct fake *f, int level, const char *text)
{
	static struct buf b;
	b.n = 0;
	b_i(&b, 0);
	b_s(&b, "log");
	b_i(&b, level);
	b_s(&b, text);
	send_frame(f->peer, &b);
}

/* reads one request as the 1.22.1 daemon would: checks the length bytes (< 0x80 each, since
 * the daemon sign-extends them) and the seq and cmd; returns the argument bytes' count (their
 * start in *args) and the padded payload length in *plen */
static uint8_t req[20000];
static size_t read_request(struct fake *f, const char *cmd, const uint8_t **args, size_t *plen)
{
	uint8_t h[4];
	if (read_all(f->peer, h, 4) < 0) {
		CHECK_LABELLED("a request came", 0);
		return 0;
	}
	CHECK_LABELLED("no length byte >= 0x80", h[0] < 0x80 && h[1] < 0x80 && h[2] < 0x80 &&
						   h[3] < 0x80);
	size_t n = (size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3];
	CHECK_LABELLED("request below the daemon's 16364-byte buffer", n < 16364);
	if (n >= sizeof(req) || read_all(f->peer, req, n) < 0)
		return 0;
	*plen = n;
	uint32_t seq, len;
	memcpy(&seq, req, 4);
	memcpy(&len, req + 4, 4);
	seq = ntohl(seq);
	len = ntohl(len);
	EXPECT_EQ("request seq", seq, f->seq);
	f->seq++;
	CHECK_LABELLED("request cmd", len == strlen(cmd) && !memcmp(req + 8, cmd, len));
	*args = req + 8 + len;
	return n - 8 - len;
}

static int32_t arg_i(const uint8_t **p)
{
	uint32_t v;
	memcpy(&v, *p, 4);
	v = ntohl(v);
	*p += 4;
	return (int32_t)v;
}

/* ---------------------------------------------------------------- callbacks */

struct sink {
	int frames, errors;
	int last_result;
	size_t bytes;
	uint8_t data[20000];
};

static void on_data(void *opaque, int uid, int result, const uint8_t *data, size_t len)
{
	struct sink *s = opaque;
	(void)uid;
	s->frames++;
	s->last_result = result;
	if (result < 0)
		s->errors++;
	if (s->bytes + len <= sizeof(s->data))
		memcpy(s->data + s->bytes, data, len);
	s->bytes += len;
}

static char last_log[600];
static int logs;
static void on_log(void *opaque, int level, const char *text)
{
	(void)opaque;
	logs++;
	snprintf(last_log, sizeof(last_log), "%d %s", level, text);
}

/* ---------------------------------------------------------------- the tests */

static void test_padding(void)
{
	int bad = 0, changed_good = 0;
	for (size_t n = 0; n < 20000; n++) {
		size_t p = dvbv5_wire_padded_len(n);
		if (p < n || (p & 0x80808080u) || p - n > 0x80)
			bad++;
		if (!(n & 0x80808080u) && p != n)
			changed_good++;
	}
	EXPECT_EQ("padded lengths >= n, < n + 129, no byte >= 0x80", bad, 0);
	EXPECT_EQ("lengths without a high byte stay", changed_good, 0);
	CHECK_EQ(dvbv5_wire_padded_len(155), 256);
	CHECK_EQ(dvbv5_wire_padded_len(0x80), 0x100);
	CHECK_EQ(dvbv5_wire_padded_len(0x3f80), 0x4000);
	CHECK_EQ(dvbv5_wire_padded_len(0x17f), 0x17f);
}

static void test_version(void)
{
	struct fake f;
	struct buf fl = { .n = 0 };
	char v[64];
	const uint8_t *a;
	size_t plen;
	fake_open(&f);
	b_s(&fl, "dvbv5-daemon version 1.22.1");
	reply(&f, 1, "daemon_get_version", 0, &fl);
	CHECK_EQ(dvbv5_wire_get_version(f.w, v, sizeof(v)), 0);
	CHECK(!strcmp(v, "dvbv5-daemon version 1.22.1"));
	EXPECT_EQ("no arguments", read_request(&f, "daemon_get_version", &a, &plen), 0);
	EXPECT_EQ("unpadded", plen, 8 + 18);

	/* a reply without its string */
	reply(&f, 2, "daemon_get_version", 0, NULL);
	CHECK_EQ(dvbv5_wire_get_version(f.w, v, sizeof(v)), -EPROTO);
	fake_close(&f);
}

static void fill_parms(struct buf *b, const char *name, int n_props)
{
	b_s(b, name);
	uint32_t info[] = { 51000000, 2150000000u, 62500, 29500000, 1000000, 45000000, 0 };
	for (int i = 0; i < 7; i++)
		b_i(b, (int32_t)info[i]);
	int pub[] = { 0x50b, 1, SYS_DVBT, 5, 0, 0, -1 };
	for (int i = 0; i < 7; i++)
		b_i(b, pub[i]);
	b_s(b, "");
	b_i(b, -1), b_i(b, 0), b_i(b, 0), b_i(b, 0);
	b_s(b, "iso-8859-1");
	b_s(b, "utf-8");
	int sys[20] = { 3, 16, 1, 5, 6 };
	for (int i = 0; i < 20; i++)
		b_i(b, sys[i]);
	b_i(b, n_props), b_i(b, 0), b_i(b, 0), b_i(b, 0);
	for (int i = 0; i < n_props; i++) {
		b_i(b, i < 9 ? (int32_t)dvbt_cmds[i] : 17);
		b_i(b, i == 0 ? 474000000 : i < 9 ? 6 : SYS_DVBT);
	}
}

static void test_fe_parms(void)
{
	struct fake f;
	static struct buf fl;
	struct dvbv5_wire_fe_parms p, q;
	const uint8_t *a;
	size_t plen, n;
	fake_open(&f);

	/* never tuned: 1.22.1 answers -EINVAL and nothing else */
	reply(&f, 1, "fe_get_parms", -EINVAL, NULL);
	CHECK_EQ(dvbv5_wire_fe_get_parms(f.w, &p), -EINVAL);
	read_request(&f, "fe_get_parms", &a, &plen);

	/* a full answer whose frame length has its low byte >= 0x80 */
	fl.n = 0;
	char name[200];
	memset(name, 'x', sizeof(name));
	snprintf(name, 32, "Dummy demod for DVB-T/T2/C/S/S2");
	name[31] = ' ';
	name[100] = '\0';
	fill_parms(&fl, name, 10);
	size_t frame = 4 + 4 + strlen("fe_get_parms") + 4 + fl.n;
	CHECK_LABELLED("the test's frame length has its sign bit set", frame & 0x80);
	reply(&f, 2, "fe_get_parms", 0, &fl);
	CHECK_EQ(dvbv5_wire_fe_get_parms(f.w, &p), 0);
	read_request(&f, "fe_get_parms", &a, &plen);
	CHECK(!strncmp(p.name, "Dummy demod for DVB-T/T2/C/S/S2", 31));
	CHECK_EQ(strlen(p.name), 100);
	CHECK_EQ(p.freq_max, 2150000000u);
	CHECK_EQ(p.stepsize, 62500);
	CHECK_EQ(p.version, 0x50b);
	CHECK_EQ(p.current_sys, SYS_DVBT);
	CHECK_EQ(p.num_systems, 5);
	CHECK_EQ(p.systems[1], 16);
	CHECK_EQ(p.lna, -1);
	CHECK_EQ(p.sat_number, -1);
	CHECK(!strcmp(p.default_charset, "iso-8859-1") && !strcmp(p.output_charset, "utf-8"));
	CHECK_EQ(p.n_props, 10);
	CHECK_EQ(p.props[0].cmd, 3);
	CHECK_EQ(p.props[0].data, 474000000);
	CHECK_EQ(p.props[9].cmd, 17);
	CHECK_EQ(p.props[9].data, SYS_DVBT);

	/* fe_set_parms sends it back field by field: 155 bytes, padded to 256 */
	dvbv5_wire_fe_parms_init(&q, SYS_DVBT, dvbt_cmds, 9);
	CHECK_EQ(q.n_props, 10);
	q.props[0].data = 474000000;
	q.props[2].data = 8000000;
	reply(&f, 3, "fe_set_parms", 0, NULL);
	CHECK_EQ(dvbv5_wire_fe_set_parms(f.w, &q), 0);
	n = read_request(&f, "fe_set_parms", &a, &plen);
	EXPECT_EQ("padded fe_set_parms", plen, 256);
	EXPECT_EQ("arguments + padding", n, 256 - 20);
	const uint8_t *end = a + 135, *z = end;
	while (z < req + plen && *z == 0)
		z++;
	CHECK_LABELLED("padding is zeros", z == req + plen);
	CHECK_EQ(arg_i(&a), 0);   /* abort */
	CHECK_EQ(arg_i(&a), -1);  /* lna */
	CHECK_EQ(arg_i(&a), 0);   /* lnb "" */
	CHECK_EQ(arg_i(&a), -1);  /* sat_number */
	a += 12;                  /* freq_bpf, diseqc_wait, verbose */
	CHECK_EQ(arg_i(&a), 10);
	CHECK(!memcmp(a, "iso-8859-1", 10));
	a += 10;
	CHECK_EQ(arg_i(&a), 5);
	a += 5;
	CHECK_EQ(arg_i(&a), 0);   /* country */
	CHECK_EQ(arg_i(&a), 3);
	CHECK_EQ(arg_i(&a), 474000000);
	CHECK_EQ(arg_i(&a), 4);
	CHECK_EQ(arg_i(&a), 0);
	CHECK_EQ(arg_i(&a), 5);
	CHECK_EQ(arg_i(&a), 8000000);
	a += 6 * 8;
	CHECK_EQ(arg_i(&a), 17);
	CHECK_EQ(arg_i(&a), SYS_DVBT);
	CHECK(a == end);

	/* a cut answer: -EPROTO for this call, the connection stays usable */
	fl.n = 0;
	fill_parms(&fl, "Dummy", 10);
	fl.n -= 6;
	reply(&f, 4, "fe_get_parms", 0, &fl);
	CHECK_EQ(dvbv5_wire_fe_get_parms(f.w, &p), -EPROTO);
	read_request(&f, "fe_get_parms", &a, &plen);
	fl.n = 0;
	fill_parms(&fl, "Dummy", 200); /* more props than anyone has */
	reply(&f, 5, "fe_get_parms", 0, &fl);
	CHECK_EQ(dvbv5_wire_fe_get_parms(f.w, &p), -EPROTO);
	read_request(&f, "fe_get_parms", &a, &plen);
	reply(&f, 6, "dev_set_sys", 12, NULL);
	CHECK_EQ(dvbv5_wire_dev_set_sys(f.w, 1), 0);
	n = read_request(&f, "dev_set_sys", &a, &plen);
	CHECK_EQ(n, 4);
	CHECK_EQ(arg_i(&a), 1);
	fake_close(&f);
}

static void test_stats(void)
{
	struct fake f;
	static struct buf fl;
	struct dvbv5_wire_fe_stats s;
	const uint8_t *a;
	size_t plen;
	fake_open(&f);
	b_i(&fl, 0x1f);
	for (int i = 0; i < 13; i++)
		b_i(&fl, 512 + i), b_i(&fl, i == 0 ? 0x1f : i);
	for (int l = 0; l < 4; l++) {
		b_i(&fl, 1), b_i(&fl, 0), b_i(&fl, l);
		for (int c = 0; c < 12; c++)
			b_lu(&fl, (uint64_t)l << 40 | (uint64_t)c);
	}
	reply(&f, 1, "fe_get_stats", 0, &fl);
	CHECK_EQ(dvbv5_wire_fe_get_stats(f.w, &s), 0);
	read_request(&f, "fe_get_stats", &a, &plen);
	CHECK(s.status & FE_HAS_LOCK);
	CHECK_EQ(s.n_props, 13);
	CHECK_EQ(s.props[12].cmd, 524);
	CHECK_EQ(s.layers[0].has_post_ber, 1);
	CHECK_EQ(s.layers[3].has_per, 3);
	CHECK_EQ(s.layers[2].counters[11], (2ull << 40) | 11);

	fl.n -= 4; /* no longer a whole number of properties */
	reply(&f, 2, "fe_get_stats", 0, &fl);
	CHECK_EQ(dvbv5_wire_fe_get_stats(f.w, &s), -EPROTO);
	read_request(&f, "fe_get_stats", &a, &plen);
	reply(&f, 3, "fe_get_stats", -ENODEV, NULL);
	CHECK_EQ(dvbv5_wire_fe_get_stats(f.w, &s), -ENODEV);
	read_request(&f, "fe_get_stats", &a, &plen);
	fake_close(&f);
}

static void test_seq_and_unsolicited(void)
{
	struct fake f;
	struct buf fl = { .n = 0 };
	static struct sink s7;
	const uint8_t *a;
	size_t plen;
	uint8_t ts[188] = { 0x47, 0x1f, 0xff, 0x10 };
	fake_open(&f);
	dvbv5_wire_on_log(f.w, on_log, NULL);
	CHECK_EQ(dvbv5_wire_on_data(f.w, 7, on_data, &s7), 0);

	/* before the reply: a log, a stray reply, data, a dev_change */
	log_frame(&f, 6, "Device Dummy demod for DVB-T/T2/C/S/S2 capabilities:");
	reply(&f, 99, "dev_close", 4, NULL);
	data_read(&f, 188, 7, ts, sizeof(ts));
	b_s(&fl, "dvb0.frontend0");
	reply(&f, 0, "dev_change", 1, &fl);
	reply(&f, 1, "dev_open", 7, NULL);
	CHECK_EQ(dvbv5_wire_dev_open(f.w, "dvb0.demux0", 2), 7);
	size_t n = read_request(&f, "dev_open", &a, &plen);
	CHECK_EQ(n, 4 + 11 + 4);
	CHECK_EQ(arg_i(&a), 11);
	CHECK(!memcmp(a, "dvb0.demux0", 11));
	a += 11;
	CHECK_EQ(arg_i(&a), 2);
	CHECK_EQ(logs, 1);
	CHECK(!strcmp(last_log, "6 Device Dummy demod for DVB-T/T2/C/S/S2 capabilities:"));
	CHECK_EQ(s7.frames, 1);
	CHECK_EQ(s7.bytes, 188);
	CHECK_EQ(s7.data[0], 0x47);

	/* a name the daemon does not know: retval 0 */
	reply(&f, 2, "dev_open", 0, NULL);
	CHECK_EQ(dvbv5_wire_dev_open(f.w, "dvb9.frontend0", 2), -ENODEV);
	read_request(&f, "dev_open", &a, &plen);

	/* no answer: -ETIMEDOUT; the late answer is dropped, the next call gets its own */
	dvbv5_wire_set_timeout(f.w, 50);
	CHECK_EQ(dvbv5_wire_dev_close(f.w, 7), -ETIMEDOUT);
	read_request(&f, "dev_close", &a, &plen);
	reply(&f, 3, "dev_close", -EBADF, NULL);
	reply(&f, 4, "dev_dmx_stop", 4, NULL);
	CHECK_EQ(dvbv5_wire_dmx_stop(f.w, 7), 0);
	read_request(&f, "dev_dmx_stop", &a, &plen);

	/* the same seq with another command is a broken stream */
	reply(&f, 5, "dev_close", 4, NULL);
	CHECK_EQ(dvbv5_wire_dmx_stop(f.w, 7), -EPROTO);
	read_request(&f, "dev_dmx_stop", &a, &plen);
	CHECK_EQ(dvbv5_wire_dev_close(f.w, 7), -EPROTO);
	fake_close(&f);
}

static void test_filters(void)
{
	struct fake f;
	const uint8_t *a;
	size_t plen, n;
	uint8_t filter[16] = { 0x00 }, mask[16] = { 0xff }, mode[16] = { 0 };
	fake_open(&f);
	reply(&f, 1, "dev_dmx_set_pesfilter", 0, NULL);
	CHECK_EQ(dvbv5_wire_dmx_set_pesfilter(f.w, 7, 0x2000, 20, 3, 188 * 1024), 0);
	n = read_request(&f, "dev_dmx_set_pesfilter", &a, &plen);
	CHECK_EQ(n, 20);
	CHECK_EQ(arg_i(&a), 7);
	CHECK_EQ(arg_i(&a), 0x2000);
	CHECK_EQ(arg_i(&a), 20);
	CHECK_EQ(arg_i(&a), 3);
	CHECK_EQ(arg_i(&a), 188 * 1024);

	reply(&f, 2, "dev_set_bufsize", 8, NULL);
	CHECK_EQ(dvbv5_wire_dev_set_bufsize(f.w, 7, 188 * 1024), 0);
	n = read_request(&f, "dev_set_bufsize", &a, &plen);
	CHECK_EQ(n, 8);
	CHECK_EQ(arg_i(&a), 7);
	CHECK_EQ(arg_i(&a), 188 * 1024);

	reply(&f, 3, "dev_dmx_set_section_filter", -EINVAL, NULL);
	CHECK_EQ(dvbv5_wire_dmx_set_section_filter(f.w, 7, 0, 1, filter, mask, mode, 4), -EINVAL);
	n = read_request(&f, "dev_dmx_set_section_filter", &a, &plen);
	CHECK_EQ(n, 12 + 3 * 20 + 4);
	CHECK_EQ(arg_i(&a), 7);
	CHECK_EQ(arg_i(&a), 0);
	CHECK_EQ(arg_i(&a), 1);
	CHECK_EQ(arg_i(&a), 16);
	CHECK(!memcmp(a, filter, 16));
	a += 16;
	CHECK_EQ(arg_i(&a), 16);
	CHECK(!memcmp(a, mask, 16));
	a += 16 + 20;
	CHECK_EQ(arg_i(&a), 4);
	CHECK_EQ(dvbv5_wire_dmx_set_section_filter(f.w, 7, 0, 17, filter, mask, mode, 0), -EINVAL);
	fake_close(&f);
}

static void test_data(void)
{
	struct fake f;
	static struct sink s5, s6;
	static uint8_t big[16356], small[200];
	fake_open(&f);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + 1);
	big[0] = small[0] = 0x47;
	for (size_t i = 1; i < sizeof(small); i++)
		small[i] = (uint8_t)i;
	CHECK_EQ(dvbv5_wire_on_data(f.w, 5, on_data, &s5), 0);
	CHECK_EQ(dvbv5_wire_on_data(f.w, 6, on_data, &s6), 0);

	data_read(&f, 200, 5, small, sizeof(small));  /* frame of 225 = 0xe1 bytes */
	data_read(&f, 16356, 6, big, sizeof(big));    /* 16381 = 0x3ffd, the daemon's largest */
	data_read(&f, 188, 9, small, 188);            /* nobody's */
	data_read(&f, -EOVERFLOW, 5, NULL, 0);
	int got = 0;
	for (int i = 0; i < 20 && got < 4; i++) {
		int r = dvbv5_wire_pump(f.w, 50);
		CHECK(r >= 0);
		got += r > 0 ? r : 0;
	}
	CHECK_EQ(got, 4);
	CHECK_EQ(s5.frames, 2);
	CHECK_EQ(s5.bytes, 200);
	CHECK(!memcmp(s5.data, small, 200));
	CHECK_EQ(s5.errors, 1);
	CHECK_EQ(s5.last_result, -EOVERFLOW);
	CHECK_EQ(s6.frames, 1);
	CHECK_EQ(s6.bytes, sizeof(big));
	CHECK(!memcmp(s6.data, big, sizeof(big)));
	CHECK_EQ(dvbv5_wire_dropped(f.w), 1);

	/* a frame in two pieces: nothing until it is whole */
	static struct buf b;
	b_i(&b, 0);
	b_s(&b, "data_read");
	b_i(&b, 188);
	b_i(&b, 5);
	b_raw(&b, small, 188);
	uint32_t l = htonl((uint32_t)b.n);
	write_all(f.peer, &l, 4);
	write_all(f.peer, b.b, 10);
	CHECK_EQ(dvbv5_wire_pump(f.w, 20), 0);
	CHECK_EQ(s5.frames, 2);
	write_all(f.peer, b.b + 10, b.n - 10);
	CHECK_EQ(dvbv5_wire_pump(f.w, 200), 1);
	CHECK_EQ(s5.frames, 3);
	CHECK_EQ(s5.bytes, 388);

	/* unsubscribed: dropped */
	CHECK_EQ(dvbv5_wire_on_data(f.w, 5, NULL, NULL), 0);
	data_read(&f, 188, 5, small, 188);
	CHECK_EQ(dvbv5_wire_pump(f.w, 200), 1);
	CHECK_EQ(s5.frames, 3);
	CHECK_EQ(dvbv5_wire_dropped(f.w), 2);

	/* data that arrives with a reply is dispatched in the same call */
	data_read(&f, 188, 6, small, 188);
	reply(&f, 1, "dev_close", 4, NULL);
	data_read(&f, 188, 6, small, 188);
	CHECK_EQ(dvbv5_wire_dev_close(f.w, 5), 0);
	CHECK_EQ(s6.frames, 3);
	fake_close(&f);
}

/* each: bytes the daemon might send, then what a call and a later call answer */
static void corrupt(const char *what, const void *bytes, size_t n, int want, int want_after)
{
	struct fake f;
	struct dvbv5_wire_fe_parms p;
	fake_open(&f);
	dvbv5_wire_set_timeout(f.w, 50);
	write_all(f.peer, bytes, n);
	EXPECT_EQ(what, dvbv5_wire_fe_get_parms(f.w, &p), want);
	EXPECT_EQ(what, dvbv5_wire_fe_get_parms(f.w, &p), want_after);
	fake_close(&f);
}

static void test_corrupt(void)
{
	static const uint8_t too_short[] = { 0, 0, 0, 4, 0, 0, 0, 1 };
	static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xa0, 0, 0, 0, 1 };
	static const uint8_t over[] = { 0, 0, 0x80, 0x01, 0, 0, 0, 1 };
	static const uint8_t bad_cmd[] = { 0, 0, 0, 12, 0, 0, 0, 1, 0, 0, 3, 0xe8, 0, 0, 0, 0 };
	static const uint8_t neg_cmd[] = { 0, 0, 0, 12, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0, 0,
					   0, 0 };
	struct buf b = { .n = 0 };
	corrupt("length 4", too_short, sizeof(too_short), -EPROTO, -EPROTO);
	corrupt("length 0xffffffa0", huge, sizeof(huge), -EPROTO, -EPROTO);
	corrupt("length 0x8001", over, sizeof(over), -EPROTO, -EPROTO);
	corrupt("cmd longer than the frame", bad_cmd, sizeof(bad_cmd), -EPROTO, -EPROTO);
	corrupt("negative cmd length", neg_cmd, sizeof(neg_cmd), -EPROTO, -EPROTO);

	uint8_t frame[64];
	b_i(&b, 0);
	b_s(&b, "data_read");
	b_i(&b, 188); /* no uid */
	uint32_t l = htonl((uint32_t)b.n);
	memcpy(frame, &l, 4);
	memcpy(frame + 4, b.b, b.n);
	corrupt("data_read without uid", frame, 4 + b.n, -EPROTO, -EPROTO);

	b.n = 0;
	b_i(&b, 0);
	b_s(&b, "log");
	b_i(&b, 3);
	b_i(&b, 50); /* text longer than the frame */
	l = htonl((uint32_t)b.n);
	memcpy(frame, &l, 4);
	memcpy(frame + 4, b.b, b.n);
	corrupt("log text longer than the frame", frame, 4 + b.n, -EPROTO, -EPROTO);

	/* nothing, then the daemon gone */
	corrupt("no answer", NULL, 0, -ETIMEDOUT, -ETIMEDOUT);
	struct fake f;
	struct dvbv5_wire_fe_parms p;
	fake_open(&f);
	close(f.peer);
	f.peer = -1;
	CHECK_EQ(dvbv5_wire_fe_get_parms(f.w, &p), -ENODEV);
	CHECK_EQ(dvbv5_wire_dev_close(f.w, 1), -ENODEV);
	CHECK_EQ(dvbv5_wire_pump(f.w, 0), -ENODEV);
	fake_close(&f);
}

/* random answers and random streams: a result in the documented set, never a crash */
static void test_fuzz(void)
{
	srand(12345);
	int odd = 0;
	for (int it = 0; it < 3000; it++) {
		struct fake f;
		static struct buf b;
		struct dvbv5_wire_fe_parms p;
		struct dvbv5_wire_fe_stats s;
		fake_open(&f);
		b.n = 0;
		int stats = it & 1;
		if (it % 3 == 0) { /* a well-formed start, then cut or bent */
			fill_parms(&b, "Dummy", rand() % 12);
			b.n = (size_t)rand() % (b.n + 1);
			for (int k = rand() % 4; k > 0 && b.n; k--)
				b.b[rand() % b.n] = (uint8_t)rand();
		} else {
			b.n = (size_t)rand() % 700;
			for (size_t i = 0; i < b.n; i++)
				b.b[i] = (uint8_t)(rand() % 5 ? 0 : rand());
		}
		reply(&f, 1, stats ? "fe_get_stats" : "fe_get_parms", rand() % 3 - 1, &b);
		int r = stats ? dvbv5_wire_fe_get_stats(f.w, &s) : dvbv5_wire_fe_get_parms(f.w, &p);
		if (r != 0 && r != -EPROTO && r != -1)
			odd++;
		fake_close(&f);
	}
	EXPECT_EQ("random answers: 0, -EPROTO or the retval", odd, 0);

	odd = 0;
	for (int it = 0; it < 300; it++) {
		struct fake f;
		uint8_t junk[600];
		struct dvbv5_wire_fe_parms p;
		fake_open(&f);
		dvbv5_wire_set_timeout(f.w, 2);
		size_t n = (size_t)rand() % sizeof(junk);
		for (size_t i = 0; i < n; i++)
			junk[i] = (uint8_t)(rand() % 3 ? rand() % 16 : rand());
		write_all(f.peer, junk, n);
		int r = dvbv5_wire_fe_get_parms(f.w, &p);
		if (r != -EPROTO && r != -ETIMEDOUT)
			odd++;
		fake_close(&f);
	}
	EXPECT_EQ("random streams: -EPROTO or -ETIMEDOUT", odd, 0);
}

static void test_tcp(void)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	CHECK(bind(ls, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(ls, 1) == 0);
	CHECK(getsockname(ls, (struct sockaddr *)&sa, &len) == 0);
	int port = ntohs(sa.sin_port);
	struct dvbv5_wire *w = NULL;
	CHECK_EQ(dvbv5_wire_connect(&w, "127.0.0.1", port, 1000), 0);
	int peer = accept(ls, NULL, NULL);
	CHECK(peer >= 0);
	peer_timeout(peer);
	struct fake f = { .peer = peer, .seq = 1, .w = w };
	struct buf fl = { .n = 0 };
	char v[64];
	const uint8_t *a;
	size_t plen;
	b_s(&fl, "dvbv5-daemon version 1.22.1");
	reply(&f, 1, "daemon_get_version", 0, &fl);
	CHECK_EQ(dvbv5_wire_get_version(w, v, sizeof(v)), 0);
	read_request(&f, "daemon_get_version", &a, &plen);
	fake_close(&f);
	close(ls); /* nobody listens there now */
	CHECK_EQ(dvbv5_wire_connect(&w, "127.0.0.1", port, 1000), -ECONNREFUSED);
	CHECK_EQ(dvbv5_wire_connect(&w, "127.0.0.1", 0, 1000), -EINVAL);
}

int main(void)
{
	test_padding();
	test_version();
	test_fe_parms();
	test_stats();
	test_seq_and_unsolicited();
	test_filters();
	test_data();
	test_corrupt();
	test_fuzz();
	test_tcp();
	return finish("test_dvbv5_wire");
}
