/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The compositor through ffdvb_output_screenshot(): PNGs decoded back with libavcodec and
 * checked pixel by pixel against values computed here from the definitions: BT.601 YUV->RGB
 * (within 2), the OSD blend out = v*(1-a/255) + o*a/255 (exact over RGB and black video), the
 * aspect rules (letterbox bars, centre cut-out, pan&scan, pillarbox: exact black rows and
 * columns), blank, scaling of the OSD to other output sizes, odd and bad input. */
#include "check.h"
#include "test_output_util.h"

static const int colour[4][3] = {
	{ 120, 100, 180 }, { 60, 160, 110 }, { 170, 140, 90 }, { 200, 128, 128 },
};

static int near(int a, int b, int tol)
{
	return abs(a - b) <= tol;
}

/* counts the pixels in [x0,x1) x [y0,y1) farther than tol from rgb (reporting the first) */
static int count_off(const struct rgb_image *im, int x0, int y0, int x1, int y1,
		     const uint8_t rgb[3], int tol, const char *what)
{
	int bad = 0;
	for (int y = y0; y < y1; y++)
		for (int x = x0; x < x1; x++) {
			const uint8_t *p = px_at(im, x, y);
			if (near(p[0], rgb[0], tol) && near(p[1], rgb[1], tol) &&
			    near(p[2], rgb[2], tol))
				continue;
			if (!bad++)
				printf("  %s: (%d,%d) is %d,%d,%d, want %d,%d,%d +-%d\n", what, x, y,
				       p[0], p[1], p[2], rgb[0], rgb[1], rgb[2], tol);
		}
	return bad;
}

static AVFrame *solid(int w, int h, int c, AVRational sar)
{
	AVFrame *f = new_frame(AV_PIX_FMT_YUV420P, w, h);
	fill_yuv420(f, 0, 0, w, h, colour[c][0], colour[c][1], colour[c][2]);
	f->sample_aspect_ratio = sar;
	return f;
}

static void rgb_of(int c, uint8_t rgb[3])
{
	yuv601_to_rgb(colour[c][0], colour[c][1], colour[c][2], rgb);
}

static const uint8_t black[3];

/* the OSD pattern: colour varies per pixel, alpha 17*k in 16 bands of 36 rows */
static uint32_t osd_px(int x, int y)
{
	uint32_t a = 17u * (uint32_t)(y / 36);
	uint32_t r = (x * 7 + y) & 255, g = (x + 3 * y) & 255, b = ((5 * x) ^ y) & 255;
	return a << 24 | r << 16 | g << 8 | b;
}

static uint32_t *osd_pattern(void)
{
	uint32_t *osd = malloc(FFDVB_OSD_WIDTH * FFDVB_OSD_HEIGHT * 4);
	for (int y = 0; y < FFDVB_OSD_HEIGHT; y++)
		for (int x = 0; x < FFDVB_OSD_WIDTH; x++)
			osd[y * FFDVB_OSD_WIDTH + x] = osd_px(x, y);
	return osd;
}

/* |got - blend(video, osd)| for every pixel in the region, video given per pixel */
static int blend_errors(const struct rgb_image *im, int x0, int x1,
			void (*video)(int x, int y, uint8_t rgb[3]), int tol)
{
	int bad = 0;
	for (int y = 0; y < im->h; y++)
		for (int x = x0; x < x1; x++) {
			uint32_t o = osd_px(x, y);
			int a = o >> 24;
			uint8_t v[3];
			video(x, y, v);
			const uint8_t *p = px_at(im, x, y);
			for (int c = 0; c < 3; c++) {
				int want = ref_blend(v[c], (o >> (16 - 8 * c)) & 255, a);
				if (near(p[c], want, tol))
					continue;
				if (!bad++)
					printf("  blend (%d,%d) ch %d a %d: got %d want %d +-%d\n", x,
					       y, c, a, p[c], want, tol);
			}
		}
	return bad;
}

static void video_black(int x, int y, uint8_t rgb[3])
{
	(void)x, (void)y;
	memset(rgb, 0, 3);
}

static void video_bands(int x, int y, uint8_t rgb[3])
{
	(void)y;
	rgb_of(x / 180, rgb);
}

static void video_gradient(int x, int y, uint8_t rgb[3])
{
	rgb[0] = (uint8_t)x;
	rgb[1] = (uint8_t)(y * 3);
	rgb[2] = (uint8_t)(x ^ y);
}

