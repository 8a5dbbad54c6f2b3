/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Inside src/output: the output object shared by the generic layer (output.c) and the backends
 * (headless.c, sdl*.c, drm.c), plus the helpers they share (compose.c, png.c, vaudio.c, record.c). */
#ifndef FFDVB_OUTPUT_INTERNAL_H
#define FFDVB_OUTPUT_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>

#include "ffdvb/clock.h"
#include "ffdvb/output.h"

#define NS_PER_S 1000000000ull

/* ---- virtual sound device (vaudio.c): timing of a device that consumes FFDVB_AUDIO_RATE
 * samples per second of the output clock while not paused. Plain value, no lock. ---------- */
struct vaudio {
	uint64_t anchor_t;    /* clock when anchor_left samples were left */
	uint64_t anchor_left; /* samples left at anchor_t */
	int paused;
};

void vaudio_init(struct vaudio *a, uint64_t now);
/* samples queued and not yet heard at now */
uint64_t vaudio_queued(const struct vaudio *a, uint64_t now);
void vaudio_queue(struct vaudio *a, uint64_t now, uint64_t nb);
void vaudio_pause(struct vaudio *a, uint64_t now, int pause);
void vaudio_clear(struct vaudio *a, uint64_t now);
/* ns for nb samples at FFDVB_AUDIO_RATE (rounded down) */
uint64_t vaudio_ns(uint64_t nb);

/* ---- the record (record.c): pictures, sound chunks and samples, own lock (any thread) ---- */
struct record {
	pthread_mutex_t lock;
	struct ffdvb_output_picture_record *pics;
	size_t npics, cap_pics;
	struct ffdvb_output_sound_record *sounds;
	size_t nsounds, cap_sounds;
	size_t first_pending; /* sound records from here on wait for the end of a pause */
	uint64_t *pending_ahead; /* per sound record: samples ahead of it when queued */
	size_t cap_pending;
	int16_t *samples;     /* interleaved stereo */
	size_t nsamples, cap_samples; /* in sample frames (FFDVB_AUDIO_FRAME_BYTES) */
	uint8_t *pack;        /* scratch for the md5 packing */
	size_t pack_size;
	int truncated;        /* a limit below was reached: later entries are not kept */
	size_t max_lines, max_sound_bytes; /* FFDVB_RECORD_*_MAX (smaller in tests) */
};

int record_init(struct record *r);
void record_release(struct record *r);
/* frame NULL = black; returns 0 or -errno */
int record_picture(struct record *r, uint64_t t, const AVFrame *frame, int64_t pts, int blank);
/* t_known 0: the device is paused; t is filled in by record_sound_resume() */
int record_sound(struct record *r, uint64_t t, int t_known, uint64_t ahead, int64_t pts,
		 const int16_t *samples, size_t nb);
void record_sound_resume(struct record *r, uint64_t now);
/* chunks queued during a pause and cleared before it ended are never heard */
void record_sound_clear(struct record *r);
/* md5 of a frame as ffmpeg's framemd5 hashes rawvideo; 0 or -errno */
int record_frame_md5(const AVFrame *frame, uint8_t **scratch, size_t *scratch_size,
		     uint8_t md5[16]);

/* ---- the compositor (compose.c) --------------------------------------------------------- */

/* Where the picture goes on an output raster that represents the whole TV screen: the part
 * of the frame shown (src) and where it lands (dst), both in pixels. */
struct compose_geometry {
	int src_x, src_y, src_w, src_h;
	int dst_x, dst_y, dst_w, dst_h;
};

/* 0, or -EINVAL if the frame cannot be shown (size, pixel format, no data) */
int compose_check_frame(const AVFrame *frame);
/* 0 or -EINVAL (bad info); frame must have passed compose_check_frame() */
int compose_geometry(const AVFrame *frame, const struct ffdvb_picture_info *info, int out_w,
		     int out_h, struct compose_geometry *g);
/* Composes the picture (frame NULL or info->blank: black) and the OSD (NULL: none) into dst,
 * an out_w x out_h image in AV_PIX_FMT_RGB24 or AV_PIX_FMT_RGBA (alpha 255). 0 or -errno. */
int compose_image(const AVFrame *frame, const struct ffdvb_picture_info *info,
		  const uint32_t *osd, int out_w, int out_h, enum AVPixelFormat dst_fmt,
		  uint8_t *dst, int dst_stride);
/* the frame's YUV matrix and range for a libswscale context converting it to RGB: BT.709 for
 * HD or when tagged, full range for JPEG */
