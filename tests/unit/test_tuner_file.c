/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The file tuner through the public tuner API with a real libevent loop: a channel file and a
 * stream made by ffmpeg (scripts/gen-streams.sh). Tune -> events -> lock, then demux0/dvr0 data
 * paced by the PCR (checked as "never faster than the PCR", a bound a loaded machine keeps),
 * looping with a discontinuity, no lock on a wrong frequency or a missing file, a corrupt file
 * counted and survived, dvr0 write, the legacy FE_SET_FRONTEND, satellite IF matching. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include <libdvbv5/crc32.h>

#include "check.h"
#include "ffdvb/abi.h"
#include "ffdvb/clock.h"
#include "test_streams.h"
#include "test_tuner_file_util.h"

#define STREAM "sd_mpeg2_mp2.ts"
#define DIR "tuner_file.d"

static struct event_base *base;

static double now_s(void)
{
	return (double)ffdvb_monotonic_ns() / 1e9;
}

/* Corrupt.ts: 600 packets of the stream with 50 bytes of garbage after packet 100, a TEI
 * packet, and a truncated last packet */
static void write_corrupt(const uint8_t *ts, size_t len)
{
	FILE *fp = fopen(DIR "/Corrupt.ts", "wb");
	uint8_t garbage[50], pkt[188];

	memset(garbage, 0x5a, sizeof(garbage));
	for (int i = 0; i < 600 && (size_t)(i + 1) * 188 <= len; i++) {
		memcpy(pkt, ts + (size_t)i * 188, 188);
		if (i == 200)
			pkt[1] |= 0x80;
		fwrite(pkt, 1, 188, fp);
		if (i == 100)
			fwrite(garbage, 1, sizeof(garbage), fp);
	}
	fwrite(ts, 1, 100, fp);
	fclose(fp);
}

static void write_channels(void)
{
	FILE *fp = fopen(DIR "/channels.conf", "w");

	fprintf(fp, "# made by test_tuner_file\n"
		    "[Test Service]\n\tSERVICE_ID = 1\n\tVIDEO_PID = 256\n\tAUDIO_PID = 257\n"
		    "\tFREQUENCY = 474000000\n\tDELIVERY_SYSTEM = DVBT\n\tBANDWIDTH_HZ = 8000000\n"
		    "\tFILE = ../" STREAM "\n\n"
		    "[Missing]\n\tSERVICE_ID = 2\n\tFREQUENCY = 482000000\n"
		    "\tDELIVERY_SYSTEM = DVBT\n\tFILE = nothing-here.ts\n\n"
		    "[Corrupt]\n\tSERVICE_ID = 3\n\tFREQUENCY = 490000000\n"
		    "\tDELIVERY_SYSTEM = DVBT\n\n"
		    "[Sat]\n\tSERVICE_ID = 4\n\tFREQUENCY = 11836000\n\tPOLARIZATION = HORIZONTAL\n"
		    "\tSYMBOL_RATE = 27500000\n\tDELIVERY_SYSTEM = DVBS\n\tFILE = ../" STREAM "\n");
	fclose(fp);
}

/* ---- data collection ---------------------------------------------------------------------- */

struct pcr_seen {
	double pcr_s, wall_s;
};

static struct ffdvb_tuner_file *dvr;
static uint8_t *dvr_data;
static size_t dvr_len, dvr_cap = 64u << 20;
static int fe_wakes, dvr_wakes;

static void fe_wake(void *ctx)
{
	(void)ctx;
	fe_wakes++;
}

static void dvr_wake(void *ctx)
{
	ssize_t r;

	(void)ctx;
	dvr_wakes++;
	while (dvr_len + 188 * 64 <= dvr_cap &&
	       (r = ffdvb_tuner_read(dvr, dvr_data + dvr_len, 188 * 64)) > 0)
		dvr_len += (size_t)r;
}

static int get_pcr(const uint8_t *p, double *s)
{
	const uint8_t *a = p + 6;
	uint64_t base;

	if (!(p[3] & 0x20) || p[4] < 7 || !(p[5] & 0x10))
		return 0;
	base = ((uint64_t)a[0] << 25) | ((uint64_t)a[1] << 17) | ((uint64_t)a[2] << 9) |
	       ((uint64_t)a[3] << 1) | (a[4] >> 7);
	*s = (double)base / 90000.0;
	return 1;
}

