/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The none tuner through the public tuner API: the tuner-less frontend the card had before
 * (ffdvb-conform's expectations), and a demux/dvr that never has data. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>

#include <linux/dvb/dmx.h>
#include <linux/dvb/frontend.h>

#include "check.h"
#include "ffdvb/abi.h"
#include "test_tuner_file_util.h"
#include "tuner_internal.h"

static int wakes;

static void wake(void *ctx)
{
	(void)ctx;
	wakes++;
}

static void frontend(struct ffdvb_tuner *t)
{
	struct ffdvb_tuner_file *ro, *rw, *rw2;
	struct dvb_frontend_info info;
	struct dtv_property p[4];
	struct dvb_frontend_event ev;
	fe_status_t st = 1;
	char c;

	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_FRONTEND, O_RDONLY, &ro), 0);
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_FRONTEND, O_RDWR | O_NONBLOCK, &rw), 0);
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_FRONTEND, O_RDWR, &rw2), -EBUSY); /* one writer */
	ffdvb_tuner_set_wake(rw, wake, NULL);
	CHECK_EQ(tio_buf(ro, FE_GET_INFO, &info), 0);
	CHECK(strcmp(info.name, "ffdvb virtual frontend") == 0);
	CHECK_EQ(info.type, FE_QPSK);
	CHECK(info.frequency_min < info.frequency_max);
	CHECK(info.caps & FE_CAN_2G_MODULATION);
	CHECK_EQ(tio_buf(ro, FE_READ_STATUS, &st), 0);
	CHECK_EQ(st, 0);

	memset(p, 0, sizeof(p));
	p[0].cmd = DTV_ENUM_DELSYS;
	p[1].cmd = DTV_API_VERSION;
	p[2].cmd = DTV_DELIVERY_SYSTEM;
	p[3].cmd = DTV_FREQUENCY;
	CHECK_EQ(tprops(ro, FE_GET_PROPERTY, p, 4, 0), 0);
	CHECK_EQ(p[0].u.buffer.len, 4);
	CHECK(p[0].u.buffer.data[0] == SYS_DVBC_ANNEX_A && p[0].u.buffer.data[1] == SYS_DVBT &&
	      p[0].u.buffer.data[2] == SYS_DVBS && p[0].u.buffer.data[3] == SYS_DVBS2);
	CHECK_EQ(p[1].u.data, 0x050b);
	CHECK_EQ(p[2].u.data, SYS_DVBS);
	CHECK_EQ(p[3].u.data, 0);
	p[3].cmd = 200;
	CHECK_EQ(tprops(ro, FE_GET_PROPERTY, p, 4, 0), -EINVAL); /* unknown: whole call fails */
	CHECK_EQ(p[3].result, -EINVAL);
	CHECK_EQ(tprops(ro, FE_GET_PROPERTY, p, 0, 0), -EINVAL);
	CHECK_EQ(tprops(ro, FE_GET_PROPERTY, p, 65, 1), -EINVAL);
	CHECK_EQ(tprops(ro, FE_GET_PROPERTY, p, 2, 1), -EFAULT);
	memset(p, 0, sizeof(p));
	p[0].cmd = DTV_STAT_SIGNAL_STRENGTH;
	CHECK_EQ(tprops(ro, FE_GET_PROPERTY, p, 1, 0), 0);
	CHECK_EQ(p[0].u.st.len, 0); /* no statistics */

	CHECK_EQ(tune(ro, SYS_DVBT, 474000000), -EPERM);
	CHECK_EQ(tune(rw, SYS_DVBT, 474000000), 0);
	CHECK_EQ(tio_buf(rw, FE_READ_STATUS, &st), 0);
	CHECK_EQ(st, 0); /* no tuner: never locks */
	memset(p, 0, sizeof(p));
	p[0].cmd = DTV_DELIVERY_SYSTEM;
	p[1].cmd = DTV_FREQUENCY;
	CHECK_EQ(tprops(ro, FE_GET_PROPERTY, p, 2, 0), 0);
	CHECK_EQ(p[0].u.data, SYS_DVBT);
	CHECK_EQ(p[1].u.data, 474000000);
	CHECK_EQ(tio_buf(ro, FE_GET_INFO, &info), 0);
	CHECK_EQ(info.type, FE_OFDM);
	p[0].u.data = SYS_ATSC;
	CHECK_EQ(tprops(rw, FE_SET_PROPERTY, p, 1, 0), -EINVAL);
	p[0].cmd = DTV_API_VERSION;
	CHECK_EQ(tprops(rw, FE_SET_PROPERTY, p, 1, 0), -EINVAL);
	CHECK_EQ(tune(rw, SYS_DVBT, 1000), -EINVAL); /* out of the announced range */

	/* no event ever: -EAGAIN (the card sleeps a blocking caller), EPERM read-only */
	CHECK_EQ(tio_buf(ro, FE_GET_EVENT, &ev), -EPERM);
	CHECK_EQ(tio_buf(rw, FE_GET_EVENT, &ev), -EAGAIN);
	CHECK_EQ(tio_arg(ro, FE_SET_TONE, 0), -EPERM);
	CHECK_EQ(tio_arg(rw, FE_SET_TONE, 0), 0);
	CHECK_EQ(tio_arg(rw, _IO('o', 99), 0), -ENOTTY);
	CHECK_EQ(ffdvb_tuner_poll(rw), 0);
	CHECK_EQ(ffdvb_tuner_read(rw, &c, 1), -EINVAL);
	CHECK_EQ(ffdvb_tuner_write(rw, &c, 1), -EINVAL);
	CHECK_EQ(wakes, 0);
	ffdvb_tuner_close(ro);
	ffdvb_tuner_close(rw);
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_FRONTEND, O_RDWR, &rw), 0); /* writer gone */
	ffdvb_tuner_close(rw);
}

