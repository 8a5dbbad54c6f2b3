/* SPDX-License-Identifier: GPL-2.0-or-later */
/* demux0 (dvb-core dmxdev rules, DMX_GET_STC) and the minimal frontend0. */
#include "test_card_util.h"

#include <linux/dvb/frontend.h>

static int pes_filter(void *f, uint16_t pid, int output, int pes_type, uint32_t flags)
{
	struct ffdvb_dmx_pes_filter_params p = { pid, FFDVB_DMX_IN_FRONTEND, output, pes_type,
						 flags };

	return io_buf(f, FFDVB_DMX_SET_PES_FILTER, &p, 0);
}

static void stc(void)
{
	struct ffdvb_dmx_stc s = { .num = 1 };
	void *d, *w;
	uint64_t t0;

	env_setup(0);
	d = xopen(FFDVB_NODE_DEMUX, O_RDWR, NULL);
	w = xopen(FFDVB_NODE_VIDEO, O_RDWR, NULL);
	CHECK_EQ(io_buf(d, FFDVB_DMX_GET_STC, &s, 0), -EINVAL);
	s.num = 0;
	CHECK_EQ(io_buf(d, FFDVB_DMX_GET_STC, &s, 0), 0);
	CHECK_EQ(s.base, 1);
	t0 = s.stc;
	E.now += 1000000000;
	CHECK_EQ(io_buf(d, FFDVB_DMX_GET_STC, &s, 0), 0);
	CHECK_EQ(s.stc, t0); /* nothing plays: stands still */

	io_arg(w, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_PLAY, 0), 0);
	E.now += 1000000000;
	CHECK_EQ(io_buf(d, FFDVB_DMX_GET_STC, &s, 0), 0);
	CHECK_EQ(s.stc, t0 + 90000);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_FREEZE, 0), 0);
	E.now += 1000000000;
	CHECK_EQ(io_buf(d, FFDVB_DMX_GET_STC, &s, 0), 0);
	CHECK_EQ(s.stc, t0 + 90000); /* frozen */
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_CONTINUE, 0), 0);
	E.now += 500000000;
	CHECK_EQ(io_buf(d, FFDVB_DMX_GET_STC, &s, 0), 0);
	CHECK_EQ(s.stc, t0 + 135000);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_STOP, 0), 0);
	E.now += 500000000;
	CHECK_EQ(io_buf(d, FFDVB_DMX_GET_STC, &s, 0), 0);
	CHECK_EQ(s.stc, t0 + 135000);

	/* 33 bits */
	E.card->stc_base = (1ull << 33) - 10;
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_PLAY, 0), 0);
	E.now += 1000000; /* 90 ticks */
	CHECK_EQ(io_buf(d, FFDVB_DMX_GET_STC, &s, 0), 0);
	CHECK_EQ(s.stc, 80);
	xclose(w); /* the writer's release stops playback: the clock stops too */
	E.now += 1000000;
	CHECK_EQ(io_buf(d, FFDVB_DMX_GET_STC, &s, 0), 0);
	CHECK_EQ(s.stc, 80);
	xclose(d);
	env_teardown();
}

