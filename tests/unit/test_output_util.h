/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers of the output tests (tests/unit/test_output_*.c): synthetic frames, the BT.601
 * YUV->RGB reference, and PNG files decoded back with libavcodec's PNG decoder. */
#ifndef FFDVB_TEST_OUTPUT_UTIL_H
#define FFDVB_TEST_OUTPUT_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>

#include "ffdvb/output.h"

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
#include <link.h>

/* Sanitizer builds: Mesa's EGL and GL drivers, which SDL loads and unloads again, keep memory
 * referenced from their globals. Once they are unloaded LeakSanitizer reports it from an
 * "<unknown module>" that no suppression can name, so they are pinned (RTLD_NOLOAD |
 * RTLD_NODELETE on what is loaded): then nothing is reported. */
static inline int test_pin_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size, (void)arg;
	const char *n = info->dlpi_name;
	if (n && (strstr(n, "_dri.so") || strstr(n, "libEGL_mesa") || strstr(n, "libGLX_mesa")))
		dlopen(n, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
	return 0;
}
#endif

/* call while an SDL output with GL is open */
static inline void test_pin_gl_libraries(void)
{
#if defined(__SANITIZE_ADDRESS__)
	dl_iterate_phdr(test_pin_one, NULL);
#endif
}

#define MS 1000000ull /* ns */

static inline struct ffdvb_output *headless(int virtual_clock, int record, int w, int h)
{
	struct ffdvb_output_config cfg = {
		.kind = FFDVB_OUTPUT_NONE, .width = w, .height = h,
		.virtual_clock = virtual_clock, .record = record, .audio = 1,
	};
	struct ffdvb_output *o = ffdvb_output_new(&cfg);
	if (!o) {
		perror("ffdvb_output_new");
		exit(1);
	}
	return o;
}

/* a refcounted frame with padded lines (align 64), contents zero */
static inline AVFrame *new_frame(enum AVPixelFormat fmt, int w, int h)
{
	AVFrame *f = av_frame_alloc();
	if (!f)
		exit(1);
	f->format = fmt;
	f->width = w;
	f->height = h;
	if (av_frame_get_buffer(f, 64) < 0) {
		fprintf(stderr, "av_frame_get_buffer %dx%d fmt %d failed\n", w, h, fmt);
		exit(1);
	}
	for (int i = 0; i < 4 && f->buf[i]; i++)
		memset(f->buf[i]->data, 0, f->buf[i]->size);
	return f;
}

/* fills the rectangle [x0, x1) x [y0, y1) of a yuv420p frame (luma coordinates, even) */
static inline void fill_yuv420(AVFrame *f, int x0, int y0, int x1, int y1, int Y, int U, int V)
{
	for (int y = y0; y < y1; y++)
		memset(f->data[0] + (ptrdiff_t)y * f->linesize[0] + x0, Y, x1 - x0);
	for (int y = y0 / 2; y < (y1 + 1) / 2; y++) {
		memset(f->data[1] + (ptrdiff_t)y * f->linesize[1] + x0 / 2, U, (x1 + 1) / 2 - x0 / 2);
		memset(f->data[2] + (ptrdiff_t)y * f->linesize[2] + x0 / 2, V, (x1 + 1) / 2 - x0 / 2);
	}
}

static inline uint8_t clamp8(double v)
{
	return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)(v + 0.5);
}

/* ITU-R BT.601, limited range (16..235 / 16..240), as the reference for decoded SD video */
static inline void yuv601_to_rgb(int Y, int U, int V, uint8_t rgb[3])
{
	double y = 255.0 / 219 * (Y - 16), u = U - 128, v = V - 128;
	rgb[0] = clamp8(y + 255.0 / 112 * 0.701 * v);
	rgb[1] = clamp8(y - 255.0 / 112 * 0.886 * 0.114 / 0.587 * u -
			255.0 / 112 * 0.701 * 0.299 / 0.587 * v);
	rgb[2] = clamp8(y + 255.0 / 112 * 0.886 * u);
}

/* the OSD blend, written from its definition: out = v*(1-a/255) + o*a/255, nearest */
static inline int ref_blend(int v, int o, int a)
{
	double x = v * (1 - a / 255.0) + o * a / 255.0;
	return (int)(x + 0.5);
}

struct rgb_image {
	int w, h;
	uint8_t *px; /* packed RGB24 */
};

static inline const uint8_t *px_at(const struct rgb_image *im, int x, int y)
{
	return im->px + ((size_t)y * im->w + x) * 3;
}

/* decodes a PNG file into a packed RGB24 image; 0 or -errno */
static inline int read_png(const char *path, struct rgb_image *im)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	AVPacket *pkt = av_packet_alloc();
	int ret = av_new_packet(pkt, (int)size);
	if (ret >= 0 && fread(pkt->data, 1, size, f) != (size_t)size)
		ret = -EIO;
	fclose(f);
	const AVCodec *codec = avcodec_find_decoder(AV_CODEC_ID_PNG);
	AVCodecContext *ctx = avcodec_alloc_context3(codec);
	AVFrame *frame = av_frame_alloc();
	if (ret >= 0)
		ret = avcodec_open2(ctx, codec, NULL);
	if (ret >= 0)
		ret = avcodec_send_packet(ctx, pkt);
	if (ret >= 0)
		ret = avcodec_receive_frame(ctx, frame);
	if (ret >= 0 && frame->format != AV_PIX_FMT_RGB24)
		ret = -EPROTO;
	if (ret >= 0) {
		im->w = frame->width;
		im->h = frame->height;
		im->px = malloc((size_t)im->w * im->h * 3);
		for (int y = 0; y < im->h; y++)
			memcpy(im->px + (size_t)y * im->w * 3,
			       frame->data[0] + (ptrdiff_t)y * frame->linesize[0], (size_t)im->w * 3);
	}
	av_frame_free(&frame);
	avcodec_free_context(&ctx);
	av_packet_free(&pkt);
	return ret < 0 ? ret : 0;
}

/* a screenshot of o, decoded; exits on failure */
static inline struct rgb_image screenshot(struct ffdvb_output *o, const char *name)
{
	char path[256];
	snprintf(path, sizeof(path), "%s.png", name);
	struct rgb_image im = { 0 };
	int ret = ffdvb_output_screenshot(o, path);
	if (!ret)
		ret = read_png(path, &im);
	if (ret) {
		fprintf(stderr, "screenshot %s: %s\n", path, strerror(-ret));
		exit(1);
	}
	unlink(path);
	return im;
}

#endif
