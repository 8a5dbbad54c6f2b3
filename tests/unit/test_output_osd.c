/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The OSD plane's life in the output: set_osd takes effect at the next show or refresh (the
 * screenshot shows what is on screen), osd_changed says when a refresh is due, NULL removes
 * the OSD, the plane is copied (the caller's buffer may change at once), and set_osd and
 * screenshots from other threads while pictures are shown. */
#include <pthread.h>

#include "check.h"
#include "test_output_util.h"

#define OSD_PIXELS (FFDVB_OSD_WIDTH * FFDVB_OSD_HEIGHT)

static uint32_t *plane(uint32_t argb)
{
	uint32_t *p = malloc(OSD_PIXELS * 4);
	for (int i = 0; i < OSD_PIXELS; i++)
		p[i] = argb;
	return p;
}

/* the colour of the screenshot's centre pixel as 0xRRGGBB */
static uint32_t centre(struct ffdvb_output *o, const char *name)
{
	struct rgb_image im = screenshot(o, name);
	const uint8_t *p = px_at(&im, im.w / 2, im.h / 2);
	uint32_t c = (uint32_t)p[0] << 16 | p[1] << 8 | p[2];
	free(im.px);
	return c;
}

static void test_changed_and_refresh(void)
{
	struct ffdvb_output *o = headless(1, 1, 0, 0);
	EXPECT_EQ("fresh output: no change", ffdvb_output_osd_changed(o), 0);
	uint32_t *red = plane(0xffff0000), *green = plane(0xff00ff00);

	ffdvb_output_set_osd(o, red);
	red[0] = 0; /* copied: later changes of the caller's buffer do not matter */
	EXPECT_EQ("set -> changed", ffdvb_output_osd_changed(o), 1);
	EXPECT_EQ("not on screen before show", centre(o, "test_output_osd_a"), 0x000000);
	EXPECT_EQ("show", ffdvb_output_show(o, NULL, NULL), 0);
	EXPECT_EQ("show -> composed", ffdvb_output_osd_changed(o), 0);
	EXPECT_EQ("red on screen", centre(o, "test_output_osd_b"), 0xff0000);

	ffdvb_output_set_osd(o, green);
	EXPECT_EQ("set again -> changed", ffdvb_output_osd_changed(o), 1);
	EXPECT_EQ("still red on screen", centre(o, "test_output_osd_c"), 0xff0000);
	EXPECT_EQ("refresh", ffdvb_output_refresh(o), 0);
	EXPECT_EQ("refresh -> composed", ffdvb_output_osd_changed(o), 0);
	EXPECT_EQ("green after refresh", centre(o, "test_output_osd_d"), 0x00ff00);
	struct ffdvb_output_picture_record *r = NULL;
	EXPECT_EQ("refresh adds no picture record", ffdvb_output_pictures(o, &r), 1);
	free(r);

	/* refresh keeps the picture: grey stays under a half-transparent OSD */
	AVFrame *f = new_frame(AV_PIX_FMT_YUV420P, 720, 576);
	fill_yuv420(f, 0, 0, 720, 576, 235, 128, 128); /* white */
	f->sample_aspect_ratio = (AVRational){ 16, 15 };
	EXPECT_EQ("show white", ffdvb_output_show(o, f, NULL), 0);
	uint32_t *half = plane(0x80000000); /* black at alpha 128 */
	ffdvb_output_set_osd(o, half);
	ffdvb_output_refresh(o);
	uint32_t c = centre(o, "test_output_osd_e");
	int want = (255 * 127 + 127) / 255; /* 255*(1-128/255), rounded */
	EXPECT_EQ("half black over white: red", c >> 16, want);
	EXPECT_EQ("half black over white: blue", c & 255, want);

	/* NULL removes it */
	ffdvb_output_set_osd(o, NULL);
	EXPECT_EQ("NULL -> changed", ffdvb_output_osd_changed(o), 1);
	ffdvb_output_refresh(o);
	EXPECT_EQ("NULL -> composed", ffdvb_output_osd_changed(o), 0);
	EXPECT_EQ("no OSD: white", centre(o, "test_output_osd_f"), 0xffffff);

	/* an OSD over nothing shown yet: over black */
	struct ffdvb_output *o2 = headless(1, 0, 0, 0);
	ffdvb_output_set_osd(o2, green);
	EXPECT_EQ("refresh with no picture", ffdvb_output_refresh(o2), 0);
	EXPECT_EQ("OSD over black", centre(o2, "test_output_osd_g"), 0x00ff00);
	ffdvb_output_free(o2);

	EXPECT_EQ("NULL output: no change", ffdvb_output_osd_changed(NULL), 0);
	ffdvb_output_set_osd(NULL, green); /* ignored, no crash */
	EXPECT_EQ("refresh NULL", ffdvb_output_refresh(NULL), -EINVAL);

	av_frame_free(&f);
	free(red);
	free(green);
	free(half);
	ffdvb_output_free(o);
}

struct other {
	struct ffdvb_output *o;
	int rounds, failures;
};

static void *other_thread(void *arg)
{
	struct other *t = arg;
	uint32_t *a = plane(0xff112233), *b = plane(0x40ffffff);
	for (int i = 0; i < t->rounds; i++) {
		ffdvb_output_set_osd(t->o, i & 1 ? a : (i % 3 ? b : NULL));
		(void)ffdvb_output_osd_changed(t->o);
		if (i % 4 == 0 && ffdvb_output_screenshot(t->o, "test_output_osd_thread.png"))
			t->failures++;
		struct ffdvb_output_picture_record *r = NULL;
		if (ffdvb_output_pictures(t->o, &r) < 0)
			t->failures++;
		free(r);
	}
	free(a);
	free(b);
	return NULL;
}

static void test_threads(void)
{
	struct ffdvb_output *o = headless(1, 1, 0, 0);
	struct other t = { .o = o, .rounds = 40 };
	pthread_t th;
	pthread_create(&th, NULL, other_thread, &t);
	int bad = 0;
	for (int i = 0; i < 400; i++) {
		/* a new frame each time: a shown frame is shared, never written again */
		AVFrame *f = new_frame(AV_PIX_FMT_YUV420P, 720, 576);
		fill_yuv420(f, 0, 0, 720, 576, 16 + i % 200, 128, 128);
		if (ffdvb_output_show(o, (i % 7) ? f : NULL, NULL))
			bad++;
		av_frame_free(&f);
		if (ffdvb_output_osd_changed(o) && ffdvb_output_refresh(o))
			bad++;
		ffdvb_output_wait_until(o, ffdvb_output_now(o) + 40 * MS);
	}
	pthread_join(th, NULL);
	EXPECT_EQ("owner thread", bad, 0);
	EXPECT_EQ("other thread", t.failures, 0);
	unlink("test_output_osd_thread.png");
	ffdvb_output_free(o);
}

int main(void)
{
	test_changed_and_refresh();
	test_threads();
	return finish("test_output_osd");
}