static void test_osd_blend(void)
{
	struct ffdvb_output *o = headless(1, 0, 0, 0);
	uint32_t *osd = osd_pattern();
	ffdvb_output_set_osd(o, osd);

	/* over black: exact */
	EXPECT_EQ("show black", ffdvb_output_show(o, NULL, NULL), 0);
	struct rgb_image im = screenshot(o, "test_output_compose_black");
	EXPECT_EQ("png width", im.w, 720);
	EXPECT_EQ("png height", im.h, 576);
	EXPECT_EQ("OSD over black: exact blend", blend_errors(&im, 0, 720, video_black, 0), 0);
	free(im.px);

	/* over an RGB picture (no colour conversion): exact */
	AVFrame *f = new_frame(AV_PIX_FMT_RGB24, 720, 576);
	for (int y = 0; y < 576; y++)
		for (int x = 0; x < 720; x++)
			video_gradient(x, y, f->data[0] + (ptrdiff_t)y * f->linesize[0] + 3 * x);
	f->sample_aspect_ratio = (AVRational){ 16, 15 };
	struct ffdvb_picture_info info = { .pts = 0, .tv = FFDVB_TV_4_3 };
	EXPECT_EQ("show rgb", ffdvb_output_show(o, f, &info), 0);
	im = screenshot(o, "test_output_compose_rgb");
	EXPECT_EQ("OSD over RGB: exact blend", blend_errors(&im, 0, 720, video_gradient, 0), 0);
	free(im.px);
	av_frame_free(&f);

	/* over YUV colour bands: BT.601 within 2, then the blend (one more for its rounding) */
	f = new_frame(AV_PIX_FMT_YUV420P, 720, 576);
	for (int c = 0; c < 4; c++)
		fill_yuv420(f, 180 * c, 0, 180 * c + 180, 576, colour[c][0], colour[c][1],
			    colour[c][2]);
	f->sample_aspect_ratio = (AVRational){ 16, 15 };
	EXPECT_EQ("show bands", ffdvb_output_show(o, f, &info), 0);
	im = screenshot(o, "test_output_compose_bands");
	int bad = 0;
	for (int c = 0; c < 4; c++) /* 4 columns off each band edge: chroma interpolation */
		bad += blend_errors(&im, 180 * c + 4, 180 * c + 176, video_bands, 3);
	EXPECT_EQ("OSD over YUV bands", bad, 0);
	free(im.px);

	/* without OSD the bands themselves, within 2 */
	ffdvb_output_set_osd(o, NULL);
	ffdvb_output_refresh(o);
	im = screenshot(o, "test_output_compose_bands2");
	bad = 0;
	for (int c = 0; c < 4; c++) {
		uint8_t rgb[3];
		rgb_of(c, rgb);
		bad += count_off(&im, 180 * c + 4, 0, 180 * c + 176, 576, rgb, 2, "band");
	}
	EXPECT_EQ("YUV bands, BT.601", bad, 0);
	free(im.px);

	av_frame_free(&f);
	free(osd);
	ffdvb_output_free(o);
}

static struct rgb_image show_and_shoot(struct ffdvb_output *o, AVFrame *f,
				       const struct ffdvb_picture_info *info, const char *name)
{
	EXPECT_EQ(name, ffdvb_output_show(o, f, info), 0);
	return screenshot(o, name);
}

