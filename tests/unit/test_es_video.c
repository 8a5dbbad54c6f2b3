/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Video through the card's path (repacker -> es) against the ffmpeg CLI's decode of the same
 * file: every picture's framemd5, count and order, the PTS sequence (one frame period apart),
 * size, interlacing and display aspect. MPEG-2 SD in TS and PS, MPEG-1 in an MPEG-1 system
 * stream, MPEG-2 1080i, H.264 SD and 1080i; bwdif at frame and field rate; key-frames-only;
 * still pictures (es_feed_raw); the codec's end of sequence after the last packet gives out the
 * held pictures without a drain; live, the first I-picture out at once (preview). */
#include <time.h>

#include "ffdvb/clock.h"
#include "ffdvb/ts.h"

#include "test_es_util.h"

static double now(void)
{
	return (double)ffdvb_monotonic_ns() / 1e9;
}

struct expect {
	const char *name, *codec;
	int w, h, interlaced, dar_num, dar_den;
};

static void check_video(const struct expect *e)
{
	struct feeder fd;
	struct es_stats st;
	char (*ref)[33];
	size_t nref, same = 0, breaks = 0, shape = 0;
	double t0, t1;

	test_gen_stream(e->name);
	feeder_init(&fd, 1, 0, ES_DEINTERLACE_OFF);
	t0 = now();
	feeder_file(&fd, e->name);
	t1 = now();
	nref = ref_md5(e->name, &ref);
	es_get_stats(fd.v, &st);
	for (size_t i = 0; i < fd.cv.nv && i < nref; i++)
		same += strcmp(fd.cv.v[i].md5, ref[i]) == 0;
	for (size_t i = 1; i < fd.cv.nv; i++)
		breaks += fd.cv.v[i].pts - fd.cv.v[i - 1].pts != fd.cv.v[i - 1].duration ||
			  fd.cv.v[i - 1].duration != 3600;
	for (size_t i = 0; i < fd.cv.nv; i++) {
		const struct vframe *v = &fd.cv.v[i];

		shape += v->w != e->w || v->h != e->h || v->interlaced != e->interlaced ||
			 v->dar_num != e->dar_num || v->dar_den != e->dar_den;
	}
	printf("%s: %zu pictures (ffmpeg %zu), %zu equal, codec %s, %zu units, decode %.2f s\n",
	       e->name, fd.cv.nv, nref, same, st.codec, (size_t)st.units, t1 - t0);
	CHECK(nref > 0);
	EXPECT_EQ(e->name, fd.cv.nv, nref);
	EXPECT_EQ("pictures equal to ffmpeg's (framemd5)", same, nref);
	EXPECT_EQ("pts steps that are not one frame period (3600)", breaks, 0);
	EXPECT_EQ("pictures of another size/interlacing/aspect", shape, 0);
	CHECK(fd.cv.nv > 0 && fd.cv.v[0].key);
	CHECK(fd.cv.nv > 0 && fd.cv.v[0].pts != AV_NOPTS_VALUE);
	CHECK_EQ(strcmp(st.codec, e->codec), 0);
	CHECK_EQ(st.frames, fd.cv.nv);
	CHECK_EQ(st.decode_errors, 0);
	CHECK_EQ(st.bad_pes, 0);
	CHECK_EQ(st.skipped_bytes, 0);
	CHECK_EQ(st.codec_changes, 0);
	CHECK_EQ(st.width, e->w);
	CHECK_EQ(st.height, e->h);
	free(ref);
	feeder_free(&fd);
}

/* bwdif on an interlaced 25 pictures/s stream. Frame rate: as many pictures as coded, 40 ms
 * apart; field rate: two per coded picture, 20 ms apart, as a TV shows 50 fields a second.
 * Either way every picture progressive, none equal to the decoder's woven one, and each equal
 * to ffmpeg's own bwdif in the same mode (the same filter on the same decoded pictures). */
