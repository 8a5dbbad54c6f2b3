/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The headless picture record: per shown picture its time, PTS, size, blank flag and the md5
 * of its pixels packed as ffmpeg's framemd5 packs rawvideo, checked against an md5 the test
 * computes itself plane by plane; the frame is referenced, not copied; bad frames are refused
 * with -EINVAL and leave no record. */
#include <libavutil/md5.h>

#include "check.h"
#include "test_output_util.h"
#include "output_internal.h"

/* a pattern that differs in every plane, row and column */
static void pattern(AVFrame *f, int seed)
{
	int planes = f->format == AV_PIX_FMT_NV12 ? 2 : 3;
	for (int p = 0; p < planes; p++) {
		int h = p ? (f->height + 1) / 2 : f->height;
		for (int y = 0; y < h; y++)
			for (int x = 0; x < f->linesize[p]; x++)
				f->data[p][(ptrdiff_t)y * f->linesize[p] + x] =
					(uint8_t)(seed + 31 * p + 7 * y + 3 * x);
	}
}

/* md5 of the visible bytes only, written out by hand for yuv420p and nv12 */
static void md5_by_hand(const AVFrame *f, uint8_t out[16])
{
	struct AVMD5 *md5 = av_md5_alloc();
	av_md5_init(md5);
	int cw = (f->width + 1) / 2, ch = (f->height + 1) / 2;
	for (int y = 0; y < f->height; y++)
		av_md5_update(md5, f->data[0] + (ptrdiff_t)y * f->linesize[0], f->width);
	if (f->format == AV_PIX_FMT_NV12) {
		for (int y = 0; y < ch; y++)
			av_md5_update(md5, f->data[1] + (ptrdiff_t)y * f->linesize[1], 2 * cw);
	} else {
		for (int p = 1; p <= 2; p++)
			for (int y = 0; y < ch; y++)
				av_md5_update(md5, f->data[p] + (ptrdiff_t)y * f->linesize[p], cw);
	}
	av_md5_final(md5, out);
	av_free(md5);
}

static long pictures(struct ffdvb_output *o, struct ffdvb_output_picture_record **r)
{
	free(*r);
	*r = NULL;
	return ffdvb_output_pictures(o, r);
}

static void test_md5_and_times(void)
{
	struct ffdvb_output *o = headless(1, 1, 0, 0);
	uint64_t t0 = ffdvb_output_now(o);
	struct ffdvb_output_picture_record *r = NULL;
	static const struct { enum AVPixelFormat fmt; int w, h; } cases[] = {
		{ AV_PIX_FMT_YUV420P, 720, 576 }, { AV_PIX_FMT_YUV420P, 75, 33 },
		{ AV_PIX_FMT_NV12, 1920, 1080 }, { AV_PIX_FMT_YUV420P, 1, 1 },
		{ AV_PIX_FMT_YUV420P, 1921, 1081 },
	};
	int n = sizeof(cases) / sizeof(cases[0]);
	for (int i = 0; i < n; i++) {
		AVFrame *f = new_frame(cases[i].fmt, cases[i].w, cases[i].h);
		pattern(f, i);
		CHECK(f->linesize[0] > f->width || f->width >= 1920); /* padding is skipped */
		struct ffdvb_picture_info info = { .pts = 3600 * i, .tv = FFDVB_TV_4_3 };
		ffdvb_output_wait_until(o, t0 + 40 * MS * i);
		EXPECT_EQ("show", ffdvb_output_show(o, f, &info), 0);
		/* referenced, not copied: the buffer now has two owners */
		EXPECT_EQ("frame referenced", av_buffer_get_ref_count(f->buf[0]), 2);
		uint8_t want[16];
		md5_by_hand(f, want);
		long count = pictures(o, &r);
		EXPECT_EQ("records", count, i + 1);
		if (count == i + 1) {
			char what[64];
			snprintf(what, sizeof(what), "md5 of case %d (%dx%d)", i, cases[i].w,
				 cases[i].h);
			CHECK_LABELLED(what, !memcmp(r[i].md5, want, 16));
			EXPECT_EQ("t", r[i].t, t0 + 40 * MS * i);
			EXPECT_EQ("pts", r[i].pts, 3600 * i);
			EXPECT_EQ("width", r[i].width, cases[i].w);
			EXPECT_EQ("height", r[i].height, cases[i].h);
			EXPECT_EQ("blank", r[i].blank, 0);
		}
		av_frame_free(&f);
	}

	/* blank and NULL show black: no size, zero md5 */
	AVFrame *f = new_frame(AV_PIX_FMT_YUV420P, 720, 576);
	struct ffdvb_picture_info blank = { .pts = 99, .blank = 1 };
	EXPECT_EQ("show blank", ffdvb_output_show(o, f, &blank), 0);
	EXPECT_EQ("show NULL", ffdvb_output_show(o, NULL, NULL), 0);
	static const uint8_t zero[16];
	long count = pictures(o, &r);
	EXPECT_EQ("records with black", count, n + 2);
	if (count == n + 2) {
		EXPECT_EQ("blank flag", r[n].blank, 1);
		EXPECT_EQ("blank pts", r[n].pts, 99);
		EXPECT_EQ("blank width", r[n].width, 0);
		CHECK(!memcmp(r[n].md5, zero, 16));
		EXPECT_EQ("NULL info: pts -1", r[n + 1].pts, -1);
		EXPECT_EQ("NULL frame: height 0", r[n + 1].height, 0);
		CHECK(!memcmp(r[n + 1].md5, zero, 16));
	}
	/* the output dropped its reference when the next picture came */
	EXPECT_EQ("old frame released", av_buffer_get_ref_count(f->buf[0]), 1);

	/* the text record */
	EXPECT_EQ("write", ffdvb_output_write_record(o, "test_output_record.log", NULL), 0);
	FILE *lf = fopen("test_output_record.log", "r");
	char line[256], hex[64];
	unsigned long long t;
	long long pts;
	int w, h, b;
	CHECK(lf && fgets(line, sizeof(line), lf) &&
	      sscanf(line, "picture %llu %lld %d %d %d %63s", &t, &pts, &w, &h, &b, hex) == 6);
	EXPECT_EQ("log t", t, t0);
	EXPECT_EQ("log w", w, 720);
	EXPECT_EQ("log h", h, 576);
	CHECK(strlen(hex) == 32);
	if (lf)
		fclose(lf);
	unlink("test_output_record.log");

	av_frame_free(&f);
	free(r);
	ffdvb_output_free(o);
}

