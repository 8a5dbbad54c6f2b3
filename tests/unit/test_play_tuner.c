/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Live decoding from the demux (av7110's DMX_OUT_DECODER path) with the file tuner: a client
 * tunes frontend0 to the channel file's entry, waits for the lock, starts a video and an audio
 * decoder feed on demux0 as szap/dvbv5-zap do, and the decoder shows the service: every
 * presented picture is one of the stream's own (MD5 = ffmpeg's framemd5 of that stream), in
 * stream order within each pass of the looping file, and sound is heard. Then a zap as VDR
 * makes it (the feeds stay on the same PIDs, the frontend is tuned to a second entry, an H.264
 * stream, cutting the first mid-picture): after the tune no picture of the old stream is shown
 * but the one the presenter may hold, none that is of neither (the cut picture's tail), and
 * the new stream plays. Then a zap to a PID with nothing on it, and the feed's stop, end live
 * decoding. Prints the zap time (DTV_TUNE to
 * the first picture), which bench/run.sh tuner reports as a figure. */
#include <linux/dvb/frontend.h>
#include <poll.h>

#include "ffdvb/tuner.h"

#include "play_util.h"

#define VPID 0x100
#define APID 0x101

struct live {
	struct player p; /* only base, card, dec, out are used: no memory playback here */
	struct ffdvb_tuner *tuner;
	const struct ffdvb_node_ops *fe_ops, *dmx_ops;
	void *fe, *vdmx, *admx;
};

static int fe_call(struct live *l, unsigned int cmd, void *buf, void *data, size_t data_len)
{
	struct ffdvb_ioctl io = { .cmd = cmd, .buf = buf, .data = data, .data_len = data_len,
				  .nonblock = 1 };

	return l->fe_ops->ioctl(l->fe, &io);
}

static int tune(struct live *l, uint32_t freq)
{
	struct dtv_property props[] = {
		{ .cmd = DTV_CLEAR },
		{ .cmd = DTV_DELIVERY_SYSTEM, .u.data = SYS_DVBT },
		{ .cmd = DTV_FREQUENCY, .u.data = freq },
		{ .cmd = DTV_BANDWIDTH_HZ, .u.data = 8000000 },
		{ .cmd = DTV_TUNE },
	};
	struct dtv_properties tvps = { .num = 5, .props = props };

	return fe_call(l, FE_SET_PROPERTY, &tvps, props, sizeof(props));
}

static int decoder_feed(struct live *l, void *dmx, uint16_t pid, int pes_type)
{
	struct ffdvb_dmx_pes_filter_params p = {
		.pid = pid, .input = FFDVB_DMX_IN_FRONTEND, .output = FFDVB_DMX_OUT_DECODER,
		.pes_type = pes_type, .flags = FFDVB_DMX_IMMEDIATE_START,
	};
	struct ffdvb_ioctl io = { .cmd = FFDVB_DMX_SET_PES_FILTER, .buf = &p, .nonblock = 1 };

	return l->dmx_ops->ioctl(dmx, &io);
}

static long pictures(struct live *l, struct ffdvb_output_picture_record **r)
{
	long n = ffdvb_output_pictures(l->p.out, r);

	return n < 0 ? 0 : n;
}

static long shown(struct live *l)
{
	struct ffdvb_output_picture_record *r = NULL;
	long n = pictures(l, &r), k = 0;

	for (long i = 0; i < n; i++)
		k += !r[i].blank;
	free(r);
	return k;
}

static void setup(struct live *l, const char *channels)
{
	struct ffdvb_decoder_config dc = {
		.output = { .kind = FFDVB_OUTPUT_NONE, .record = 1 },
	};
	struct ffdvb_card_config cfg = { 0 };
	char err[256], spec[4200];

	memset(l, 0, sizeof(*l));
	av_log_set_level(AV_LOG_FATAL);
	l->p.base = event_base_new();
	snprintf(spec, sizeof(spec), "file:%s", channels);
	l->tuner = ffdvb_tuner_new(l->p.base, spec, err, sizeof(err));
	if (!l->tuner) {
		printf("FAIL: %s\n", err);
		exit(1);
	}
	cfg.tuner = l->tuner;
	l->p.dec = ffdvb_decoder_new(&dc);
	cfg.decoder = l->p.dec;
	cfg.output = l->p.dec ? ffdvb_decoder_output(l->p.dec) : NULL;
	l->p.card = l->p.dec ? ffdvb_card_new(l->p.base, &cfg) : NULL;
	if (!l->p.card) {
		printf("FAIL: cannot create a card: %s\n", strerror(errno));
		exit(1);
	}
	l->p.out = ffdvb_decoder_output(l->p.dec);
	l->fe_ops = ffdvb_card_node_ops(FFDVB_NODE_FRONTEND);
	l->dmx_ops = ffdvb_card_node_ops(FFDVB_NODE_DEMUX);
	CHECK_EQ(l->fe_ops->open(ffdvb_card_node(l->p.card, FFDVB_NODE_FRONTEND),
				 O_RDWR | O_NONBLOCK, &l->fe), 0);
	CHECK_EQ(l->dmx_ops->open(ffdvb_card_node(l->p.card, FFDVB_NODE_DEMUX),
				  O_RDWR | O_NONBLOCK, &l->vdmx), 0);
	CHECK_EQ(l->dmx_ops->open(ffdvb_card_node(l->p.card, FFDVB_NODE_DEMUX),
				  O_RDWR | O_NONBLOCK, &l->admx), 0);
	if (!l->fe || !l->vdmx || !l->admx)
		exit(finish("test_play_tuner"));
}

static void teardown(struct live *l)
{
	l->dmx_ops->release(l->vdmx);
	l->dmx_ops->release(l->admx);
	l->fe_ops->release(l->fe);
	ffdvb_card_free(l->p.card);
	ffdvb_decoder_free(l->p.dec);
	ffdvb_tuner_free(l->tuner);
	event_base_free(l->p.base);
}

static int ref_index(const uint8_t *md5, char (*ref)[33], int nref)
{
	char hex[33];

	md5_hex(md5, hex);
	for (int j = 0; j < nref; j++)
		if (!strcmp(hex, ref[j]))
			return j;
	return -1;
}

/* the pictures shown from record index `from` on: of the old stream, of the new, of neither;
 * old ones after the first new one */
static void check_zap(struct live *l, long from, char (*old)[33], int nold, char (*new)[33],
		      int nnew)
{
	struct ffdvb_output_picture_record *r = NULL;
	long n = pictures(l, &r);
	int n_old = 0, n_new = 0, neither = 0, old_late = 0;

	for (long i = from; i < n; i++) {
		if (r[i].blank)
			continue;
		if (ref_index(r[i].md5, new, nnew) >= 0)
			n_new++;
		else if (ref_index(r[i].md5, old, nold) >= 0)
			n_old++, old_late += n_new > 0;
		else
			neither++;
	}
	printf("  after the tune: %d pictures of the old stream, %d of the new, %d of neither, "
	       "%d old after the first new\n", n_old, n_new, neither, old_late);
	CHECK(n_old <= 1);
	CHECK_EQ(old_late, 0);
	CHECK_EQ(neither, 0);
	CHECK(n_new >= 25);
	free(r);
}

/* every shown picture is one of the stream's, in the stream's order except where the file
 * loops (one step back to the start per loop) */
static void check_pictures(struct live *l, char (*ref)[33], int nref)
{
	struct ffdvb_output_picture_record *r = NULL;
	long n = pictures(l, &r);
	int last = -1, unknown = 0, back = 0, count = 0;

	for (long i = 0; i < n; i++) {
		char hex[33];
		int idx = -1;

		if (r[i].blank)
			continue;
		md5_hex(r[i].md5, hex);
		for (int j = 0; j < nref && idx < 0; j++)
			if (!strcmp(hex, ref[j]))
				idx = j;
		count++;
		if (idx < 0) {
			unknown++;
			continue;
		}
		if (idx <= last)
			back++;
		last = idx;
	}
	printf("  %d pictures shown: %d not of the stream, %d steps back (loops)\n", count,
	       unknown, back);
	CHECK(count >= 25);
	CHECK_EQ(unknown, 0);
	CHECK(back <= 3); /* ~5 s of a 2 s file: at most a few loops */
	free(r);
}

int main(void)
{
	const char *ts = stream("sd_mpeg2_mp2.ts");
	const char *ts2 = stream("sd_h264_latm.ts");
	char channels[4096], (*ref)[33] = NULL, (*ref2)[33] = NULL;
	int nref = ffmpeg_frame_md5s(ts, NULL, &ref);
	int nref2 = ffmpeg_frame_md5s(ts2, NULL, &ref2);
	struct live l;
	uint64_t t0, first = 0;
	fe_status_t st = 0;
	FILE *f;

	char cwd[2048];

	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	snprintf(channels, sizeof(channels), "%s/tuner-channels.conf", cwd);
	f = fopen(channels, "w");
	if (!f || nref <= 0 || nref2 <= 0) {
		printf("FAIL: cannot write %s or decode the reference\n", channels);
		return 1;
	}
	fprintf(f, "[Test]\n\tSERVICE_ID = 1\n\tVIDEO_PID = %d\n\tAUDIO_PID = %d\n"
		   "\tFREQUENCY = 474000000\n\tDELIVERY_SYSTEM = DVBT\n\tBANDWIDTH_HZ = 8000000\n"
		   "\tFILE = %s/%s\n", VPID, APID, cwd, ts);
	fprintf(f, "[Second]\n\tSERVICE_ID = 1\n\tVIDEO_PID = %d\n\tAUDIO_PID = %d\n"
		   "\tFREQUENCY = 482000000\n\tDELIVERY_SYSTEM = DVBT\n\tBANDWIDTH_HZ = 8000000\n"
		   "\tFILE = %s/%s\n", VPID, APID, cwd, ts2);
	fclose(f);
	setup(&l, channels);

	printf("-- tune, lock, decoder feeds: the service plays live\n");
	t0 = real_ms();
	CHECK_EQ(tune(&l, 474000000), 0);
	while (!(st & FE_HAS_LOCK) && real_ms() - t0 < 5000) {
		player_pump(&l.p, 5);
		fe_call(&l, FE_READ_STATUS, &st, NULL, 0);
	}
	CHECK(st & FE_HAS_LOCK);
	CHECK_EQ(decoder_feed(&l, l.vdmx, VPID, FFDVB_DMX_PES_VIDEO0), 0);
	CHECK_EQ(decoder_feed(&l, l.admx, APID, FFDVB_DMX_PES_AUDIO0), 0);
	while (real_ms() - t0 < 5000) {
		player_pump(&l.p, 5);
		if (!first && shown(&l) > 0)
			first = real_ms();
	}
	CHECK(first != 0);
	printf("zap_ms %llu (DTV_TUNE to the first picture shown)\n",
	       (unsigned long long)(first ? first - t0 : 0));
	check_pictures(&l, ref, nref);
	{
		int16_t *pcm = NULL;
		long samples = ffdvb_output_sound_samples(l.p.out, &pcm);
		long loud = 0;

		for (long i = 0; i < samples * 2; i++)
			loud += pcm[i] > 1000 || pcm[i] < -1000;
		printf("  %ld sound samples, %ld loud values\n", samples, loud);
		CHECK(samples > 48000); /* more than a second of the service's sound */
		CHECK(loud > samples / 10);
		free(pcm);
	}

	printf("-- VDR's zap: the feeds stay, the frontend is tuned to the H.264 entry\n");
	{
		struct ffdvb_output_picture_record *r = NULL;
		long from = pictures(&l, &r);

		free(r);
		CHECK_EQ(tune(&l, 482000000), 0);
		t0 = real_ms();
		while (real_ms() - t0 < 4000)
			player_pump(&l.p, 5);
		check_zap(&l, from, ref, nref, ref2, nref2);
	}

	printf("-- the video feed moves to a PID with nothing on it: no more pictures\n");
	CHECK_EQ(decoder_feed(&l, l.vdmx, 0x1ff, FFDVB_DMX_PES_VIDEO0), 0);
	player_pump(&l.p, 500);
	{
		long before = shown(&l);

		player_pump(&l.p, 1000);
		printf("  %ld pictures shown in 1 s after the zap\n", shown(&l) - before);
		CHECK(shown(&l) - before <= 1);
	}
	{
		struct ffdvb_ioctl io = { .cmd = FFDVB_DMX_STOP, .nonblock = 1 };

		CHECK_EQ(l.dmx_ops->ioctl(l.admx, &io), 0);
		CHECK(l.p.card->st[FFDVB_STREAM_AUDIO].tap == NULL);
	}
	teardown(&l);
	free(ref);
	free(ref2);
	return finish("test_play_tuner");
}