static void test_aspect(void)
{
	struct ffdvb_output *o = headless(1, 0, 0, 0);
	const AVRational sar43 = { 16, 15 }, sar169 = { 64, 45 };
	uint8_t a[3];
	rgb_of(0, a);

	/* 16:9 on a 4:3 TV, letterbox: 432 picture rows, 72 black rows above and below */
	AVFrame *wide = solid(720, 576, 0, sar169);
	struct ffdvb_picture_info lb = { .tv = FFDVB_TV_4_3,
					 .display_format = FFDVB_DISPLAY_LETTER_BOX };
	struct rgb_image im = show_and_shoot(o, wide, &lb, "test_output_compose_lb");
	EXPECT_EQ("letterbox top bar", count_off(&im, 0, 0, 720, 72, black, 0, "top"), 0);
	EXPECT_EQ("letterbox picture", count_off(&im, 0, 72, 720, 504, a, 2, "pic"), 0);
	EXPECT_EQ("letterbox bottom bar", count_off(&im, 0, 504, 720, 576, black, 0, "bot"), 0);
	free(im.px);

	/* the same from the info's display aspect, the frame saying 4:3 */
	AVFrame *narrow = solid(720, 576, 0, sar43);
	struct ffdvb_picture_info lb_dar = lb;
	lb_dar.dar_num = 16;
	lb_dar.dar_den = 9;
	im = show_and_shoot(o, narrow, &lb_dar, "test_output_compose_lbdar");
	EXPECT_EQ("dar from info: top bar", count_off(&im, 0, 0, 720, 72, black, 0, "top"), 0);
	EXPECT_EQ("dar from info: picture", count_off(&im, 0, 72, 720, 504, a, 2, "pic"), 0);
	free(im.px);

	/* centre cut-out and pan&scan: the 90 columns each side are cropped */
	AVFrame *sides = solid(720, 576, 0, sar169);
	fill_yuv420(sides, 0, 0, 90, 576, colour[1][0], colour[1][1], colour[1][2]);
	fill_yuv420(sides, 630, 0, 720, 576, colour[2][0], colour[2][1], colour[2][2]);
	struct ffdvb_picture_info cco = { .tv = FFDVB_TV_4_3,
					  .display_format = FFDVB_DISPLAY_CENTER_CUT_OUT };
	im = show_and_shoot(o, sides, &cco, "test_output_compose_cco");
	EXPECT_EQ("centre cut-out: only the centre", count_off(&im, 0, 0, 720, 576, a, 2, "cco"),
		  0);
	free(im.px);
	struct ffdvb_picture_info ps = cco;
	ps.display_format = FFDVB_DISPLAY_PAN_SCAN;
	im = show_and_shoot(o, sides, &ps, "test_output_compose_ps");
	EXPECT_EQ("pan&scan: centre", count_off(&im, 0, 0, 720, 576, a, 2, "ps"), 0);
	free(im.px);

	/* 4:3 on a 16:9 TV: pillarbox, 540 picture columns, 90 black each side */
	struct ffdvb_picture_info pb = { .tv = FFDVB_TV_16_9,
					 .display_format = FFDVB_DISPLAY_LETTER_BOX };
	im = show_and_shoot(o, narrow, &pb, "test_output_compose_pb");
	EXPECT_EQ("pillarbox left", count_off(&im, 0, 0, 90, 576, black, 0, "left"), 0);
	EXPECT_EQ("pillarbox picture", count_off(&im, 90, 0, 630, 576, a, 2, "pic"), 0);
	EXPECT_EQ("pillarbox right", count_off(&im, 630, 0, 720, 576, black, 0, "right"), 0);
	free(im.px);

	/* same shape: the whole screen (16:9 on 16:9, 4:3 on 4:3, a 704-wide ITU picture) */
	im = show_and_shoot(o, wide, &pb, "test_output_compose_full169");
	EXPECT_EQ("16:9 on 16:9: full", count_off(&im, 0, 0, 720, 576, a, 2, "full"), 0);
	free(im.px);
	im = show_and_shoot(o, narrow, &lb, "test_output_compose_full43");
	EXPECT_EQ("4:3 on 4:3: full", count_off(&im, 0, 0, 720, 576, a, 2, "full"), 0);
	free(im.px);
	AVFrame *itu = solid(704, 576, 0, (AVRational){ 12, 11 });
	im = show_and_shoot(o, itu, &lb, "test_output_compose_itu");
	EXPECT_EQ("704x576 12:11 on 4:3: full", count_off(&im, 0, 0, 720, 576, a, 2, "itu"), 0);
	free(im.px);

	/* blank: black whatever the frame */
	struct ffdvb_picture_info blank = lb;
	blank.blank = 1;
	im = show_and_shoot(o, wide, &blank, "test_output_compose_blank");
	EXPECT_EQ("blank is black", count_off(&im, 0, 0, 720, 576, black, 0, "blank"), 0);
	free(im.px);

	/* other layouts go through the same conversion */
	AVFrame *nv12 = new_frame(AV_PIX_FMT_NV12, 720, 576);
	memset(nv12->data[0], colour[0][0], (size_t)nv12->linesize[0] * 576);
	for (int y = 0; y < 288; y++)
		for (int x = 0; x < 360; x++) {
			nv12->data[1][y * nv12->linesize[1] + 2 * x] = colour[0][1];
			nv12->data[1][y * nv12->linesize[1] + 2 * x + 1] = colour[0][2];
		}
	nv12->sample_aspect_ratio = sar43;
	im = show_and_shoot(o, nv12, &lb, "test_output_compose_nv12");
	EXPECT_EQ("nv12", count_off(&im, 0, 0, 720, 576, a, 2, "nv12"), 0);
	free(im.px);

	av_frame_free(&wide);
	av_frame_free(&narrow);
	av_frame_free(&sides);
	av_frame_free(&itu);
	av_frame_free(&nv12);
	ffdvb_output_free(o);
}