static void check_deinterlace(const char *name, enum es_deinterlace mode)
{
	int field = mode == ES_DEINTERLACE_FIELD;
	const char *vf = field ? "bwdif=mode=send_field:parity=auto:deint=interlaced"
			       : "bwdif=mode=send_frame:parity=auto:deint=interlaced";
	int64_t period = field ? 1800 : 3600;
	struct feeder fd;
	char (*ref)[33], (*woven)[33];
	size_t nref, nwoven, progressive = 0, woven_same = 0, same = 0, pts_ok = 0;

	test_gen_stream(name);
	feeder_init(&fd, 1, 0, mode);
	feeder_file(&fd, name);
	nref = ref_md5_vf(name, vf, &ref);
	nwoven = ref_md5(name, &woven);
	for (size_t i = 0; i < fd.cv.nv; i++) {
		const struct vframe *v = &fd.cv.v[i];

		progressive += !v->out_interlaced;
		same += i < nref && strcmp(v->md5, ref[i]) == 0;
		for (size_t j = 0; j < nwoven; j++)
			woven_same += strcmp(v->md5, woven[j]) == 0;
		pts_ok += v->duration == period && (i == 0 || v->pts - fd.cv.v[i - 1].pts == period);
	}
	printf("%s deinterlaced at %s rate: %zu pictures (coded %zu, ffmpeg's bwdif %zu), %zu "
	       "equal to ffmpeg's, %zu progressive, %zu woven\n",
	       name, field ? "field" : "frame", fd.cv.nv, nwoven, nref, same, progressive, woven_same);
	CHECK(nwoven > 0);
	EXPECT_EQ("pictures per coded picture", fd.cv.nv, (field ? 2 : 1) * nwoven);
	EXPECT_EQ("pictures as many as ffmpeg's bwdif", fd.cv.nv, nref);
	EXPECT_EQ("pictures equal to ffmpeg's bwdif", same, nref);
	EXPECT_EQ("progressive pictures out", progressive, fd.cv.nv);
	EXPECT_EQ("pictures left woven (equal to one the decoder made)", woven_same, 0);
	EXPECT_EQ(field ? "pts and duration 20 ms apart" : "pts and duration 40 ms apart", pts_ok,
		  fd.cv.nv);
	CHECK(fd.cv.nv > 0 && fd.cv.v[0].interlaced);
	free(ref);
	free(woven);
	feeder_free(&fd);
}

/* VIDEO_FAST_FORWARD: only the I-pictures come out, equal to ffmpeg's */
static void check_key_only(const char *name)
{
	struct feeder fd, all;
	struct es_stats st;
	size_t keys = 0, same = 0, j = 0;

	test_gen_stream(name);
	feeder_init(&all, 1, 0, ES_DEINTERLACE_OFF);
	feeder_file(&all, name);
	feeder_init(&fd, 1, 0, ES_DEINTERLACE_OFF);
	es_set_key_frames_only(fd.v, 1);
	feeder_file(&fd, name);
	es_get_stats(fd.v, &st);
	for (size_t i = 0; i < all.cv.nv; i++) {
		if (!all.cv.v[i].key)
			continue;
		keys++;
		if (j < fd.cv.nv && strcmp(fd.cv.v[j].md5, all.cv.v[i].md5) == 0 &&
		    fd.cv.v[j].pts == all.cv.v[i].pts)
			same++;
		j++;
	}
	printf("%s key frames only: %zu pictures of %zu (%zu key), %llu skipped\n", name, fd.cv.nv,
	       all.cv.nv, keys, (unsigned long long)st.key_skipped);
	CHECK(keys >= 2);
	EXPECT_EQ("pictures in key-frames-only mode", fd.cv.nv, keys);
	EXPECT_EQ("key pictures equal, with their pts", same, keys);
	EXPECT_EQ("key_skipped", st.key_skipped, all.cv.nv - keys);
	feeder_free(&all);
	feeder_free(&fd);
}

