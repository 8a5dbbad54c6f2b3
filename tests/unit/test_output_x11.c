// SPDX-License-Identifier: GPL-2.0-or-later
/* The SDL backend on a real X server, judged by the X server: Xvfb (started here, a 4:3 screen
 * and no window manager, as an X server that only runs the TV), SDL's x11 driver and Mesa's GL
 * renderer. --output window and fullscreen each show 100 pictures (red | blue halves, the
 * halves swapping each time) with an OSD bar, then `xwd` captures the window or the screen and
 * the pixels are checked where the picture's halves and the OSD must be. Fullscreen must cover
 * the whole screen: without a window manager SDL's FULLSCREEN_DESKTOP window stayed at
 * 720x576 and showed a corner of a screen-sized picture. Skipped loudly (77) without Xvfb, xwd
 * or a GL driver (scripts/setup.sh installs them). */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavutil/pixdesc.h>

#include "check.h"
#include "test_output_util.h"

#define SCREEN_W 1024
#define SCREEN_H 768

static pid_t xvfb;

#if defined(__SANITIZE_ADDRESS__)
/* SDL's x11 driver connects to D-Bus (screensaver, input methods) and libdbus keeps that
 * connection's buffer to the end of the process */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libdbus-1.so\n";
}
#endif

static void skip(const char *why)
{
	printf("SKIP: %s: the X11 output is not tested here (scripts/setup.sh installs it)\n", why);
	exit(77);
}