static int pes_filter(struct ffdvb_tuner_file *f, uint16_t pid, int output, size_t bufsize)
{
	struct ffdvb_dmx_pes_filter_params p = { .pid = pid, .output = output,
						 .pes_type = FFDVB_DMX_PES_OTHER };
	struct ffdvb_ioctl io;
	int r;

	memset(&io, 0, sizeof(io));
	io.cmd = FFDVB_DMX_SET_PES_FILTER;
	io.buf = &p;
	r = ffdvb_tuner_ioctl(f, &io);
	if (!r && bufsize)
		r = tio_arg(f, FFDVB_DMX_SET_BUFFER_SIZE, bufsize);
	return r ? r : tio_arg(f, FFDVB_DMX_START, 0);
}

static fe_status_t status(struct ffdvb_tuner_file *fe)
{
	fe_status_t st = 0;

	CHECK_EQ(tio_buf(fe, FE_READ_STATUS, &st), 0);
	return st;
}

#define LOCKED (FE_HAS_SIGNAL | FE_HAS_CARRIER | FE_HAS_VITERBI | FE_HAS_SYNC | FE_HAS_LOCK)

static void no_lock(struct ffdvb_tuner_file *fe, uint32_t delsys, uint32_t freq)
{
	struct dvb_frontend_event ev;

	CHECK_EQ(tune(fe, delsys, freq), 0);
	CHECK_EQ(tio_buf(fe, FE_GET_EVENT, &ev), 0); /* dvb_frontend: status 0 on every tune */
	CHECK_EQ(ev.status, 0);
	CHECK_EQ(ev.parameters.frequency, freq);
	run_ms(base, 200);
	CHECK_EQ(status(fe), 0);
	CHECK_EQ(tio_buf(fe, FE_GET_EVENT, &ev), -EAGAIN);
}

static long long json_num(const char *json, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(json, k);
	return p ? atoll(p + strlen(k)) : -1;
}

