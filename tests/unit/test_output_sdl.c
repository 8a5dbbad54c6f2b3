/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The SDL backend where no display exists: with SDL's offscreen (else dummy) video driver and
 * its dummy audio driver, create a window output, show pictures in the layouts uploaded as
 * they are (yuv420p, nv12) and converted (rgb24, yuv422p), the OSD texture, screenshots of
 * what is shown, sound, the clock, and the refusals: a window without a display, KMSDRM
 * without a KMS device, AUTO falling back to the headless sink. If SDL cannot start video
 * here at all, the test says so and is skipped (exit 77). */
#include <glob.h>

#include "check.h"
#include "output_internal.h" /* sdl_read_back() */
#include "test_output_util.h"

static int have_kms(void)
{
	glob_t g;
	int found = glob("/dev/dri/card*", 0, NULL, &g) == 0 && g.gl_pathc > 0;
	globfree(&g);
	return found;
}

static void test_refusals(void)
{
	unsetenv("SDL_VIDEODRIVER");
	unsetenv("DISPLAY");
	unsetenv("WAYLAND_DISPLAY");
	struct ffdvb_output_config cfg = { .kind = FFDVB_OUTPUT_WINDOW };
	errno = 0;
	struct ffdvb_output *o = ffdvb_output_new(&cfg);
	CHECK_LABELLED("no window without a display", o == NULL && errno == ENODEV);
	ffdvb_output_free(o);
	if (!have_kms()) {
		cfg.kind = FFDVB_OUTPUT_KMSDRM;
		errno = 0;
		o = ffdvb_output_new(&cfg);
		CHECK_LABELLED("no KMSDRM without /dev/dri", o == NULL && errno == ENODEV);
		ffdvb_output_free(o);
		cfg.kind = FFDVB_OUTPUT_AUTO;
		o = ffdvb_output_new(&cfg);
		CHECK_LABELLED("AUTO falls back to none", o && !strcmp(ffdvb_output_name(o), "none"));
		ffdvb_output_free(o);
	} else {
		printf("NOTE: /dev/dri/card* exists: the KMSDRM refusal is not checked\n");
	}
}

/* a window output on SDL's video driver (offscreen: GL through EGL; dummy: SDL's software
 * renderer) with SDL's dummy sound driver, or NULL */
static struct ffdvb_output *open_sdl(const char *driver, int audio)
{
	setenv("SDL_AUDIODRIVER", "dummy", 1);
	setenv("SDL_VIDEODRIVER", driver, 1);
	struct ffdvb_output_config cfg = { .kind = FFDVB_OUTPUT_WINDOW, .audio = audio };
	struct ffdvb_output *o = ffdvb_output_new(&cfg);
	if (o) {
		test_pin_gl_libraries();
		printf("SDL video driver %s, audio %d\n", driver, audio);
	}
	return o;
}

static int near_rgb(const uint8_t *p, const uint8_t want[3], int tol)
{
	for (int c = 0; c < 3; c++)
		if (abs(p[c] - want[c]) > tol)
			return 0;
	return 1;
}