static int before_second_gop(size_t i)
{
	return i < 1000; /* the first 1000 TS packets: past the first key picture of the SD
			    streams, within its GOP */
}

/* Live (es_set_live), a zap into the stream: its first I-picture comes out alone first,
 * flagged preview, before the decoder's own pictures, which follow as without it: the same
 * I-picture first (the same pixels without bwdif), then all the others. From memory, no
 * preview. */
static void check_live_preview(const char *name, enum es_deinterlace mode)
{
	struct feeder fd, mem;
	size_t previews = 0, mem_previews = 0, k = 0, same = 0;
	uint8_t *buf;
	size_t len;

	test_gen_stream(name);
	buf = test_read_file(name, &len);
	feeder_init(&mem, 1, 0, mode);
	feeder_data(&mem, buf, len, before_second_gop);
	feeder_end(&mem);
	feeder_init(&fd, 1, 0, mode);
	es_set_live(fd.v, 1);
	feeder_data(&fd, buf, len, before_second_gop);
	feeder_end(&fd);
	free(buf);
	for (size_t i = 0; i < fd.cv.nv; i++)
		previews += fd.cv.v[i].preview;
	for (size_t i = 0; i < mem.cv.nv; i++)
		mem_previews += mem.cv.v[i].preview;
	printf("%s live (deinterlace %d): %zu pictures, %zu previews; from memory %zu, %zu\n",
	       name, (int)mode, fd.cv.nv, previews, mem.cv.nv, mem_previews);
	CHECK(mem.cv.nv > 0 && fd.cv.nv == mem.cv.nv + 1);
	EXPECT_EQ("previews live", previews, 1);
	EXPECT_EQ("previews from memory", mem_previews, 0);
	if (fd.cv.nv < 2 || mem.cv.nv < 1)
		goto out;
	CHECK(fd.cv.v[0].preview && fd.cv.v[0].key && !fd.cv.v[1].preview);
	CHECK_EQ(fd.cv.v[0].pts, mem.cv.v[0].pts);
	CHECK(!fd.cv.v[0].out_interlaced || mode == ES_DEINTERLACE_OFF);
	if (mode == ES_DEINTERLACE_OFF)
		CHECK_EQ(strcmp(fd.cv.v[0].md5, mem.cv.v[0].md5), 0);
	for (k = 0; k + 1 < fd.cv.nv; k++)
		same += strcmp(fd.cv.v[k + 1].md5, mem.cv.v[k].md5) == 0 &&
			fd.cv.v[k + 1].pts == mem.cv.v[k].pts;
	EXPECT_EQ("the decoder's pictures after the preview as from memory", same, mem.cv.nv);
out:
	feeder_free(&mem);
	feeder_free(&fd);
}

/* VIDEO_STILLPICTURE: a raw sequence header + I-picture comes out at once, every time */
static void check_still(void)
{
	struct es_config cfg = { ES_VIDEO, ES_DEINTERLACE_OFF, 0 };
	struct es *es = es_new(&cfg);
	struct collect c = { 0 };
	char (*ref)[33];
	size_t len, nref;
	uint8_t *still;

	test_gen_stream("still.m2v");
	still = test_read_file("still.m2v", &len);
	nref = ref_md5("sd_mpeg2_mp2.ts", &ref);
	es_feed_raw(es, still, len, 12345, on_frame, &c);
	EXPECT_EQ("still picture out at once", c.nv, 1);
	es_feed_raw(es, still, len, AV_NOPTS_VALUE, on_frame, &c);
	es_feed_raw(es, still, len, 777, on_frame, &c);
	EXPECT_EQ("three still pictures", c.nv, 3);
	for (size_t i = 0; i < c.nv && nref; i++)
		CHECK_EQ(strcmp(c.v[i].md5, ref[0]), 0);
	CHECK(c.nv == 3 && c.v[0].pts == 12345 && c.v[2].pts == 777);
	printf("still: %zu pictures\n", c.nv);
	free(ref);
	free(still);
	collect_free(&c);
	es_free(es);
}

