/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The OSD on screen, end to end: OSD_SEND_CMD through the card, rendered, handed to the decoder,
 * composited by the output, written as PNG by the screenshot path, read back with libavcodec's
 * PNG decoder and compared pixel by pixel with what the test computes from the commands'
 * definition (docs/av7110.md §7: palette 0xAABBGGRR, blend level L = alpha >> 4, the
 * picture weighted by 1 - L/15): over black with no video, and over a flat grey still picture.
 * Also: a real-time OSD change is on screen within one frame period (40 ms). */
#include <libavcodec/avcodec.h>
#include <libavutil/imgutils.h>

#include "play_util.h"

size_t make_iframe(uint8_t *buf, size_t cap, int width, int height, int aspect_code);

#define W 720
#define H 576

static int osd(struct player *p, void *of, int cmd, int x0, int y0, int x1, int y1, int color,
	       void *data, size_t len)
{
	struct ffdvb_osd_cmd c = { cmd, x0, y0, x1, y1, color, data };
	struct ffdvb_ioctl io = { .cmd = FFDVB_OSD_SEND_CMD, .buf = &c, .data = data,
				  .data_len = len };

	return p->ops->ioctl(of, &io);
}

/* the screenshot as RGB24 W x H (malloc'ed), via libavcodec's PNG decoder */
static uint8_t *screenshot_rgb(struct player *p)
{
	const char *path = "streams/osd_shot.png";
	const AVCodec *codec = avcodec_find_decoder(AV_CODEC_ID_PNG);
	AVCodecContext *ctx = avcodec_alloc_context3(codec);
	AVPacket *pkt = av_packet_alloc();
	AVFrame *f = av_frame_alloc();
	uint8_t *rgb = NULL, *file;
	size_t len;

	if (ffdvb_decoder_screenshot(p->dec, path) != 0 || !(file = read_file(path, &len)))
		goto out;
	if (avcodec_open2(ctx, codec, NULL) < 0 || av_new_packet(pkt, (int)len) < 0)
		goto out_file;
	memcpy(pkt->data, file, len);
	if (avcodec_send_packet(ctx, pkt) < 0 || avcodec_receive_frame(ctx, f) < 0 ||
	    f->width != W || f->height != H || f->format != AV_PIX_FMT_RGB24)
		goto out_file;
	rgb = malloc((size_t)W * H * 3);
	for (int y = 0; y < H; y++)
		memcpy(rgb + (size_t)y * W * 3, f->data[0] + (size_t)y * f->linesize[0], (size_t)W * 3);
out_file:
	free(file);
out:
	av_frame_free(&f);
	av_packet_free(&pkt);
	avcodec_free_context(&ctx);
	return rgb;
}

/* expected channel: video v under OSD colour o at level L (0..15) */
static int blend(int v, int o, int level)
{
	int a = level * 17;

	return (v * (255 - a) + o * a + 127) / 255;
}

/* a 200x100 8-bit window at (100, 80): column bands of palette entries with levels 0..15 */
static void draw(struct player *p, void *of, uint32_t *pal, uint8_t *block)
{
	for (int i = 0; i < 16; i++) /* entry i: level i, colour (r, g, b) = (255, 16 i, 40) */
		pal[i] = (uint32_t)i << 28 | (i ? 8u : 0u) << 24 | 40u << 16 | (uint32_t)(16 * i) << 8 |
			 255u;
	for (int y = 0; y < 100; y++)
		for (int x = 0; x < 200; x++)
			block[y * 200 + x] = (uint8_t)(x / 13 % 16);
	CHECK_EQ(osd(p, of, FFDVB_OSD_SetWindow, 1, 0, 0, 0, 0, NULL, 0), 0);
	CHECK_EQ(osd(p, of, FFDVB_OSD_Open, 100, 80, 299, 179, 8, NULL, 0), 0);
	CHECK_EQ(osd(p, of, FFDVB_OSD_SetPalette, 15, 0, 0, 0, 0, pal, 16 * 4), 0);
	CHECK_EQ(osd(p, of, FFDVB_OSD_SetBlock, 0, 0, 199, 99, 0, block, sizeof(uint8_t) * 20000),
		 0);
}

