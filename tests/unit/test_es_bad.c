/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bad input never stops the stream: damaged PES (truncated, wrong length, garbled payload,
 * broken header), random bytes between packets and as packets, dropped TS packets (continuity
 * errors), a codec change (MPEG-2 -> H.264 -> MPEG-2), a resolution change, a 2^32 PTS jump,
 * es_reset mid-stream. Errors are counted in the stats, and the pictures and sound after the
 * damage equal the ffmpeg CLI's decode of the clean stream. */
#include "test_es_util.h"
#include "ffdvb/log.h"

static uint32_t rng = 2024;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

/* the last k pictures equal ffmpeg's last k */
static size_t tail_equal(const struct collect *c, char (*ref)[33], size_t nref, size_t k)
{
	size_t same = 0;

	for (size_t i = 0; i < k && i < c->nv && i < nref; i++)
		same += strcmp(c->v[c->nv - 1 - i].md5, ref[nref - 1 - i]) == 0;
	return same;
}

/* the last n samples equal ffmpeg's last n, give or take the last bit: the MPEG audio
 * decoder carries its rounding error from frame to frame (the synthesis window's dither
 * state), so after a loss LSB differences remain for good */
static int pcm_tail_equal(const struct collect *c, const int16_t *ref, size_t nref, size_t n)
{
	size_t differ;
	double rms;

	if (c->nsamples < n || nref < n)
		return 0;
	rms = pcm_rms_diff(c->pcm + 2 * (c->nsamples - n), ref + 2 * (nref - n), n, &differ);
	printf("  last %zu samples: %zu values differ, RMS difference %.3f\n", n, differ, rms);
	return rms < 1.0;
}

/* ---- damaged packets in the first half ---------------------------------------------------- */

struct damage {
	size_t n, limit, truncated, garbled, broken;
};

static size_t damage_hook(void *hctx, uint8_t *pkt, size_t len)
{
	struct damage *d = hctx;
	size_t i = d->n++;

	if (i >= d->limit || len < 40)
		return len;
	if (i % 37 == 5) { /* truncated: PES_packet_length says more */
		d->truncated++;
		return len / 2;
	}
	if (i % 53 == 7) { /* garbled payload */
		for (int k = 0; k < 32; k++)
			pkt[20 + rnd((uint32_t)len - 20)] = (uint8_t)rnd(256);
		d->garbled++;
	}
	if (i % 71 == 9) { /* broken start code / header */
		pkt[rnd(2) ? 2 : 6] = 0x47;
		d->broken++;
	}
	return len;
}

static void check_damaged(const char *name)
{
	struct feeder fd;
	struct damage d = { 0 };
	struct es_stats vs, as;
	char (*ref)[33];
	int16_t *pcm;
	size_t nref, npcm, same;

	test_gen_stream(name);
	nref = ref_md5(name, &ref);
	npcm = ref_pcm(name, &pcm);
	feeder_init(&fd, 1, 1, ES_DEINTERLACE_OFF);
	d.limit = 230; /* of ~700 packets: the first third */
	fd.hook = damage_hook;
	fd.hctx = &d;
	feeder_file(&fd, name);
	es_get_stats(fd.v, &vs);
	es_get_stats(fd.a, &as);
	same = tail_equal(&fd.cv, ref, nref, 20);
	printf("damaged %s: %zu truncated, %zu garbled, %zu broken of %zu packets; %zu pictures "
	       "(clean %zu), last 20: %zu equal; bad_pes %llu+%llu, decode_errors %llu+%llu, "
	       "%zu samples (clean %zu)\n", name, d.truncated, d.garbled, d.broken, d.n, fd.cv.nv,
	       nref, same, (unsigned long long)vs.bad_pes, (unsigned long long)as.bad_pes,
	       (unsigned long long)vs.decode_errors, (unsigned long long)as.decode_errors,
	       fd.ca.nsamples, npcm);
	CHECK(d.truncated > 3 && d.garbled > 3 && d.broken > 2);
	CHECK_EQ(vs.bad_pes + as.bad_pes, d.truncated + d.broken);
	CHECK(fd.cv.nv >= nref / 2);
	EXPECT_EQ("last 20 pictures after the damage equal ffmpeg's", same, 20);
	CHECK_LABELLED("last second of sound equal", pcm_tail_equal(&fd.ca, pcm, npcm, 48000));
	free(ref);
	free(pcm);
	feeder_free(&fd);
}

/* ---- random bytes between packets (PS path) and as packets (es directly) ------------------ */