struct SwsContext;
void compose_set_colorspace(struct SwsContext *sws, const AVFrame *f);
/* The blend of one channel: video v under OSD o with alpha a (0..255), rounded to nearest. */
static inline uint8_t compose_blend(unsigned v, unsigned o, unsigned a)
{
	return (uint8_t)((v * (255 - a) + o * a + 127) / 255);
}

/* ---- PNG (png.c) ------------------------------------------------------------------------ */

/* atomic_file.c: writes path through a new private file beside it and a rename (no link or
 * FIFO at any name is followed); fn writes the contents to f and returns 0 or -errno. Returns
 * 0 or -errno (nothing left behind on failure). */
typedef int (*output_writer_fn)(FILE *f, const void *ctx);
int output_write_atomic(const char *path, output_writer_fn fn, const void *ctx);

/* Writes an RGB24 image as PNG to path (output_write_atomic). 0 or -errno. */
int png_write_rgb24(const char *path, const uint8_t *rgb, int stride, int w, int h);
/* The same PNG in memory: *png (malloc'ed) of *len bytes. 0 or -errno. */
int png_encode_rgb24(const uint8_t *rgb, int stride, int w, int h, uint8_t **png, size_t *len);

/* ---- backends ---------------------------------------------------------------------------- */

struct output_backend {
	const char *name;
	void (*destroy)(struct ffdvb_output *o);
	uint64_t (*now)(struct ffdvb_output *o);
	void (*wait_until)(struct ffdvb_output *o, uint64_t t);
	/* show o->frame / o->info (already stored) with the current OSD; 0 or -errno */
	int (*present)(struct ffdvb_output *o);
	int (*audio_queue)(struct ffdvb_output *o, const int16_t *samples, size_t nb);
	uint64_t (*audio_queued)(struct ffdvb_output *o);
	void (*audio_pause)(struct ffdvb_output *o, int pause);
	void (*audio_clear)(struct ffdvb_output *o);
	/* optional (NULL: any link; the sound is only timed): see ffdvb_output_audio_link() */
	int (*audio_link)(struct ffdvb_output *o, unsigned int link);
	/* optional (NULL: 0): see ffdvb_output_latency() */
	uint64_t (*audio_device_ns)(struct ffdvb_output *o);
	uint64_t (*video_latency_ns)(struct ffdvb_output *o);
};

struct ffdvb_output {
	struct ffdvb_output_config cfg;
	const struct output_backend *backend;
	void *priv; /* the backend's state */

	/* --- under lock (any thread) --- */
	pthread_mutex_t lock;
	AVFrame *frame;                 /* last picture shown (a reference), NULL = black */
	struct ffdvb_picture_info info; /* and how it was shown */
	uint32_t *osd;                  /* FFDVB_OSD_WIDTH x FFDVB_OSD_HEIGHT, NULL = no OSD */
	uint64_t osd_gen;               /* bumped by every ffdvb_output_set_osd() */
	uint32_t *osd_shown;            /* the OSD of the picture on screen, NULL = none */
	uint64_t osd_shown_gen;         /* osd_gen of osd_shown */
	int out_w, out_h;               /* the output raster (screenshot size) */

	/* --- owner thread only --- */
	uint64_t frame_gen;             /* bumped by every ffdvb_output_show() */
	int audio_paused;
	unsigned int audio_link;        /* ffdvb_output_audio_link() */
	struct record rec;              /* own lock; used when cfg.record */
};

/* the real-time clock, for every backend that is not on a virtual clock (ffdvb/clock.h's) */
static inline uint64_t output_monotonic_ns(void)
{
	return ffdvb_monotonic_ns();
}
/* sleeps until the monotonic clock reaches t (or at most max_ns, 0 = no limit) */
void output_sleep_until(uint64_t t, uint64_t max_ns);

int headless_open(struct ffdvb_output *o);
/* For tests: renders what an SDL output shows (without presenting it) and reads it back as
 * RGB24 (w x h must be the renderer's output size). 0, or -EINVAL if o is not SDL, -EIO. */
int sdl_read_back(struct ffdvb_output *o, uint8_t *rgb, int stride, int w, int h);
/* kind: FFDVB_OUTPUT_WINDOW, _FULLSCREEN or _KMSDRM; 0 or -errno (message on stderr).
 * hardware_gl: refuse (-ENODEV) a renderer that is GL drawn by the CPU (llvmpipe, softpipe) */
int sdl_open(struct ffdvb_output *o, enum ffdvb_output_kind kind, int hardware_gl);
/* KMS without GL (drm.c): dumb buffers on the first card with a display; 0 or -errno */
int drm_open(struct ffdvb_output *o);

#endif