static void play(struct ffdvb_tuner *t, struct ffdvb_tuner_file *fe, size_t tslen)
{
	struct ffdvb_tuner_file *vtap, *sec, *ts_tap, *atap;
	struct ffdvb_dmx_sct_filter_params s;
	struct dvb_frontend_event ev;
	struct dtv_property p[2];
	struct ffdvb_ioctl io;
	static uint8_t buf[1 << 20];
	struct pcr_seen first = { 0, 0 }, last = { 0, 0 };
	double t_tune, pcr_prev = -1;
	int npcr = 0, discont = 0, cc = -1, cc_errors = 0, nonvideo = 0;
	char json[1024];
	ssize_t r;

	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DEMUX, O_RDWR | O_NONBLOCK, &vtap), 0);
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DEMUX, O_RDWR | O_NONBLOCK, &sec), 0);
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DEMUX, O_RDWR | O_NONBLOCK, &ts_tap), 0);
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DEMUX, O_RDWR | O_NONBLOCK, &atap), 0);
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DVR, O_RDONLY | O_NONBLOCK, &dvr), 0);
	ffdvb_tuner_set_wake(dvr, dvr_wake, NULL);
	CHECK_EQ(pes_filter(vtap, 0x100, FFDVB_DMX_OUT_TAP, 8u << 20), 0);
	CHECK_EQ(pes_filter(ts_tap, 0x100, FFDVB_DMX_OUT_TS_TAP, 0), 0);
	CHECK_EQ(pes_filter(atap, 0x101, FFDVB_DMX_OUT_TSDEMUX_TAP, 4u << 20), 0);
	CHECK_EQ(tio_arg(dvr, FFDVB_DMX_SET_BUFFER_SIZE, 16u << 20), 0);
	memset(&s, 0, sizeof(s)); /* the PAT, CRC checked, 5 s timeout */
	s.pid = 0;
	s.filter.mask[0] = 0xff;
	s.timeout = 5000;
	s.flags = FFDVB_DMX_CHECK_CRC | FFDVB_DMX_IMMEDIATE_START;
	memset(&io, 0, sizeof(io));
	io.cmd = FFDVB_DMX_SET_FILTER;
	io.buf = &s;
	CHECK_EQ(ffdvb_tuner_ioctl(sec, &io), 0);

	fe_wakes = 0;
	t_tune = now_s();
	CHECK_EQ(tune(fe, SYS_DVBT, 474000000), 0);
	CHECK_EQ(ffdvb_tuner_poll(fe), POLLIN | POLLRDNORM | POLLPRI);
	CHECK_EQ(tio_buf(fe, FE_GET_EVENT, &ev), 0);
	CHECK_EQ(ev.status, 0);
	CHECK_EQ(ffdvb_tuner_poll(fe), 0);
	run_ms(base, 2700); /* the 2 s stream once and a bit: the loop point */
	CHECK(fe_wakes >= 2);
	CHECK_EQ(ffdvb_tuner_poll(fe), POLLIN | POLLRDNORM | POLLPRI);
	CHECK_EQ(tio_buf(fe, FE_GET_EVENT, &ev), 0);
	CHECK_EQ(ev.status, LOCKED);
	CHECK_EQ(ev.parameters.frequency, 474000000);
	CHECK_EQ(tio_buf(fe, FE_GET_EVENT, &ev), -EAGAIN);
	CHECK_EQ(status(fe), LOCKED);
	memset(p, 0, sizeof(p));
	p[0].cmd = DTV_STAT_SIGNAL_STRENGTH;
	p[1].cmd = DTV_STAT_CNR;
	CHECK_EQ(tprops(fe, FE_GET_PROPERTY, p, 2, 0), 0);
	CHECK(p[0].u.st.len == 1 && p[0].u.st.stat[0].scale == FE_SCALE_DECIBEL &&
	      p[0].u.st.stat[0].svalue < 0);
	CHECK(p[1].u.st.len == 1 && p[1].u.st.stat[0].scale == FE_SCALE_DECIBEL &&
	      p[1].u.st.stat[0].svalue > 10000);

	/* the PAT: a whole section with a good CRC */
	r = ffdvb_tuner_read(sec, buf, sizeof(buf));
	CHECK(r >= 12);
	if (r >= 12) {
		CHECK_EQ(buf[0], 0x00);
		CHECK_EQ(r, 3 + (((buf[1] & 0x0f) << 8) | buf[2]));
		CHECK_EQ(dvb_crc32(buf, (size_t)r, 0xffffffffu), 0);
	}
	/* DMX_OUT_TAP: video payload with a sequence header; TSDEMUX_TAP: audio TS packets */
	r = ffdvb_tuner_read(vtap, buf, sizeof(buf));
	CHECK(r > 100000);
	CHECK(r > 4 && memmem(buf, (size_t)r, "\x00\x00\x01\xb3", 4) != NULL);
	r = ffdvb_tuner_read(atap, buf, sizeof(buf));
	CHECK(r > 0 && r % 188 == 0);
	for (ssize_t i = 0; i + 188 <= r; i += 188)
		if (buf[i] != 0x47 || (((buf[i + 1] & 0x1f) << 8) | buf[i + 2]) != 0x101)
			nonvideo = -1000000;
	CHECK_EQ(nonvideo, 0);

	/* dvr0: the video PID's packets, paced by their PCR, looping */
	dvr_wake(NULL);
	CHECK(dvr_wakes > 0);
	CHECK(dvr_len > 0 && dvr_len % 188 == 0);
	for (size_t i = 0; i + 188 <= dvr_len; i += 188) {
		const uint8_t *pk = dvr_data + i;
		double pcr;
		int c = pk[3] & 15;

		if (pk[0] != 0x47 || (((pk[1] & 0x1f) << 8) | pk[2]) != 0x100)
			nonvideo++;
		if (get_pcr(pk, &pcr)) {
			if (pk[5] & 0x80)
				discont++;
			else if (!discont) {
				if (!npcr++)
					first.pcr_s = pcr;
				last.pcr_s = pcr;
			}
			CHECK(pcr_prev < 0 || pcr > pcr_prev || (pk[5] & 0x80));
			pcr_prev = pcr;
		}
		if (cc >= 0 && c != ((cc + 1) & 15) && !((pk[3] & 0x20) && (pk[5] & 0x80)) &&
		    (pk[3] & 0x10))
			cc_errors++;
		if (pk[3] & 0x10)
			cc = c;
	}
	CHECK_EQ(nonvideo, 0);
	CHECK_EQ(cc_errors, 0);
	CHECK_EQ(discont, 1); /* the loop point, flagged once */
	CHECK(npcr > 10);
	/* first loop: its PCR span is played over at least that wall time (never faster than
	 * real time), and the whole file came within the run (2 s stream, 2.7 s run) */
	{
		double span = last.pcr_s - first.pcr_s, wall = now_s() - t_tune;

		printf("first loop: PCR span %.3f s, %d PCRs, %zu dvr bytes, run %.3f s\n", span,
		       npcr, dvr_len, wall);
		CHECK(span > 1.5 && span < 2.1);
		CHECK(wall >= span);
	}
	CHECK(ffdvb_tuner_status_json(t, json, sizeof(json)) > 0);
	printf("%s\n", json);
	CHECK(strstr(json, "\"locked\":true") && strstr(json, STREAM "\""));
	CHECK(strstr(json, "\"channel\":\"Test Service\""));
	CHECK(json_num(json, "loops") >= 1);
	CHECK(json_num(json, "packets_served") > (long long)(tslen / 188));
	CHECK_EQ(json_num(json, "packets_skipped"), 0);
	CHECK_EQ(json_num(json, "overflows"), 0);

	/* a stream of the pace of the file: the run served no more than the elapsed PCR time */
	{
		double wall = now_s() - t_tune;
		double packets_per_s = (double)(tslen / 188) / 2.0;

		CHECK(json_num(json, "packets_served") < (long long)(packets_per_s * (wall + 0.5)));
	}

	/* dvr0 write: TS into the demux in place of the file */
	{
		struct ffdvb_tuner_file *w, *tap;
		uint8_t pk[10 * 188];

		CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DVR, O_WRONLY, &w), 0);
		CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DEMUX, O_RDWR, &tap), 0);
		CHECK_EQ(pes_filter(tap, 0x1234, FFDVB_DMX_OUT_TSDEMUX_TAP, 0), 0);
		while (ffdvb_tuner_read(vtap, buf, sizeof(buf)) > 0)
			;
		run_ms(base, 100);
		CHECK_EQ(ffdvb_tuner_read(vtap, buf, sizeof(buf)), -EAGAIN); /* disconnected */
		for (int i = 0; i < 10; i++) {
			memset(pk + i * 188, i, 188);
			pk[i * 188] = 0x47;
			pk[i * 188 + 1] = 0x12;
			pk[i * 188 + 2] = 0x34;
			pk[i * 188 + 3] = (uint8_t)(0x10 | i);
		}
		CHECK_EQ(ffdvb_tuner_write(w, pk, 100), 100);
		CHECK_EQ(ffdvb_tuner_write(w, pk + 100, sizeof(pk) - 100), sizeof(pk) - 100);
		CHECK_EQ(ffdvb_tuner_read(tap, buf, sizeof(buf)), sizeof(pk));
		CHECK(memcmp(buf, pk, sizeof(pk)) == 0);
		ffdvb_tuner_close(w);
		ffdvb_tuner_close(tap);
		run_ms(base, 100);
		CHECK(ffdvb_tuner_read(vtap, buf, sizeof(buf)) > 0); /* the file again */
	}
	ffdvb_tuner_close(vtap);
	ffdvb_tuner_close(sec);
	ffdvb_tuner_close(ts_tap);
	ffdvb_tuner_close(atap);
	ffdvb_tuner_close(dvr);
}