static void demux(struct ffdvb_tuner *t, struct event_base *base)
{
	struct ffdvb_tuner_file *dmx, *dvr, *dvr2, *dvrw;
	struct ffdvb_dmx_pes_filter_params p = { .pid = 0x100, .output = FFDVB_DMX_OUT_TAP,
						 .pes_type = FFDVB_DMX_PES_OTHER };
	struct ffdvb_dmx_sct_filter_params s;
	struct ffdvb_ioctl io;
	uint8_t b[188];

	CHECK_EQ(ffdvb_tuner_validates_demux(t), 0);
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DEMUX, O_RDWR, &dmx), 0);
	CHECK_EQ(ffdvb_tuner_read(dmx, b, sizeof(b)), 0); /* never started: EOF */
	CHECK_EQ(ffdvb_tuner_write(dmx, b, sizeof(b)), -EINVAL);
	memset(&io, 0, sizeof(io));
	io.cmd = FFDVB_DMX_SET_PES_FILTER;
	io.buf = &p;
	CHECK_EQ(ffdvb_tuner_ioctl(dmx, &io), 0);
	CHECK_EQ(ffdvb_tuner_read(dmx, b, sizeof(b)), 0);
	CHECK_EQ(tio_arg(dmx, FFDVB_DMX_START, 0), 0);
	CHECK_EQ(ffdvb_tuner_read(dmx, b, sizeof(b)), -EAGAIN);
	CHECK_EQ(ffdvb_tuner_poll(dmx), 0);
	CHECK_EQ(tio_arg(dmx, _IO('o', 99), 0), -ENOTTY);
	/* a section filter with a timeout times out (nothing ever comes) */
	memset(&s, 0, sizeof(s));
	s.timeout = 50;
	s.flags = FFDVB_DMX_IMMEDIATE_START;
	io.cmd = FFDVB_DMX_SET_FILTER;
	io.buf = &s;
	CHECK_EQ(ffdvb_tuner_ioctl(dmx, &io), 0);
	ffdvb_tuner_set_wake(dmx, wake, NULL);
	wakes = 0;
	run_ms(base, 200);
	CHECK_EQ(wakes, 1);
	CHECK_EQ(ffdvb_tuner_poll(dmx), POLLIN | POLLRDNORM | POLLPRI | POLLERR);
	CHECK_EQ(ffdvb_tuner_read(dmx, b, sizeof(b)), -ETIMEDOUT);
	CHECK_EQ(ffdvb_tuner_read(dmx, b, sizeof(b)), -EAGAIN);
	ffdvb_tuner_close(dmx); /* also with its timer pending: */
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DEMUX, O_RDWR, &dmx), 0);
	CHECK_EQ(ffdvb_tuner_ioctl(dmx, &io), 0);
	ffdvb_tuner_close(dmx);
	run_ms(base, 100);

	/* dvr0: one reader, one writer, no O_RDWR; a reader has its buffer at once */
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DVR, O_RDWR, &dvr), -EOPNOTSUPP);
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DVR, O_RDONLY | O_NONBLOCK, &dvr), 0);
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DVR, O_RDONLY, &dvr2), -EBUSY);
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DVR, O_WRONLY, &dvrw), 0);
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DVR, O_WRONLY, &dvr2), -EBUSY);
	CHECK_EQ(ffdvb_tuner_read(dvr, b, sizeof(b)), -EAGAIN);
	CHECK_EQ(ffdvb_tuner_poll(dvr), 0);
	CHECK_EQ(ffdvb_tuner_poll(dvrw), POLLOUT | POLLWRNORM | POLLPRI);
	CHECK_EQ(ffdvb_tuner_write(dvr, b, sizeof(b)), -EINVAL);
	CHECK_EQ(tio_arg(dvr, FFDVB_DMX_SET_BUFFER_SIZE, 0), -EINVAL);
	CHECK_EQ(tio_arg(dvr, FFDVB_DMX_SET_BUFFER_SIZE, 100 * 188), 0);
	CHECK_EQ(tio_arg(dvr, FFDVB_DMX_START, 0), -ENOTTY);
	ffdvb_tuner_close(dvr);
	ffdvb_tuner_close(dvrw);
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DVR, O_RDONLY, &dvr), 0);
	ffdvb_tuner_close(dvr);
}