static void test_bad_frames(void)
{
	struct ffdvb_output *o = headless(1, 1, 0, 0);
	struct ffdvb_output_picture_record *r = NULL;
	AVFrame *f = new_frame(AV_PIX_FMT_YUV420P, 64, 64);
	struct ffdvb_picture_info info = { .pts = 1 };

	int fmt = f->format;
	f->format = AV_PIX_FMT_NB + 5;
	EXPECT_EQ("unknown pixel format", ffdvb_output_show(o, f, &info), -EINVAL);
	f->format = AV_PIX_FMT_NONE;
	EXPECT_EQ("no pixel format", ffdvb_output_show(o, f, &info), -EINVAL);
	f->format = AV_PIX_FMT_VAAPI;
	EXPECT_EQ("hardware frame", ffdvb_output_show(o, f, &info), -EINVAL);
	f->format = fmt;
	f->width = 0;
	EXPECT_EQ("zero width", ffdvb_output_show(o, f, &info), -EINVAL);
	f->width = -3;
	EXPECT_EQ("negative width", ffdvb_output_show(o, f, &info), -EINVAL);
	f->width = 64;
	f->height = 100000;
	EXPECT_EQ("absurd height", ffdvb_output_show(o, f, &info), -EINVAL);
	f->height = 64;
	uint8_t *keep = f->data[2];
	f->data[2] = NULL;
	EXPECT_EQ("missing plane", ffdvb_output_show(o, f, &info), -EINVAL);
	f->data[2] = keep;
	struct ffdvb_picture_info bad = { .tv = 7 };
	EXPECT_EQ("bad tv", ffdvb_output_show(o, f, &bad), -EINVAL);
	bad = (struct ffdvb_picture_info){ .display_format = 9 };
	EXPECT_EQ("bad display format", ffdvb_output_show(o, f, &bad), -EINVAL);
	bad = (struct ffdvb_picture_info){ .dar_num = 16 };
	EXPECT_EQ("half a dar", ffdvb_output_show(o, f, &bad), -EINVAL);
	bad = (struct ffdvb_picture_info){ .dar_num = -16, .dar_den = 9 };
	EXPECT_EQ("negative dar", ffdvb_output_show(o, f, &bad), -EINVAL);
	EXPECT_EQ("NULL output", ffdvb_output_show(NULL, f, &info), -EINVAL);
	EXPECT_EQ("no record of refused frames", pictures(o, &r), 0);
	EXPECT_EQ("refcount unchanged", av_buffer_get_ref_count(f->buf[0]), 1);
	/* still works afterwards */
	EXPECT_EQ("good frame", ffdvb_output_show(o, f, &info), 0);
	EXPECT_EQ("one record", pictures(o, &r), 1);
	av_frame_free(&f);
	free(r);
	ffdvb_output_free(o);
}

/* the record's limits: entries beyond them are not kept, the written log says "truncated" */
static void test_limits(void)
{
	struct record r;
	int16_t pcm[2 * 1152] = { 0 };
	char dir[] = "/tmp/ffdvb-rec-XXXXXX", path[64], line[128] = "";

	CHECK(record_init(&r) == 0);
	r.max_lines = 10;
	r.max_sound_bytes = 3 * 1152 * FFDVB_AUDIO_FRAME_BYTES;
	for (int i = 0; i < 25; i++)
		CHECK(record_picture(&r, (uint64_t)i, NULL, 3600 * i, 1) == 0);
	for (int i = 0; i < 5; i++)
		CHECK(record_sound(&r, (uint64_t)i, 1, 0, 2160 * i, pcm, 1152) == 0);
	EXPECT_EQ("pictures kept up to the limit", r.npics, 10);
	EXPECT_EQ("sound kept up to the limit (samples)", r.nsamples, 3 * 1152);
	CHECK_LABELLED("marked truncated", r.truncated);
	record_release(&r);

	/* through the public writer: the last line of the log says it */
	struct ffdvb_output *o = headless(1, 1, 0, 0);
	FILE *f;

	o->rec.max_lines = 2;
	for (int i = 0; i < 3; i++)
		CHECK(record_picture(&o->rec, (uint64_t)i, NULL, 3600 * i, 1) == 0);
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/pictures.log", dir);
	EXPECT_EQ("written", ffdvb_output_write_record(o, path, NULL), 0);
	f = fopen(path, "r");
	if (f) {
		char last[128] = "";
		int n = 0;

		while (fgets(line, sizeof(line), f)) {
			n++;
			snprintf(last, sizeof(last), "%s", line);
		}
		fclose(f);
		EXPECT_EQ("two pictures and the truncated line", n, 3);
		CHECK_LABELLED("last line: truncated", !strcmp(last, "truncated\n"));
	}
	unlink(path);
	rmdir(dir);
	ffdvb_output_free(o);
}

int main(void)
{
	test_limits();
	test_md5_and_times();
	test_bad_frames();
	return finish("test_output_record");
}