static void test_pictures(struct ffdvb_output *o)
{
	CHECK(!strcmp(ffdvb_output_name(o), "window"));
	const int Y = 120, U = 100, V = 180;
	uint8_t want[3];
	yuv601_to_rgb(Y, U, V, want);
	struct ffdvb_picture_info info = { .tv = FFDVB_TV_4_3,
					   .display_format = FFDVB_DISPLAY_LETTER_BOX };

	AVFrame *yuv = new_frame(AV_PIX_FMT_YUV420P, 720, 576);
	fill_yuv420(yuv, 0, 0, 720, 576, Y, U, V);
	yuv->sample_aspect_ratio = (AVRational){ 64, 45 }; /* 16:9: letterboxed on 4:3 */
	EXPECT_EQ("show yuv420p", ffdvb_output_show(o, yuv, &info), 0);
	struct rgb_image im = screenshot(o, "test_output_sdl_a");
	EXPECT_EQ("screenshot at the window size: width", im.w, 720);
	EXPECT_EQ("screenshot at the window size: height", im.h, 576);
	const uint8_t black[3] = { 0, 0, 0 };
	CHECK_LABELLED("letterbox bar", near_rgb(px_at(&im, 360, 10), black, 0));
	CHECK_LABELLED("picture", near_rgb(px_at(&im, 360, 288), want, 2));
	free(im.px);

	AVFrame *nv12 = new_frame(AV_PIX_FMT_NV12, 1920, 1080);
	EXPECT_EQ("show nv12 HD", ffdvb_output_show(o, nv12, &info), 0);
	AVFrame *rgb = new_frame(AV_PIX_FMT_RGB24, 640, 480);
	EXPECT_EQ("show rgb24 (converted)", ffdvb_output_show(o, rgb, &info), 0);
	AVFrame *y422 = new_frame(AV_PIX_FMT_YUV422P, 721, 577);
	EXPECT_EQ("show yuv422p odd size (converted)", ffdvb_output_show(o, y422, &info), 0);
	AVFrame *tiny = new_frame(AV_PIX_FMT_YUV420P, 1, 1);
	EXPECT_EQ("show 1x1", ffdvb_output_show(o, tiny, &info), 0);
	AVFrame *bad = new_frame(AV_PIX_FMT_YUV420P, 16, 16);
	bad->format = AV_PIX_FMT_NB + 1;
	EXPECT_EQ("unknown pixel format", ffdvb_output_show(o, bad, &info), -EINVAL);
	bad->format = AV_PIX_FMT_YUV420P;
	struct ffdvb_picture_info blank = info;
	blank.blank = 1;
	EXPECT_EQ("show blank", ffdvb_output_show(o, yuv, &blank), 0);
	EXPECT_EQ("show NULL", ffdvb_output_show(o, NULL, &info), 0);

	/* the OSD texture: refreshed on demand, in the screenshot */
	uint32_t *osd = malloc(FFDVB_OSD_WIDTH * FFDVB_OSD_HEIGHT * 4);
	for (int i = 0; i < FFDVB_OSD_WIDTH * FFDVB_OSD_HEIGHT; i++)
		osd[i] = 0xff3060c0;
	ffdvb_output_set_osd(o, osd);
	EXPECT_EQ("osd changed", ffdvb_output_osd_changed(o), 1);
	EXPECT_EQ("refresh", ffdvb_output_refresh(o), 0);
	EXPECT_EQ("osd composed", ffdvb_output_osd_changed(o), 0);
	im = screenshot(o, "test_output_sdl_b");
	const uint8_t osd_rgb[3] = { 0x30, 0x60, 0xc0 };
	CHECK_LABELLED("OSD in the screenshot", near_rgb(px_at(&im, 100, 100), osd_rgb, 0));
	free(im.px);
	EXPECT_EQ("show under the OSD", ffdvb_output_show(o, yuv, &info), 0);
	ffdvb_output_set_osd(o, NULL);
	EXPECT_EQ("refresh without OSD", ffdvb_output_refresh(o), 0);
	im = screenshot(o, "test_output_sdl_c");
	CHECK_LABELLED("picture again", near_rgb(px_at(&im, 360, 288), want, 2));
	free(im.px);

	free(osd);
	av_frame_free(&yuv);
	av_frame_free(&nv12);
	av_frame_free(&rgb);
	av_frame_free(&y422);
	av_frame_free(&tiny);
	av_frame_free(&bad);
}

/* what the renderer draws (read back before presenting), for the window's 720x576 */
static struct rgb_image read_back(struct ffdvb_output *o)
{
	struct rgb_image im = { 720, 576, malloc(720 * 576 * 3) };
	int ret = sdl_read_back(o, im.px, 720 * 3, 720, 576);
	CHECK_LABELLED("read back the renderer", ret == 0);
	if (ret)
		memset(im.px, 0x55, 720 * 576 * 3);
	return im;
}

static int region_off(const struct rgb_image *im, int x0, int y0, int x1, int y1,
		      const uint8_t want[3], int tol, const char *what)
{
	int bad = 0;
	for (int y = y0; y < y1; y++)
		for (int x = x0; x < x1; x++)
			if (!near_rgb(px_at(im, x, y), want, tol) && !bad++) {
				const uint8_t *p = px_at(im, x, y);
				printf("  %s: (%d,%d) is %d,%d,%d, want %d,%d,%d +-%d\n", what, x, y,
				       p[0], p[1], p[2], want[0], want[1], want[2], tol);
			}
	return bad;
}