static void check_garbage(const char *name)
{
	struct feeder fd;
	struct es_stats vs, as;
	char (*ref)[33];
	int16_t *pcm;
	size_t nref, npcm, len, same;
	uint8_t *buf, junk[3000];

	test_gen_stream(name);
	nref = ref_md5(name, &ref);
	npcm = ref_pcm(name, &pcm);
	buf = test_read_file(name, &len);
	feeder_init(&fd, 1, 1, ES_DEINTERLACE_OFF);
	for (size_t off = 0; off < len;) {
		size_t n = 1000 + rnd(9000);

		if (n > len - off)
			n = len - off;
		feeder_data(&fd, buf + off, n, NULL);
		off += n;
		if (off < len / 3) {
			size_t j = 1 + rnd(sizeof(junk) - 8);

			for (size_t k = 0; k < j; k++)
				junk[k] = (uint8_t)rnd(256);
			if (rnd(2)) { /* looks like a start code: a PES header to the es */
				junk[0] = junk[1] = 0;
				junk[2] = 1;
				junk[3] = rnd(2) ? 0xE0 : 0xC0;
			}
			feeder_data(&fd, junk, j, NULL);
			/* and straight to the es, as a packet */
			es_feed_pes(fd.v, junk, j, on_frame, &fd.cv);
			es_feed_pes(fd.a, junk, j, on_frame, &fd.ca);
		}
	}
	feeder_end(&fd);
	es_get_stats(fd.v, &vs);
	es_get_stats(fd.a, &as);
	same = tail_equal(&fd.cv, ref, nref, 20);
	printf("garbage in %s: %llu garbage bytes (repacker); %zu pictures (clean %zu), last 20: "
	       "%zu equal; bad_pes %llu+%llu, skipped %llu+%llu\n", name,
	       (unsigned long long)fd.rp.stats.garbage_bytes, fd.cv.nv, nref, same,
	       (unsigned long long)vs.bad_pes, (unsigned long long)as.bad_pes,
	       (unsigned long long)vs.skipped_bytes, (unsigned long long)as.skipped_bytes);
	printf("  audio: codec %s, %llu changes, %llu decode errors, %llu units\n", as.codec,
	       (unsigned long long)as.codec_changes, (unsigned long long)as.decode_errors,
	       (unsigned long long)as.units);
	CHECK(vs.bad_pes > 0 && as.bad_pes > 0);
	CHECK(fd.cv.nv >= nref / 2);
	EXPECT_EQ("last 20 pictures after the garbage equal ffmpeg's", same, 20);
	CHECK_LABELLED("last second of sound equal", pcm_tail_equal(&fd.ca, pcm, npcm, 48000));
	free(buf);
	free(ref);
	free(pcm);
	feeder_free(&fd);
}

/* ---- dropped TS packets -------------------------------------------------------------------- */

static size_t drop_limit;
static int drop_some(size_t i)
{
	return i < drop_limit && i % 41 == 17;
}

static void check_dropped(const char *name)
{
	struct feeder fd;
	char (*ref)[33];
	int16_t *pcm;
	size_t nref, npcm, len, same;
	uint8_t *buf;

	test_gen_stream(name);
	nref = ref_md5(name, &ref);
	npcm = ref_pcm(name, &pcm);
	buf = test_read_file(name, &len);
	drop_limit = len / 188 / 3;
	feeder_init(&fd, 1, 1, ES_DEINTERLACE_OFF);
	feeder_data(&fd, buf, len, drop_some);
	feeder_end(&fd);
	same = tail_equal(&fd.cv, ref, nref, 20);
	printf("dropped TS packets in %s: %zu of %zu dropped; %zu pictures (clean %zu), last 20: "
	       "%zu equal; %zu samples (clean %zu)\n", name, drop_limit / 41, len / 188, fd.cv.nv,
	       nref, same, fd.ca.nsamples, npcm);
	CHECK(fd.cv.nv >= nref / 2);
	EXPECT_EQ("last 20 pictures after the losses equal ffmpeg's", same, 20);
	CHECK_LABELLED("last second of sound equal", pcm_tail_equal(&fd.ca, pcm, npcm, 48000));
	free(buf);
	free(ref);
	free(pcm);
	feeder_free(&fd);
}

/* ---- codec change, resolution change ----------------------------------------------------- */

/* feeds the files of feed (NULL: those of names) one after the other, and compares with
 * ffmpeg's decode of each of names in turn */