/* compares the screenshot with video colour (vr, vg, vb) under the window; tol per channel */
static long compare(const uint8_t *rgb, const uint32_t *pal, const uint8_t *block, int vr, int vg,
		    int vb, int tol)
{
	long bad = 0;

	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			const uint8_t *px = rgb + ((size_t)y * W + (size_t)x) * 3;
			int er = vr, eg = vg, eb = vb;

			if (x >= 100 && x < 300 && y >= 80 && y < 180) {
				uint32_t c = pal[block[(y - 80) * 200 + (x - 100)]];
				int level = (int)(c >> 28);

				er = blend(vr, (int)(c & 0xff), level);
				eg = blend(vg, (int)(c >> 8 & 0xff), level);
				eb = blend(vb, (int)(c >> 16 & 0xff), level);
			}
			if (abs(px[0] - er) > tol || abs(px[1] - eg) > tol || abs(px[2] - eb) > tol) {
				if (bad < 3)
					printf("   (%d,%d): %d %d %d, expected %d %d %d\n", x, y, px[0],
					       px[1], px[2], er, eg, eb);
				bad++;
			}
		}
	return bad;
}

int main(void)
{
	struct player p;
	void *of = NULL;
	uint32_t pal[16];
	uint8_t block[20000], *rgb;
	static uint8_t still[65536];
	size_t n = make_iframe(still, sizeof(still), W, H, 8);
	struct ffdvb_video_still_picture sp = { .iFrame = (char *)still, .size = (int32_t)n };
	struct ffdvb_ioctl io = { .cmd = FFDVB_VIDEO_STILLPICTURE, .buf = &sp, .data = still,
				  .data_len = n };
	struct ffdvb_decoder_stats s0, s;
	int r, rounds = 0, grey;
	uint64_t t0;

	printf("-- OSD over black, no video\n");
	player_open(&p, 0, 0);
	player_ioctl(&p, p.vf, FFDVB_VIDEO_STOP, 1, NULL); /* stopped and blanked: black */
	if (p.ops->open(ffdvb_card_node(p.card, FFDVB_NODE_OSD), O_RDWR, &of)) {
		printf("FAIL: cannot open osd0\n");
		return 1;
	}
	draw(&p, of, pal, block);
	player_pump(&p, 100);
	rgb = screenshot_rgb(&p);
	CHECK_LABELLED("screenshot read back", rgb != NULL);
	if (rgb)
		EXPECT_EQ("OSD over black: pixels off", compare(rgb, pal, block, 0, 0, 0, 1), 0);
	free(rgb);

	printf("-- OSD over a flat grey still picture\n");
	player_ioctl(&p, p.vf, FFDVB_VIDEO_PLAY, 0, NULL);
	while ((r = p.ops->ioctl(p.vf, &io)) == -FFDVB_EBLOCK && rounds++ < 5000)
		player_pump(&p, 2);
	CHECK_EQ(r, 0);
	player_pump(&p, 200);
	rgb = screenshot_rgb(&p);
	CHECK_LABELLED("screenshot read back", rgb != NULL);
	if (rgb) {
		/* the picture's grey as the compositor converts it (read outside the window) */
		grey = rgb[(10 * W + 10) * 3];
		printf("   picture grey: %d\n", grey);
		CHECK_LABELLED("the still picture is on screen (mid grey)", grey > 100 && grey < 160);
		EXPECT_EQ("OSD over the picture: pixels off", compare(rgb, pal, block, grey, grey, grey, 2),
			  0);
	}
	free(rgb);

	printf("-- a change is on screen within one frame period\n");
	ffdvb_decoder_get_stats(p.dec, &s0);
	t0 = real_ms();
	CHECK_EQ(osd(&p, of, FFDVB_OSD_Fill, 0, 0, 0, 0, 3, NULL, 0), 0);
	do {
		player_pump(&p, 1);
		ffdvb_decoder_get_stats(p.dec, &s);
	} while (s.osd_presented == s0.osd_presented && real_ms() - t0 < 1000);
	printf("   presented after %llu ms\n", (unsigned long long)(real_ms() - t0));
	CHECK_LABELLED("OSD change presented within 40 ms", s.osd_presented != s0.osd_presented &&
							       real_ms() - t0 <= 40);
	p.ops->release(of);
	player_close(&p);
	return finish("test_play_osd");
}