/* the GPU path: YUV textures, crop and placement by rectangles, the blended OSD texture */
static void test_renderer(struct ffdvb_output *o)
{
	const uint8_t black[3] = { 0, 0, 0 };
	uint8_t a[3], b[3];
	yuv601_to_rgb(120, 100, 180, a);
	yuv601_to_rgb(60, 160, 110, b);
	AVFrame *wide = new_frame(AV_PIX_FMT_YUV420P, 720, 576);
	fill_yuv420(wide, 0, 0, 720, 576, 120, 100, 180);
	fill_yuv420(wide, 0, 0, 90, 576, 60, 160, 110); /* sides: cropped by the cut-out */
	fill_yuv420(wide, 630, 0, 720, 576, 60, 160, 110);
	wide->sample_aspect_ratio = (AVRational){ 64, 45 };
	AVFrame *narrow = av_frame_clone(wide);
	narrow->sample_aspect_ratio = (AVRational){ 16, 15 };

	struct ffdvb_picture_info cco = { .tv = FFDVB_TV_4_3,
					  .display_format = FFDVB_DISPLAY_CENTER_CUT_OUT };
	ffdvb_output_show(o, wide, &cco);
	struct rgb_image im = read_back(o);
	/* two columns at each side may mix in the cropped texels (linear filtering) */
	EXPECT_EQ("renderer: centre cut-out", region_off(&im, 2, 0, 718, 576, a, 3, "cco"), 0);
	free(im.px);

	struct ffdvb_picture_info lb = { .tv = FFDVB_TV_4_3,
					 .display_format = FFDVB_DISPLAY_LETTER_BOX };
	ffdvb_output_show(o, wide, &lb);
	im = read_back(o);
	EXPECT_EQ("renderer: letterbox top", region_off(&im, 0, 0, 720, 72, black, 0, "top"), 0);
	EXPECT_EQ("renderer: letterbox picture",
		  region_off(&im, 100, 72, 620, 504, a, 3, "lb"), 0);
	EXPECT_EQ("renderer: letterbox sides", region_off(&im, 0, 72, 60, 504, b, 3, "lb"), 0);
	EXPECT_EQ("renderer: letterbox bottom",
		  region_off(&im, 0, 504, 720, 576, black, 0, "bottom"), 0);
	free(im.px);

	struct ffdvb_picture_info pb = { .tv = FFDVB_TV_16_9 };
	ffdvb_output_show(o, narrow, &pb);
	im = read_back(o);
	EXPECT_EQ("renderer: pillarbox left", region_off(&im, 0, 0, 90, 576, black, 0, "l"), 0);
	EXPECT_EQ("renderer: pillarbox picture", region_off(&im, 160, 0, 560, 576, a, 3, "pb"),
		  0);
	EXPECT_EQ("renderer: pillarbox right", region_off(&im, 630, 0, 720, 576, black, 0, "r"),
		  0);
	free(im.px);

	/* the OSD at several alphas over the picture, against the blend formula */
	uint32_t *osd = calloc(FFDVB_OSD_WIDTH * FFDVB_OSD_HEIGHT, 4);
	for (int y = 0; y < FFDVB_OSD_HEIGHT; y++)
		for (int x = 0; x < FFDVB_OSD_WIDTH; x++)
			osd[y * FFDVB_OSD_WIDTH + x] = (uint32_t)(17 * (y / 36)) << 24 | 0xf0e010;
	ffdvb_output_set_osd(o, osd);
	ffdvb_output_show(o, wide, &cco);
	im = read_back(o);
	int bad = 0;
	for (int k = 0; k < 16; k++) {
		int al = 17 * k;
		uint8_t want[3] = { (uint8_t)ref_blend(a[0], 0xf0, al),
				    (uint8_t)ref_blend(a[1], 0xe0, al),
				    (uint8_t)ref_blend(a[2], 0x10, al) };
		/* rows next to an alpha step mix both (the OSD texture is filtered too) */
		bad += region_off(&im, 4, 36 * k + 2, 716, 36 * k + 34, want, 4, "osd");
	}
	EXPECT_EQ("renderer: OSD blend at 16 alphas", bad, 0);
	free(im.px);
	ffdvb_output_set_osd(o, NULL);
	ffdvb_output_refresh(o);

	/* HD NV12 (BT.709): the renderer and the compositor agree */
	AVFrame *hd = new_frame(AV_PIX_FMT_NV12, 1920, 1080);
	memset(hd->data[0], 150, (size_t)hd->linesize[0] * 1080);
	for (int y = 0; y < 540; y++)
		for (int x = 0; x < 960; x++) {
			hd->data[1][y * hd->linesize[1] + 2 * x] = 90;
			hd->data[1][y * hd->linesize[1] + 2 * x + 1] = 170;
		}
	ffdvb_output_show(o, hd, &pb);
	im = read_back(o);
	struct rgb_image shot = screenshot(o, "test_output_sdl_hd");
	const uint8_t *c = px_at(&shot, 360, 288);
	printf("HD nv12: renderer %d,%d,%d, compositor %d,%d,%d\n", px_at(&im, 360, 288)[0],
	       px_at(&im, 360, 288)[1], px_at(&im, 360, 288)[2], c[0], c[1], c[2]);
	EXPECT_EQ("renderer = compositor for HD nv12", region_off(&im, 0, 0, 720, 576, c, 3, "hd"),
		  0);
	free(shot.px);
	free(im.px);

	free(osd);
	av_frame_free(&hd);
	av_frame_free(&wide);
	av_frame_free(&narrow);
}