static void check_sequence(const char *what, const char *const *names, size_t count,
			   const char *feed, const char *codec, uint64_t changes, int w, int h)
{
	struct feeder fd;
	struct es_stats st;
	size_t total = 0, same = 0, at = 0;

	feeder_init(&fd, 1, 1, ES_DEINTERLACE_OFF);
	for (size_t i = 0; i < count; i++)
		test_gen_stream(names[i]);
	for (size_t i = 0; i < (feed ? 1 : count); i++) {
		size_t len;
		uint8_t *buf;

		test_gen_stream(feed ? feed : names[i]);
		buf = test_read_file(feed ? feed : names[i], &len);
		feeder_data(&fd, buf, len, NULL);
		free(buf);
	}
	feeder_end(&fd);
	es_get_stats(fd.v, &st);
	for (size_t i = 0; i < count; i++) {
		char (*ref)[33];
		size_t nref = ref_md5(names[i], &ref);

		for (size_t k = 0; k < nref && at + k < fd.cv.nv; k++)
			same += strcmp(fd.cv.v[at + k].md5, ref[k]) == 0;
		at += nref;
		total += nref;
		free(ref);
	}
	printf("%s: %zu pictures (ffmpeg %zu), %zu equal, codec %s, %llu codec changes, %dx%d\n",
	       what, fd.cv.nv, total, same, st.codec, (unsigned long long)st.codec_changes,
	       st.width, st.height);
	EXPECT_EQ(what, fd.cv.nv, total);
	EXPECT_EQ("pictures equal to ffmpeg's, segment by segment", same, total);
	CHECK_EQ(strcmp(st.codec, codec), 0);
	CHECK_EQ(st.codec_changes, changes);
	CHECK_EQ(st.width, w);
	CHECK_EQ(st.height, h);
	CHECK(fd.ca.nsamples > 0);
	feeder_free(&fd);
}

/* ---- PTS jump ------------------------------------------------------------------------------ */

static int64_t pts_shift;

static void shift_ts(uint8_t *p)
{
	int64_t t = (int64_t)((p[0] >> 1) & 7) << 30 | (int64_t)p[1] << 22 | (int64_t)(p[2] >> 1) << 15 |
		    (int64_t)p[3] << 7 | p[4] >> 1;

	t = (t + pts_shift) & ((INT64_C(1) << 33) - 1);
	p[0] = (uint8_t)((p[0] & 0xF1) | ((t >> 29) & 0x0E));
	p[1] = (uint8_t)(t >> 22);
	p[2] = (uint8_t)(0x01 | ((t >> 14) & 0xFE));
	p[3] = (uint8_t)(t >> 7);
	p[4] = (uint8_t)(0x01 | ((t << 1) & 0xFE));
}

static size_t shift_hook(void *hctx, uint8_t *pkt, size_t len)
{
	(void)hctx;
	if (pts_shift && len > 19 && (pkt[6] & 0xC0) == 0x80) {
		if (pkt[7] & 0x80)
			shift_ts(pkt + 9);
		if ((pkt[7] & 0xC0) == 0xC0)
			shift_ts(pkt + 14);
	}
	return len;
}

static void check_pts_jump(const char *name)
{
	struct feeder fd;
	char (*ref)[33];
	size_t nref, len, same = 0, shifted = 0, n;
	uint8_t *buf;

	test_gen_stream(name);
	nref = ref_md5(name, &ref);
	buf = test_read_file(name, &len);
	feeder_init(&fd, 1, 1, ES_DEINTERLACE_OFF);
	fd.hook = shift_hook;
	pts_shift = 0;
	feeder_data(&fd, buf, len, NULL);
	pts_shift = INT64_C(1) << 32;
	feeder_data(&fd, buf, len, NULL);
	feeder_end(&fd);
	n = fd.cv.nv / 2;
	for (size_t i = 0; i < fd.cv.nv; i++)
		same += strcmp(fd.cv.v[i].md5, ref[i % nref]) == 0;
	for (size_t i = 0; i < n && n + i < fd.cv.nv; i++)
		shifted += fd.cv.v[n + i].pts ==
			   ((fd.cv.v[i].pts + pts_shift) & ((INT64_C(1) << 33) - 1));
	printf("PTS jump by 2^32 in %s: %zu pictures (ffmpeg 2 x %zu), %zu equal, %zu with the "
	       "shifted pts; %zu samples\n", name, fd.cv.nv, nref, same, shifted, fd.ca.nsamples);
	EXPECT_EQ("pictures across the jump", fd.cv.nv, 2 * nref);
	EXPECT_EQ("pictures equal to ffmpeg's", same, 2 * nref);
	EXPECT_EQ("second half's pts shifted", shifted, nref);
	CHECK(fd.ca.nchunks > 2 && fd.ca.chunk[fd.ca.nchunks - 1].pts > pts_shift);
	free(buf);
	free(ref);
	feeder_free(&fd);
}