/* The file, then a TS packet whose PES payload ends with the end of sequence (es_video_ends):
 * every picture comes out with no es_drain, and the end code drains only at the very end. */
static void check_end_code(const char *name, const uint8_t *code, int n)
{
	struct feeder fd;
	char (*ref)[33];
	size_t len, nref, before;
	uint8_t *buf, end[188];

	test_gen_stream(name);
	feeder_init(&fd, 1, 0, ES_DEINTERLACE_OFF);
	buf = test_read_file(name, &len);
	feeder_data(&fd, buf, len - len % 188, NULL);
	before = fd.cv.nv;
	ffdvb_ts_video_end(end, 0x100, code, n);
	feeder_data(&fd, end, sizeof(end), NULL);
	nref = ref_md5(name, &ref);
	printf("%s + end of sequence: %zu pictures before it, %zu after (ffmpeg %zu)\n", name,
	       before, fd.cv.nv, nref);
	CHECK(before < nref); /* the parser and decoder held some back */
	EXPECT_EQ("pictures after the end of sequence", fd.cv.nv, nref);
	free(ref);
	free(buf);
	feeder_free(&fd);
}

int main(int argc, char **argv)
{
	static const struct expect streams[] = {
		{ "sd_mpeg2_mp2.ts", "mpeg2video", 720, 576, 1, 4, 3 },
		{ "sd_mpeg2_mp2.mpg", "mpeg2video", 720, 576, 1, 4, 3 },
		{ "sd_mpeg1_mp3.mpg", "mpeg1video", 352, 288, 0, 11, 9 },
		{ "hd_mpeg2_1080i.ts", "mpeg2video", 1920, 1080, 1, 16, 9 },
		{ "sd_h264_mp2.ts", "h264", 720, 576, 0, 5, 4 },
		{ "hd_h264_1080i.ts", "h264", 1920, 1080, 1, 16, 9 },
		{ "sd_hevc_aac.ts", "hevc", 720, 576, 0, 5, 4 },
	};
	const char *only = argc > 1 ? argv[1] : NULL; /* "mpeg", "h264" or "hevc": a subset */

	av_log_set_level(AV_LOG_ERROR);
	for (size_t i = 0; i < sizeof(streams) / sizeof(streams[0]); i++)
		if (!only || strstr(streams[i].codec, only))
			check_video(&streams[i]);
	if (!only || strcmp(only, "mpeg") == 0) {
		check_deinterlace("sd_mpeg2_mp2.ts", ES_DEINTERLACE_FRAME);
		check_deinterlace("sd_mpeg2_mp2.ts", ES_DEINTERLACE_FIELD);
		check_key_only("sd_mpeg2_mp2.ts");
		check_live_preview("sd_mpeg2_mp2.ts", ES_DEINTERLACE_OFF);
		check_live_preview("sd_mpeg2_mp2.ts", ES_DEINTERLACE_FIELD);
		check_still();
		check_end_code("sd_mpeg2_mp2.ts", (const uint8_t[]){ 0, 0, 1, 0xb7 }, 4);
	}
	if (!only || strcmp(only, "h264") == 0) {
		check_key_only("sd_h264_mp2.ts");
		check_live_preview("sd_h264_mp2.ts", ES_DEINTERLACE_OFF);
		check_end_code("sd_h264_mp2.ts", (const uint8_t[]){ 0, 0, 1, 0x0b }, 4);
	}
	if (!only || strcmp(only, "hevc") == 0) {
		check_live_preview("sd_hevc_aac.ts", ES_DEINTERLACE_OFF);
		check_end_code("sd_hevc_aac.ts", (const uint8_t[]){ 0, 0, 1, 0x4a, 0x01 }, 5);
	}
	return finish("test_es_video");
}