static void filters(void)
{
	struct ffdvb_dmx_sct_filter_params sct = { .pid = 0x12, .flags = FFDVB_DMX_IMMEDIATE_START };
	uint16_t pids[5], pid;
	void *f1, *f2, *f3;
	char buf[188];

	env_setup(0);
	f1 = xopen(FFDVB_NODE_DEMUX, O_RDWR | O_NONBLOCK, NULL);
	f2 = xopen(FFDVB_NODE_DEMUX, O_RDWR | O_NONBLOCK, NULL);
	f3 = xopen(FFDVB_NODE_DEMUX, O_RDONLY, NULL);
	CHECK_EQ(E.ops->read(f1, buf, sizeof(buf), 1), 0); /* no buffer before the first start */
	CHECK_EQ(E.ops->write(f1, buf, sizeof(buf), 1), -EINVAL);
	CHECK_EQ(E.ops->poll(f1), 0);
	CHECK_EQ(io_arg(f1, FFDVB_DMX_START, 0), -EINVAL);
	CHECK_EQ(io_arg(f1, FFDVB_DMX_STOP, 0), 0);
	CHECK_EQ(io_arg(f1, _IO('o', 49), 0), -ENOTTY); /* old DMX_SET_SOURCE */
	pid = 0x100;
	CHECK_EQ(io_buf(f1, FFDVB_DMX_ADD_PID, &pid, 0), -EINVAL);
	CHECK_EQ(io_buf(f1, FFDVB_DMX_REMOVE_PID, &pid, 0), -EINVAL);
	CHECK_EQ(io_buf(f1, FFDVB_DMX_GET_PES_PIDS, pids, 0), 0);
	CHECK(pids[0] == 0xffff && pids[1] == 0xffff && pids[4] == 0xffff);

	CHECK_EQ(pes_filter(f1, 0x100, FFDVB_DMX_OUT_DECODER, 21, FFDVB_DMX_IMMEDIATE_START),
		 -EINVAL);
	CHECK_EQ(pes_filter(f1, 0x100, FFDVB_DMX_OUT_DECODER, -1, FFDVB_DMX_IMMEDIATE_START),
		 -EINVAL);
	/* one decoder feed per pes_type */
	CHECK_EQ(pes_filter(f1, 0x100, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_VIDEO0,
			    FFDVB_DMX_IMMEDIATE_START), 0);
	CHECK_EQ(E.ops->read(f1, buf, sizeof(buf), 1), -EWOULDBLOCK);
	CHECK_EQ(E.ops->read(f1, buf, sizeof(buf), 0), -FFDVB_EBLOCK);
	CHECK_EQ(pes_filter(f2, 0x200, FFDVB_DMX_OUT_TS_TAP, FFDVB_DMX_PES_VIDEO0,
			    FFDVB_DMX_IMMEDIATE_START), -EINVAL);
	CHECK_EQ(pes_filter(f2, 0x200, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_OTHER,
			    FFDVB_DMX_IMMEDIATE_START), 0);
	CHECK_EQ(pes_filter(f2, 0x200, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_VIDEO0, 0), 0);
	CHECK_EQ(io_arg(f2, FFDVB_DMX_START, 0), -EINVAL);
	CHECK_EQ(io_arg(f1, FFDVB_DMX_STOP, 0), 0);
	CHECK_EQ(io_arg(f2, FFDVB_DMX_START, 0), 0);
	CHECK_EQ(io_arg(f1, FFDVB_DMX_START, 0), -EINVAL);
	xclose(f2); /* closing frees the slot */
	CHECK_EQ(io_arg(f1, FFDVB_DMX_START, 0), 0);
	/* VDR switches a decoder PID off with 0x1FFF */
	CHECK_EQ(io_arg(f1, FFDVB_DMX_STOP, 0), 0);
	CHECK_EQ(pes_filter(f1, 0x1fff, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_VIDEO0,
			    FFDVB_DMX_IMMEDIATE_START), 0);
	CHECK_EQ(io_buf(f1, FFDVB_DMX_GET_PES_PIDS, pids, 0), 0);
	CHECK_EQ(pids[FFDVB_DMX_PES_VIDEO0], 0x1fff);
	CHECK_EQ(pes_filter(f1, 0x2001, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_PCR0,
			    FFDVB_DMX_IMMEDIATE_START), -EINVAL);

	/* an audio decoder PID restarts audio: the effective mute goes (docs/av7110.md, clients §2.9) */
	E.card->effective_mute = 1;
	CHECK_EQ(pes_filter(f3, 0x101, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_AUDIO0,
			    FFDVB_DMX_IMMEDIATE_START), 0);
	CHECK_EQ(E.card->effective_mute, 0);
	CHECK_EQ(io_buf(f3, FFDVB_DMX_GET_PES_PIDS, pids, 0), 0);
	CHECK_EQ(pids[FFDVB_DMX_PES_AUDIO0], 0x101);

	/* several PIDs only for DMX_OUT_TSDEMUX_TAP */
	pid = 0x300;
	CHECK_EQ(io_buf(f3, FFDVB_DMX_ADD_PID, &pid, 0), -EINVAL);
	CHECK_EQ(pes_filter(f3, 0x300, FFDVB_DMX_OUT_TSDEMUX_TAP, FFDVB_DMX_PES_OTHER, 0), 0);
	pid = 0x301;
	CHECK_EQ(io_buf(f3, FFDVB_DMX_ADD_PID, &pid, 0), 0);
	CHECK_EQ(io_buf(f3, FFDVB_DMX_REMOVE_PID, &pid, 0), 0);
	CHECK_EQ(E.card->dmx_decoder[FFDVB_DMX_PES_AUDIO0], NULL); /* re-set released it */

	/* sections, buffer size */
	CHECK_EQ(io_buf(f3, FFDVB_DMX_SET_FILTER, &sct, 0), 0);
	CHECK_EQ(io_arg(f3, FFDVB_DMX_SET_BUFFER_SIZE, 32768), -EBUSY);
	CHECK_EQ(io_arg(f3, FFDVB_DMX_STOP, 0), 0);
	CHECK_EQ(io_arg(f3, FFDVB_DMX_SET_BUFFER_SIZE, 32768), 0);
	/* dmxdev allocates the new buffer at once: empty, not EOF */
	CHECK_EQ(E.ops->read(f3, buf, sizeof(buf), 1), -EWOULDBLOCK);
	xclose(f1);
	xclose(f3);
	CHECK_EQ(E.card->dmx_decoder[FFDVB_DMX_PES_VIDEO0], NULL);
	env_teardown();
}