static void test_other_size(void)
{
	/* a 1280x720 output: picture and OSD scaled to it, OSD over the whole raster */
	struct ffdvb_output *o = headless(1, 0, 1280, 720);
	uint32_t *osd = calloc(FFDVB_OSD_WIDTH * FFDVB_OSD_HEIGHT, 4);
	for (int y = 0; y < FFDVB_OSD_HEIGHT; y++)
		for (int x = 0; x < 360; x++)
			osd[y * FFDVB_OSD_WIDTH + x] = 0xff20d040;
	ffdvb_output_set_osd(o, osd);
	AVFrame *wide = solid(720, 576, 0, (AVRational){ 64, 45 });
	struct ffdvb_picture_info info = { .tv = FFDVB_TV_16_9 };
	struct rgb_image im = show_and_shoot(o, wide, &info, "test_output_compose_720p");
	EXPECT_EQ("png width", im.w, 1280);
	EXPECT_EQ("png height", im.h, 720);
	const uint8_t osd_rgb[3] = { 0x20, 0xd0, 0x40 };
	uint8_t a[3];
	rgb_of(0, a);
	EXPECT_EQ("scaled OSD, left half", count_off(&im, 0, 0, 630, 720, osd_rgb, 0, "osd"), 0);
	EXPECT_EQ("video, right half", count_off(&im, 650, 0, 1280, 720, a, 2, "video"), 0);
	free(im.px);
	av_frame_free(&wide);
	free(osd);
	ffdvb_output_free(o);
}

static void test_odd_and_bad(void)
{
	struct ffdvb_output *o = headless(1, 0, 0, 0);
	/* before any picture: black */
	struct rgb_image im = screenshot(o, "test_output_compose_nothing");
	EXPECT_EQ("nothing shown: black", count_off(&im, 0, 0, 720, 576, black, 0, "none"), 0);
	free(im.px);

	static const int sizes[][2] = { { 1, 1 }, { 1921, 1081 }, { 3, 577 }, { 4096, 2 } };
	for (int i = 0; i < 4; i++) {
		AVFrame *f = solid(sizes[i][0], sizes[i][1], 3, (AVRational){ 0, 1 });
		struct ffdvb_picture_info info = { .tv = FFDVB_TV_16_9,
						   .display_format = FFDVB_DISPLAY_CENTER_CUT_OUT };
		char name[64];
		snprintf(name, sizeof(name), "test_output_compose_odd%d", i);
		im = show_and_shoot(o, f, &info, name);
		EXPECT_EQ("odd size: png size", im.w * im.h, 720 * 576);
		free(im.px);
		info.tv = FFDVB_TV_4_3;
		im = show_and_shoot(o, f, &info, name);
		free(im.px);
		av_frame_free(&f);
	}
	/* a picture in grey, its colour known exactly: Y 200 -> 214 */
	AVFrame *g = solid(2, 2, 3, (AVRational){ 4, 3 }); /* 4:3 */
	struct ffdvb_picture_info info = { .tv = FFDVB_TV_4_3 };
	im = show_and_shoot(o, g, &info, "test_output_compose_tiny");
	uint8_t grey[3];
	rgb_of(3, grey);
	EXPECT_EQ("2x2 grey upscaled", count_off(&im, 0, 0, 720, 576, grey, 2, "2x2"), 0);
	free(im.px);
	av_frame_free(&g);

	EXPECT_EQ("unwritable path", ffdvb_output_screenshot(o, "/nonexistent-dir/x.png"),
		  -ENOENT);
	EXPECT_EQ("NULL path", ffdvb_output_screenshot(o, NULL), -EINVAL);
	EXPECT_EQ("NULL output", ffdvb_output_screenshot(NULL, "x.png"), -EINVAL);
	CHECK(access("/nonexistent-dir/x.png.tmp", F_OK) != 0);
	ffdvb_output_free(o);
}

int main(void)
{
	test_osd_blend();
	test_aspect();
	test_other_size();
	test_odd_and_bad();
	return finish("test_output_compose");
}