static void corrupt_and_legacy(struct ffdvb_tuner *t, struct ffdvb_tuner_file *fe)
{
	struct dvb_frontend_parameters fp;
	struct ffdvb_tuner_file *all;
	static uint8_t buf[1 << 20];
	char json[1024];
	long long served0;

	CHECK(ffdvb_tuner_status_json(t, json, sizeof(json)) > 0);
	served0 = json_num(json, "packets_served");
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_DEMUX, O_RDWR, &all), 0);
	CHECK_EQ(pes_filter(all, 0x2000 /* all PIDs */, FFDVB_DMX_OUT_TSDEMUX_TAP, 4u << 20), 0);
	memset(&fp, 0, sizeof(fp)); /* the legacy call, on the current delivery system (DVB-T) */
	fp.frequency = 490000000;
	fp.u.ofdm.bandwidth = BANDWIDTH_8_MHZ;
	CHECK_EQ(tio_buf(fe, FE_SET_FRONTEND, &fp), 0);
	run_ms(base, 600);
	CHECK_EQ(status(fe), LOCKED);
	memset(&fp, 0, sizeof(fp));
	CHECK_EQ(tio_buf(fe, FE_GET_FRONTEND, &fp), 0);
	CHECK_EQ(fp.frequency, 490000000);
	CHECK_EQ(fp.u.ofdm.bandwidth, BANDWIDTH_8_MHZ);
	CHECK(ffdvb_tuner_read(all, buf, sizeof(buf)) > 0);
	CHECK(ffdvb_tuner_status_json(t, json, sizeof(json)) > 0);
	printf("%s\n", json);
	CHECK(strstr(json, "Corrupt.ts\"") != NULL);
	CHECK(json_num(json, "packets_served") > served0);
	CHECK(json_num(json, "packets_skipped") >= 3); /* garbage, truncated tail, TEI */
	CHECK(json_num(json, "tei") >= 1);
	ffdvb_tuner_close(all);
}