static int props(void *f, unsigned int cmd, struct dtv_property *p, uint32_t n, int fault)
{
	struct dtv_properties tvps = { .num = n, .props = p };

	return io_data(f, cmd, &tvps, p, n * sizeof(*p), fault);
}

static void frontend(void)
{
	struct dvb_frontend_info info;
	struct dtv_property p[4];
	fe_status_t st = 1;
	uint8_t ev[64];
	struct ffdvb_ioctl io = { .cmd = FE_GET_EVENT, .buf = ev };
	void *ro, *rw;
	char c;

	env_setup(0);
	ro = xopen(FFDVB_NODE_FRONTEND, O_RDONLY, NULL);
	rw = xopen(FFDVB_NODE_FRONTEND, O_RDWR | O_NONBLOCK, NULL);
	CHECK_EQ(io_buf(ro, FE_GET_INFO, &info, 0), 0);
	CHECK(strcmp(info.name, "ffdvb virtual frontend") == 0);
	CHECK(info.frequency_min < info.frequency_max);
	CHECK(info.caps & FE_CAN_2G_MODULATION);
	CHECK_EQ(io_buf(ro, FE_READ_STATUS, &st, 0), 0);
	CHECK_EQ(st, 0);

	memset(p, 0, sizeof(p));
	p[0].cmd = DTV_ENUM_DELSYS;
	p[1].cmd = DTV_API_VERSION;
	p[2].cmd = DTV_DELIVERY_SYSTEM;
	p[3].cmd = DTV_FREQUENCY;
	CHECK_EQ(props(ro, FE_GET_PROPERTY, p, 4, 0), 0);
	CHECK_EQ(p[0].u.buffer.len, 4);
	CHECK(p[0].u.buffer.data[0] == SYS_DVBC_ANNEX_A && p[0].u.buffer.data[1] == SYS_DVBT &&
	      p[0].u.buffer.data[2] == SYS_DVBS && p[0].u.buffer.data[3] == SYS_DVBS2);
	CHECK_EQ(p[1].u.data, 0x050b);
	CHECK_EQ(p[2].u.data, SYS_DVBS);
	CHECK_EQ(p[3].u.data, 0);
	CHECK_EQ(p[0].result, 0);
	p[3].cmd = 200;
	CHECK_EQ(props(ro, FE_GET_PROPERTY, p, 4, 0), -EINVAL); /* unknown: whole call fails */
	CHECK_EQ(p[3].result, -EINVAL);
	CHECK_EQ(props(ro, FE_GET_PROPERTY, p, 0, 0), -EINVAL);
	CHECK_EQ(props(ro, FE_GET_PROPERTY, p, 65, 1), -EINVAL);
	CHECK_EQ(props(ro, FE_GET_PROPERTY, p, 2, 1), -EFAULT);

	memset(p, 0, sizeof(p));
	p[0].cmd = DTV_DELIVERY_SYSTEM;
	p[0].u.data = SYS_DVBT;
	p[1].cmd = DTV_FREQUENCY;
	p[1].u.data = 474000000;
	p[2].cmd = DTV_TUNE;
	CHECK_EQ(props(ro, FE_SET_PROPERTY, p, 3, 0), -EPERM);
	CHECK_EQ(props(rw, FE_SET_PROPERTY, p, 3, 0), 0);
	CHECK_EQ(io_buf(rw, FE_READ_STATUS, &st, 0), 0);
	CHECK_EQ(st, 0); /* no tuner: never locks */
	memset(p, 0, sizeof(p));
	p[0].cmd = DTV_DELIVERY_SYSTEM;
	p[1].cmd = DTV_FREQUENCY;
	CHECK_EQ(props(ro, FE_GET_PROPERTY, p, 2, 0), 0);
	CHECK_EQ(p[0].u.data, SYS_DVBT);
	CHECK_EQ(p[1].u.data, 474000000);
	CHECK_EQ(io_buf(ro, FE_GET_INFO, &info, 0), 0);
	CHECK_EQ(info.type, FE_OFDM);
	p[0].u.data = SYS_ATSC;
	CHECK_EQ(props(rw, FE_SET_PROPERTY, p, 1, 0), -EINVAL);
	p[0].cmd = DTV_API_VERSION;
	CHECK_EQ(props(rw, FE_SET_PROPERTY, p, 1, 0), -EINVAL);

	CHECK_EQ(E.ops->ioctl(ro, &io), -EPERM);
	io.nonblock = 1;
	CHECK_EQ(E.ops->ioctl(rw, &io), -EWOULDBLOCK);
	io.nonblock = 0;
	CHECK_EQ(E.ops->ioctl(rw, &io), -FFDVB_EBLOCK);
	io.interrupted = 1;
	CHECK_EQ(E.ops->ioctl(rw, &io), -EINTR);
	CHECK_EQ(io_arg(ro, FE_SET_TONE, 0), -EPERM);
	CHECK_EQ(io_arg(rw, FE_SET_TONE, 0), 0);
	CHECK_EQ(io_arg(rw, _IO('o', 99), 0), -ENOTTY);
	CHECK_EQ(E.ops->poll(rw), 0);
	CHECK_EQ(E.ops->read(rw, &c, 1, 1), -EINVAL);
	xclose(ro);
	xclose(rw);
	env_teardown();
}