int main(void)
{
	struct event_base *base = event_base_new();
	char err[200] = "", json[512];
	struct ffdvb_tuner *t;

	CHECK(ffdvb_tuner_new(base, "none:x", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "none:x") != NULL);
	t = ffdvb_tuner_new(base, "none", err, sizeof(err));
	CHECK(t != NULL);
	if (!t)
		return finish("test_tuner_file_none");
	CHECK(strcmp(ffdvb_tuner_spec(t), "none") == 0);
	frontend(t);
	demux(t, base);
	CHECK(ffdvb_tuner_status_json(t, json, sizeof(json)) > 0);
	printf("%s\n", json);
	CHECK(strstr(json, "\"spec\":\"none\"") && strstr(json, "\"locked\":false"));
	ffdvb_tuner_free(t);

	/* the dvb: backend passes only the DVB API's requests to a real card */
	CHECK(tuner_dvb_forwards(FFDVB_TUNER_FRONTEND, FE_SET_PROPERTY));
	CHECK(tuner_dvb_forwards(FFDVB_TUNER_FRONTEND, FE_GET_EVENT));
	CHECK(tuner_dvb_forwards(FFDVB_TUNER_DEMUX, DMX_SET_PES_FILTER));
	CHECK(tuner_dvb_forwards(FFDVB_TUNER_DVR, DMX_SET_BUFFER_SIZE));
	CHECK(!tuner_dvb_forwards(FFDVB_TUNER_DVR, DMX_START));
	CHECK(!tuner_dvb_forwards(FFDVB_TUNER_DEMUX, FE_SET_PROPERTY));
	CHECK(!tuner_dvb_forwards(FFDVB_TUNER_FRONTEND, DMX_SET_FILTER));
	CHECK(!tuner_dvb_forwards(FFDVB_TUNER_FRONTEND, _IO('o', 200)));
	CHECK(!tuner_dvb_forwards(FFDVB_TUNER_FRONTEND, 0x5401)); /* TCGETS */

	/* what a user typed comes out as valid JSON: a host with a quote and a backslash */
	t = ffdvb_tuner_new(base, "remote:a\"b\\c:5555", err, sizeof(err));
	CHECK(t != NULL);
	if (t) {
		CHECK(ffdvb_tuner_status_json(t, json, sizeof(json)) > 0);
		printf("%s\n", json);
		CHECK(strstr(json, "\"host\":\"a\\\"b\\\\c\"") != NULL);
		CHECK(strstr(json, "\"spec\":\"remote:a\\\"b\\\\c:5555\"") != NULL);
		ffdvb_tuner_free(t);
	}
	event_base_free(base);
	return finish("test_tuner_file_none");
}