/* Xvfb on a free display number, which it tells through -displayfd */
static void start_xvfb(void)
{
	int fds[2];
	char fd_arg[16], screen[32], num[16] = "";
	if (system("command -v Xvfb >/dev/null && command -v xwd >/dev/null") != 0)
		skip("no Xvfb or xwd");
	if (pipe(fds))
		skip("no pipe");
	snprintf(fd_arg, sizeof(fd_arg), "%d", fds[1]);
	snprintf(screen, sizeof(screen), "%dx%dx24", SCREEN_W, SCREEN_H);
	xvfb = fork();
	if (xvfb == 0) {
		close(fds[0]);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 2);
		/* -noreset: an X server resets when its last client leaves and refuses new ones
		 * meanwhile; SDL's probe connection and each xwd would be such a last client */
		execlp("Xvfb", "Xvfb", "-displayfd", fd_arg, "-noreset", "-screen", "0", screen,
		       "-nolisten", "tcp", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	/* the number and its newline may come in two writes; the pipe stays open (until the
	 * process ends): a write to a closed pipe is fatal to Xvfb */
	size_t n = 0;
	while (n < sizeof(num) - 1 && !strchr(num, '\n')) {
		ssize_t r = read(fds[0], num + n, sizeof(num) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (xvfb < 0 || !strchr(num, '\n'))
		skip("Xvfb did not start");
	num[strcspn(num, "\n")] = 0;
	char display[32];
	snprintf(display, sizeof(display), ":%s", num);
	setenv("DISPLAY", display, 1);
	setenv("SDL_VIDEODRIVER", "x11", 1); /* SDL's x11 driver or a failure, no fallback */
	unsetenv("WAYLAND_DISPLAY");

}

static void stop_xvfb(void)
{
	if (xvfb > 0) {
		kill(xvfb, SIGTERM);
		waitpid(xvfb, NULL, 0);
	}
}

/* the capture as RGB24 (malloc'ed), through libavcodec's XWD decoder */
static uint8_t *capture(const char *what, int *w, int *h)
{
	const char *path = "x11_capture.xwd";
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "xwd -silent %s > %s 2> /dev/null", what, path);
	if (system(cmd) != 0)
		return NULL;
	FILE *f = fopen(path, "rb");
	uint8_t *file = NULL, *rgb = NULL;
	long len = -1;
	if (f && !fseek(f, 0, SEEK_END) && (len = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (file = malloc((size_t)len)) && fread(file, 1, (size_t)len, f) != (size_t)len)
		len = -1;
	if (f)
		fclose(f);
	unlink(path);
	const AVCodec *codec = avcodec_find_decoder(AV_CODEC_ID_XWD);
	AVCodecContext *ctx = codec ? avcodec_alloc_context3(codec) : NULL;
	AVPacket *pkt = av_packet_alloc();
	AVFrame *fr = av_frame_alloc();
	if (len > 0 && ctx && avcodec_open2(ctx, codec, NULL) >= 0 && !av_new_packet(pkt, (int)len)) {
		memcpy(pkt->data, file, (size_t)len);
		/* Xvfb's depth-24 pixels, as libavcodec lays them out: bytes per pixel, R, G, B */
		static const struct { enum AVPixelFormat fmt; int bpp, r, g, b; } layouts[] = {
			{ AV_PIX_FMT_BGR0, 4, 2, 1, 0 }, { AV_PIX_FMT_BGRA, 4, 2, 1, 0 },
			{ AV_PIX_FMT_RGB0, 4, 0, 1, 2 }, { AV_PIX_FMT_0RGB, 4, 1, 2, 3 },
			{ AV_PIX_FMT_BGR24, 3, 2, 1, 0 }, { AV_PIX_FMT_RGB24, 3, 0, 1, 2 },
		};
		int l = -1;
		if (avcodec_send_packet(ctx, pkt) >= 0 && avcodec_receive_frame(ctx, fr) >= 0)
			for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
				if (layouts[i].fmt == fr->format)
					l = (int)i;
		if (l < 0)
			printf("capture: an XWD layout this test does not know (%s)\n",
			       av_get_pix_fmt_name(fr->format));
		if (l >= 0 && (rgb = malloc((size_t)fr->width * fr->height * 3))) {
			*w = fr->width;
			*h = fr->height;
			for (int y = 0; y < fr->height; y++)
				for (int x = 0; x < fr->width; x++) {
					const uint8_t *s = fr->data[0] + (size_t)y * fr->linesize[0] +
							   x * layouts[l].bpp;
					uint8_t *d = rgb + ((size_t)y * fr->width + x) * 3;
					d[0] = s[layouts[l].r], d[1] = s[layouts[l].g], d[2] = s[layouts[l].b];
				}
		}
	}
	av_frame_free(&fr);
	av_packet_free(&pkt);
	avcodec_free_context(&ctx);
	free(file);
	return rgb;
}

/* 720x576 yuv420p, BT.601 limited: the left half red, the right half blue (or swapped) */
static AVFrame *halves(int swapped)
{
	AVFrame *f = av_frame_alloc();
	f->format = AV_PIX_FMT_YUV420P;
	f->width = 720;
	f->height = 576;
	f->sample_aspect_ratio = (AVRational){ 16, 15 }; /* 4:3 */
	if (av_frame_get_buffer(f, 0) < 0)
		return NULL;
	for (int y = 0; y < 576; y++)
		for (int x = 0; x < 720; x++)
			f->data[0][y * f->linesize[0] + x] = (x < 360) != swapped ? 81 : 41;
	for (int y = 0; y < 288; y++)
		for (int x = 0; x < 360; x++) {
			int red = (x < 180) != swapped;
			f->data[1][y * f->linesize[1] + x] = red ? 90 : 240;
			f->data[2][y * f->linesize[2] + x] = red ? 240 : 110;
		}
	return f;
}

/* the pixel at (x, y) of a w x h capture is near (r, g, b) */
static int near(const uint8_t *rgb, int w, int x, int y, int r, int g, int b)
{
	const uint8_t *p = rgb + ((size_t)y * w + x) * 3;
	return abs(p[0] - r) < 40 && abs(p[1] - g) < 40 && abs(p[2] - b) < 40;
}

static void run(enum ffdvb_output_kind kind, const char *name, const char *what, int want_w,
		int want_h)
{
	struct ffdvb_output_config cfg = { .kind = kind };
	struct ffdvb_output *o = ffdvb_output_new(&cfg);
	if (!o && kind == FFDVB_OUTPUT_WINDOW)
		skip("SDL cannot open a window on Xvfb (no GL driver?)");
	CHECK_LABELLED(name, o != NULL);
	if (!o)
		return;
	test_pin_gl_libraries();
	static uint32_t osd[FFDVB_OSD_WIDTH * FFDVB_OSD_HEIGHT];
	for (int y = 480; y < 528; y++) /* opaque white, OSD lines 480..527 */
		for (int x = 60; x < 660; x++)
			osd[y * FFDVB_OSD_WIDTH + x] = 0xffffffffu;
	ffdvb_output_set_osd(o, osd);
	struct ffdvb_picture_info info = { .pts = 0, .tv = FFDVB_TV_4_3,
					   .display_format = FFDVB_DISPLAY_LETTER_BOX };
	int failed_shows = 0;
	for (int i = 0; i < 100; i++) { /* ends on i = 99: swapped, blue | red */
		AVFrame *f = halves(i & 1);
		failed_shows += !f || ffdvb_output_show(o, f, &info) != 0;
		av_frame_free(&f);
		ffdvb_output_wait_until(o, ffdvb_output_now(o) + 2000000);
	}
	CHECK_LABELLED("100 pictures shown without an error", failed_shows == 0);
	int w = 0, h = 0;
	uint8_t *rgb = capture(what, &w, &h);
	CHECK_LABELLED("xwd captured it", rgb != NULL);
	if (rgb) {
		printf("%s: capture %dx%d\n", name, w, h);
		CHECK_LABELLED("the capture has the expected size", w == want_w && h == want_h);
		if (w == want_w && h == want_h) {
			CHECK_LABELLED("left: blue", near(rgb, w, w / 8, h / 8, 0, 0, 255));
			CHECK_LABELLED("right: red, up to the edge", near(rgb, w, w - 4, h / 8, 255, 0, 0));
			CHECK_LABELLED("bottom right corner: red", near(rgb, w, w - 4, h - 4, 255, 0, 0));
			CHECK_LABELLED("the OSD bar over it: white",
				       near(rgb, w, w / 2, h * 500 / 576, 255, 255, 255));
		}
	}
	free(rgb);
	ffdvb_output_free(o);
}

int main(void)
{
	start_xvfb();
	atexit(stop_xvfb);
	run(FFDVB_OUTPUT_WINDOW, "window", "-name ffdvb", 720, 576);
	run(FFDVB_OUTPUT_FULLSCREEN, "fullscreen covers the screen", "-root", SCREEN_W, SCREEN_H);
	return finish("test_output_x11");
}