/* §8.1: an audio/video feed with TS output is firmware PES recording: memory playback of that
 * kind is refused with EBUSY while it runs, and allowed again once the feed is gone */
static void recording(void)
{
	void *dmx, *video, *audio;

	env_setup(0);
	dmx = xopen(FFDVB_NODE_DEMUX, O_RDWR, NULL);
	video = xopen(FFDVB_NODE_VIDEO, O_RDWR, NULL);
	audio = xopen(FFDVB_NODE_AUDIO, O_RDWR, NULL);
	CHECK_EQ(io_arg(video, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY), 0);
	CHECK_EQ(io_arg(audio, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY), 0);
	/* a decoder-only feed is live decoding, not recording */
	CHECK_EQ(pes_filter(dmx, 0x100, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_VIDEO0,
			    FFDVB_DMX_IMMEDIATE_START), 0);
	CHECK_EQ(E.card->rec_mode, 0);
	CHECK_EQ(pes_filter(dmx, 0x100, FFDVB_DMX_OUT_TS_TAP, FFDVB_DMX_PES_VIDEO0,
			    FFDVB_DMX_IMMEDIATE_START), 0);
	CHECK_EQ(io_arg(video, FFDVB_VIDEO_PLAY, 0), -EBUSY);
	CHECK_EQ(io_arg(audio, FFDVB_AUDIO_PLAY, 0), -EBUSY);
	CHECK_EQ(io_arg(dmx, FFDVB_DMX_STOP, 0), 0);
	CHECK_EQ(E.card->rec_mode, 0);
	CHECK_EQ(io_arg(video, FFDVB_VIDEO_PLAY, 0), 0);
	CHECK_EQ(io_arg(video, FFDVB_VIDEO_STOP, 0), 0);
	CHECK_EQ(pes_filter(dmx, 0x101, FFDVB_DMX_OUT_TSDEMUX_TAP, FFDVB_DMX_PES_AUDIO0,
			    FFDVB_DMX_IMMEDIATE_START), 0);
	CHECK_EQ(io_arg(audio, FFDVB_AUDIO_PLAY, 0), -EBUSY);
	xclose(dmx); /* closing the demux fd ends the recording */
	CHECK_EQ(E.card->rec_mode, 0);
	CHECK_EQ(io_arg(audio, FFDVB_AUDIO_PLAY, 0), 0);
	xclose(audio);
	xclose(video);
	env_teardown();
}

int main(void)
{
	stc();
	filters();
	recording();
	frontend();
	return finish("test_card_demux");
}