static void test_clock_and_sound(struct ffdvb_output *o, int audio)
{
	uint64_t t0 = ffdvb_output_now(o);
	ffdvb_output_wait_until(o, t0 + 30 * MS);
	uint64_t t1 = ffdvb_output_now(o);
	CHECK_LABELLED("waited 30 ms", t1 >= t0 + 30 * MS && t1 < t0 + 2000 * MS);

	int16_t *s = calloc(4800, FFDVB_AUDIO_FRAME_BYTES);
	EXPECT_EQ("queue", ffdvb_output_audio_queue(o, s, 4800, 0), 0);
	size_t q = ffdvb_output_audio_queued(o);
	printf("audio %d: %zu samples queued right after queuing 4800\n", audio, q);
	/* SDL's count includes one device period in flight; a slow machine may have played some */
	CHECK_LABELLED("queued after queuing", q <= 4800 + 4096);
	ffdvb_output_audio_pause(o, 1);
	ffdvb_output_audio_pause(o, 0);
	ffdvb_output_audio_clear(o);
	EXPECT_EQ("cleared", ffdvb_output_audio_queued(o), 0);
	if (!audio) {
		/* the virtual device on the real clock */
		uint64_t q0 = ffdvb_output_now(o);
		ffdvb_output_audio_queue(o, s, 4800, 0);
		uint64_t q1 = ffdvb_output_now(o);
		ffdvb_output_wait_until(o, q1 + 50 * MS);
		uint64_t r0 = ffdvb_output_now(o);
		q = ffdvb_output_audio_queued(o);
		uint64_t r1 = ffdvb_output_now(o);
		/* heard: 48 samples per ms between queuing and asking, whatever the load */
		long most = 4800 - (long)((r0 - q1) * 48 / MS) + 1;
		long least = 4800 - (long)((r1 - q0) * 48 / MS) - 1;
		printf("virtual sound: %zu of 4800 left, expected %ld..%ld\n", q, least, most);
		CHECK_LABELLED("virtual sound drains in real time",
			       q <= 2400 && (long)q <= most && (long)q >= (least < 0 ? 0 : least));
	}
	free(s);
}

int main(void)
{
	static const char *const drivers[] = { "offscreen", "dummy" };
	int opened = 0;
	test_refusals();
	for (int d = 0; d < 2; d++)
		for (int audio = 1; audio >= 0; audio--) {
			struct ffdvb_output *o = open_sdl(drivers[d], audio);
			if (!o) {
				printf("NOTE: SDL's %s video driver does not start here\n",
				       drivers[d]);
				break;
			}
			opened++;
			test_pictures(o);
			test_renderer(o);
			test_clock_and_sound(o, audio);
			ffdvb_output_free(o);
		}
	if (!opened) {
		printf("SKIP test_output_sdl: SDL cannot open a window with the offscreen or dummy "
		       "video driver here (see the messages above)\n");
		return 77;
	}
	return finish("test_output_sdl");
}