int main(void)
{
	char err[256] = "";
	struct ffdvb_tuner *t;
	struct ffdvb_tuner_file *fe, *ro;
	struct dvb_frontend_info info;
	struct dtv_property p[1];
	uint8_t *ts;
	size_t tslen;

	test_gen_stream(STREAM);
	ts = test_read_file(STREAM, &tslen);
	CHECK(ts != NULL && tslen > 100 * 188);
	if (!ts)
		return finish("test_tuner_file");
	mkdir(DIR, 0755);
	write_channels();
	write_corrupt(ts, tslen);
	dvr_data = malloc(dvr_cap);
	base = event_base_new();

	CHECK(ffdvb_tuner_new(base, "file:" DIR "/none.conf", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "none.conf") != NULL);
	printf("expected error: %s\n", err);
	CHECK(ffdvb_tuner_new(base, "file:", err, sizeof(err)) == NULL);
	t = ffdvb_tuner_new(base, "file:" DIR "/channels.conf", err, sizeof(err));
	CHECK(t != NULL);
	if (!t) {
		printf("%s\n", err);
		return finish("test_tuner_file");
	}
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_FRONTEND, O_RDWR | O_NONBLOCK, &fe), 0);
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_FRONTEND, O_RDONLY, &ro), 0);
	ffdvb_tuner_set_wake(fe, fe_wake, NULL);
	CHECK_EQ(tio_buf(ro, FE_GET_INFO, &info), 0);
	CHECK_EQ(info.type, FE_OFDM); /* the first entry's delivery system */
	memset(p, 0, sizeof(p));
	p[0].cmd = DTV_ENUM_DELSYS;
	CHECK_EQ(tprops(ro, FE_GET_PROPERTY, p, 1, 0), 0);
	CHECK(p[0].u.buffer.len == 2 && p[0].u.buffer.data[0] == SYS_DVBT &&
	      p[0].u.buffer.data[1] == SYS_DVBS);
	CHECK_EQ(tio_buf(ro, FE_GET_EVENT, p), -EPERM);

	no_lock(fe, SYS_DVBT, 506000000); /* no entry there */
	no_lock(fe, SYS_DVBT, 482000000); /* the entry's file is missing */
	CHECK_EQ(tune(fe, SYS_DVBC_ANNEX_A, 474000000), -EINVAL); /* not in the channel file */
	play(t, fe, tslen);
	corrupt_and_legacy(t, fe);
	/* satellite: the LNB's intermediate frequency of the entry's transponder locks */
	CHECK_EQ(tune(fe, SYS_DVBS, 11836000 - 10600000), 0);
	run_ms(base, 200);
	CHECK_EQ(status(fe), LOCKED);
	CHECK_EQ(tune(fe, SYS_DVBS, 1500000), 0);
	run_ms(base, 200);
	CHECK_EQ(status(fe), 0);

	ffdvb_tuner_close(ro);
	ffdvb_tuner_close(fe);
	ffdvb_tuner_free(t);
	event_base_free(base);
	free(dvr_data);
	free(ts);
	return finish("test_tuner_file");
}