/* ---- es_reset mid-stream: detected again, resumes at the next sequence header ------------- */

static void check_reset(const char *name)
{
	struct feeder fd;
	struct es_stats st;
	char (*ref)[33];
	size_t nref, len, half, before, same;
	uint8_t *buf;

	test_gen_stream(name);
	nref = ref_md5(name, &ref);
	buf = test_read_file(name, &len);
	half = len / 188 / 2 * 188;
	feeder_init(&fd, 1, 0, ES_DEINTERLACE_OFF);
	feeder_data(&fd, buf, half, NULL);
	before = fd.cv.nv;
	es_reset(fd.v);
	es_get_stats(fd.v, &st);
	CHECK_EQ(st.codec[0], '\0');
	feeder_data(&fd, buf + half, len - half, NULL);
	feeder_end(&fd);
	es_get_stats(fd.v, &st);
	same = tail_equal(&fd.cv, ref, nref, fd.cv.nv - before);
	printf("es_reset in %s: %zu pictures before, %zu after (of %zu), %zu equal, skipped %llu "
	       "bytes, codec %s\n", name, before, fd.cv.nv - before, nref, same,
	       (unsigned long long)st.skipped_bytes, st.codec);
	CHECK(fd.cv.nv - before >= nref / 2 - 14); /* from the next GOP on */
	EXPECT_EQ("pictures after the reset equal ffmpeg's", same, fd.cv.nv - before);
	CHECK(st.skipped_bytes > 0);
	CHECK_EQ(st.codec_changes, 0);
	CHECK_EQ(strcmp(st.codec, "mpeg2video"), 0);
	free(buf);
	free(ref);
	feeder_free(&fd);
}

static int unknown_lines;

static void count_unknown(int priority, const char *text)
{
	if (priority == FFDVB_LOG_WARNING && strstr(text, "no video format we decode"))
		unknown_lines++;
}

static void on_nothing(void *ctx, struct AVFrame *frame, const struct es_frame_info *info)
{
	(void)info;
	++*(int *)ctx;
	av_frame_free(&frame);
}

/* a video stream of a format we do not take (VC-1, MPEG-4 part 2 ...: here bytes with start
 * codes that are none of ours) is skipped, counted, and said once in the log */
static void check_unknown_video(void)
{
	struct es_config cfg = { .kind = ES_VIDEO };
	struct es *es = es_new(&cfg);
	uint8_t pes[2048] = { 0, 0, 1, 0xE0, 0x07, 0xFA, 0x80, 0x00, 0x00 };
	struct es_stats st;
	int frames = 0;

	for (size_t i = 9; i + 4 < sizeof(pes); i += 64) { /* VC-1 style sequence/entry codes */
		pes[i + 2] = 1;
		pes[i + 3] = 0x0F;
	}
	ffdvb_log_set_sink(count_unknown);
	for (int k = 0; k < 100 && es; k++) /* 200 KiB */
		es_feed_pes(es, pes, sizeof(pes), on_nothing, &frames);
	ffdvb_log_set_sink(NULL);
	es_get_stats(es, &st);
	printf("unknown video: %llu bytes skipped\n", (unsigned long long)st.skipped_bytes);
	EXPECT_EQ("unknown video: no frames", frames, 0);
	CHECK_LABELLED("unknown video: skipped and counted", st.skipped_bytes >= 100 * 2039);
	EXPECT_EQ("unknown video: said once", unknown_lines, 1);
	CHECK_LABELLED("unknown video: the status says so", !strcmp(st.codec, "unknown"));
	es_free(es);
}

int main(void)
{
	static const char *const change[] = { "sd_mpeg2_mp2.ts", "sd_h264_mp2.ts",
					      "sd_mpeg2_mp2.ts" };
	static const char *const resize[] = { "resize_a.ts", "resize_b.ts" };

	av_log_set_level(AV_LOG_QUIET); /* the damage makes libavcodec talk */
	check_damaged("sd_mpeg2_mp2.ts");
	check_garbage("sd_mpeg2_mp2.mpg");
	check_dropped("sd_mpeg2_mp2.ts");
	check_sequence("codec change MPEG-2 -> H.264 -> MPEG-2", change, 3, NULL, "mpeg2video", 2,
		       720, 576);
	check_sequence("resolution change 720x576 -> 544x576 (resize.ts)", resize, 2, "resize.ts",
		       "mpeg2video", 0, 544, 576);
	check_pts_jump("sd_mpeg2_mp2.ts");
	check_reset("sd_mpeg2_mp2.ts");
	check_unknown_video();
	return finish("test_es_bad");
}
