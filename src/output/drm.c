// SPDX-License-Identifier: GPL-2.0-or-later
/* The KMS backend without GL (--output drm): the picture scaled once by libswscale into one of
 * two dumb buffers (XRGB8888) of the connector's mode, the OSD blended over it, and a page flip
 * on the next vblank. It needs nothing but the kernel's DRM driver, so it shows pictures where
 * Mesa has no driver for the device (bochs, simpledrm, most set-top boxes' display engines) and
 * costs one scale and one copy per picture instead of a software GL renderer. Sound is SDL's
 * (sdl_audio.c), the clock the monotonic clock. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <libswscale/swscale.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "ffdvb/log.h"
#include "kms_mode.h"
#include "sdl_internal.h"

/* longest wait for a page flip to complete before the picture counts as shown anyway */
#define FLIP_TIMEOUT_MS 100

struct drm_buf {
	uint32_t handle, fb, pitch;
	uint64_t size;
	uint8_t *map;
};

struct drm_out {
	struct sdl_audio audio; /* first: sdl_audio.c finds it at o->priv */
	int fd;
	uint32_t conn, crtc;
	drmModeModeInfo mode;
	drmModeCrtc *saved;     /* the console's CRTC, put back at the end */
	struct drm_buf buf[2];
	int back;               /* the buffer drawn next */
	int flips;              /* 1: page flips work, 0: set the CRTC for each picture */
	int flip_pending;
	int monotonic_stamps;   /* the kernel stamps flips on CLOCK_MONOTONIC (DRM_CAP) */
	uint64_t flip_asked_ns; /* when the picture now flipping was handed over */
	uint64_t latency_ns;    /* from handed over to the flip's vblank, smoothed */

	uint8_t *scratch;       /* the next screen, composed in memory (reads from VRAM are slow) */
	int scratch_stride;
	struct SwsContext *sws;
	uint32_t *osd;          /* the OSD scaled to the mode, and which rows have any alpha */
	uint8_t *osd_rows;
	uint64_t osd_gen;
	int osd_on;
};

static uint64_t drm_now(struct ffdvb_output *o)
{
	(void)o;
	return output_monotonic_ns();
}

static void drm_wait_until(struct ffdvb_output *o, uint64_t t)
{
	(void)o;
	output_sleep_until(t, 0);
}

static void note_latency(struct drm_out *d, uint64_t took)
{
	d->latency_ns = d->latency_ns ? d->latency_ns + took / 8 - d->latency_ns / 8 : took;
}

/* the flip's vblank: the picture reached the screen then */
static void flip_done(int fd, unsigned int seq, unsigned int sec, unsigned int usec, void *data)
{
	struct drm_out *d = data;
	uint64_t at = d->monotonic_stamps ? sec * NS_PER_S + usec * 1000ull : output_monotonic_ns();

	(void)fd, (void)seq;
	note_latency(d, at > d->flip_asked_ns ? at - d->flip_asked_ns : 0);
	d->flip_pending = 0;
}

static void wait_flip(struct drm_out *d)
{
	drmEventContext ev = { .version = 2, .page_flip_handler = flip_done };
	struct pollfd p = { .fd = d->fd, .events = POLLIN };
	while (d->flip_pending && poll(&p, 1, FLIP_TIMEOUT_MS) > 0)
		drmHandleEvent(d->fd, &ev);
	d->flip_pending = 0;
}

/* the OSD plane at the mode's size, premultiplied nowhere: ARGB words as the OSD has them */
static int scale_osd(struct ffdvb_output *o, struct drm_out *d)
{
	int w = d->mode.hdisplay, h = d->mode.vdisplay, ret = 0;
	pthread_mutex_lock(&o->lock);
	if (d->osd_gen != o->osd_shown_gen) {
		d->osd_on = o->osd_shown != NULL;
		if (o->osd_shown) {
			struct SwsContext *s = sws_getContext(FFDVB_OSD_WIDTH, FFDVB_OSD_HEIGHT,
							      AV_PIX_FMT_RGB32, w, h, AV_PIX_FMT_RGB32,
							      SWS_BILINEAR, NULL, NULL, NULL);
			const uint8_t *src[4] = { (const uint8_t *)o->osd_shown };
			const int src_stride[4] = { FFDVB_OSD_WIDTH * 4 };
			uint8_t *dst[4] = { (uint8_t *)d->osd };
			const int dst_stride[4] = { w * 4 };
			if (s && sws_scale(s, src, src_stride, 0, FFDVB_OSD_HEIGHT, dst, dst_stride) == h) {
				for (int y = 0; y < h; y++) {
					d->osd_rows[y] = 0;
					for (int x = 0; x < w && !d->osd_rows[y]; x++)
						d->osd_rows[y] = d->osd[(size_t)y * w + x] >> 24 != 0;
				}
			} else {
				ret = -ENOMEM;
				d->osd_on = 0;
			}
			sws_freeContext(s);
		}
		d->osd_gen = o->osd_shown_gen;
	}
	pthread_mutex_unlock(&o->lock);
	return ret;
}

/* XRGB8888 in memory is B, G, R, X: the byte order of the OSD's host-order 0xAARRGGBB words */
static void blend_osd(struct drm_out *d)
{
	int w = d->mode.hdisplay, h = d->mode.vdisplay;
	for (int y = 0; y < h; y++) {
		if (!d->osd_rows[y])
			continue;
		uint8_t *px = d->scratch + (size_t)y * d->scratch_stride;
		const uint8_t *osd = (const uint8_t *)(d->osd + (size_t)y * w);
		for (int x = 0; x < w; x++, px += 4, osd += 4) {
			unsigned a = osd[3];
			if (!a)
				continue;
			px[0] = compose_blend(px[0], osd[0], a);
			px[1] = compose_blend(px[1], osd[1], a);
			px[2] = compose_blend(px[2], osd[2], a);
		}
	}
}

/* the picture into the scratch screen at its place, black around it */
static int draw_picture(struct ffdvb_output *o, struct drm_out *d)
{
	int w = d->mode.hdisplay, h = d->mode.vdisplay;
	memset(d->scratch, 0, (size_t)d->scratch_stride * h);
	struct compose_geometry g;
	if (!o->frame || o->info.blank || compose_geometry(o->frame, &o->info, w, h, &g))
		return 0;
	const AVFrame *f = o->frame;
	/* only the full picture needs no cropping: the usual case; otherwise crop exactly */
	AVFrame *crop = NULL;
	if (g.src_x || g.src_y || g.src_w != f->width || g.src_h != f->height) {
		crop = av_frame_clone(f);
		if (!crop)
			return -ENOMEM;
		crop->crop_left = g.src_x;
		crop->crop_right = f->width - g.src_x - g.src_w;
		crop->crop_top = g.src_y;
		crop->crop_bottom = f->height - g.src_y - g.src_h;
		if (av_frame_apply_cropping(crop, AV_FRAME_CROP_UNALIGNED) < 0) {
			av_frame_free(&crop);
			return -EINVAL;
		}
		f = crop;
	}
	const uint8_t *const *src = (const uint8_t *const *)f->data;
	d->sws = sws_getCachedContext(d->sws, f->width, f->height, f->format, g.dst_w, g.dst_h,
				      AV_PIX_FMT_BGR0, SWS_BILINEAR, NULL, NULL, NULL);
	int ret = d->sws ? 0 : -EINVAL;
	if (!ret) {
		compose_set_colorspace(d->sws, f);
		/* the scratch rows have room behind them: swscale's SIMD may write past a row */
		uint8_t *dst[4] = { d->scratch + (ptrdiff_t)g.dst_y * d->scratch_stride + g.dst_x * 4 };
		const int dst_stride[4] = { d->scratch_stride };
		if (sws_scale(d->sws, src, f->linesize, 0, f->height, dst, dst_stride) != g.dst_h)
			ret = -EINVAL;
	}
	av_frame_free(&crop);
	if (g.dst_x) { /* pillarbox: what swscale wrote past the picture's right edge */
		for (int y = g.dst_y; y < g.dst_y + g.dst_h; y++)
			memset(d->scratch + (size_t)y * d->scratch_stride + (g.dst_x + g.dst_w) * 4, 0,
			       (size_t)(w - g.dst_x - g.dst_w) * 4);
	}
	return ret;
}

static int drm_present(struct ffdvb_output *o)
{
	struct drm_out *d = o->priv;
	uint64_t asked = output_monotonic_ns();
	int ret = draw_picture(o, d);
	int osd_ret = scale_osd(o, d);
	if (d->osd_on)
		blend_osd(d);
	struct drm_buf *b = &d->buf[d->back];
	wait_flip(d); /* the buffer drawn now may be the one on screen until the flip is done */
	for (int y = 0; y < d->mode.vdisplay; y++)
		memcpy(b->map + (size_t)y * b->pitch, d->scratch + (size_t)y * d->scratch_stride,
		       (size_t)d->mode.hdisplay * 4);
	if (d->flips) {
		d->flip_pending = 1;
		d->flip_asked_ns = asked;
		if (drmModePageFlip(d->fd, d->crtc, b->fb, DRM_MODE_PAGE_FLIP_EVENT, d)) {
			d->flip_pending = 0;
			d->flips = 0; /* the driver cannot: set the CRTC from now on */
		}
	}
	if (!d->flips && drmModeSetCrtc(d->fd, d->crtc, b->fb, 0, 0, &d->conn, 1, &d->mode))
		ret = ret ? ret : -errno;
	else if (!d->flips) /* the picture is up when the call returns */
		note_latency(d, output_monotonic_ns() - asked);
	d->back ^= 1;
	return ret ? ret : osd_ret;
}

static void free_buf(struct drm_out *d, struct drm_buf *b)
{
	if (b->map)
		munmap(b->map, b->size);
	if (b->fb)
		drmModeRmFB(d->fd, b->fb);
	if (b->handle) {
		struct drm_mode_destroy_dumb destroy = { .handle = b->handle };
		drmIoctl(d->fd, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
	}
	memset(b, 0, sizeof(*b));
}

static int alloc_buf(struct drm_out *d, struct drm_buf *b)
{
	struct drm_mode_create_dumb create = {
		.width = d->mode.hdisplay, .height = d->mode.vdisplay, .bpp = 32,
	};
	if (drmIoctl(d->fd, DRM_IOCTL_MODE_CREATE_DUMB, &create))
		return -errno;
	b->handle = create.handle;
	b->pitch = create.pitch;
	b->size = create.size;
	uint32_t handles[4] = { b->handle }, pitches[4] = { b->pitch }, offsets[4] = { 0 };
	if (drmModeAddFB2(d->fd, create.width, create.height, DRM_FORMAT_XRGB8888, handles,
			  pitches, offsets, &b->fb, 0))
		return -errno;
	struct drm_mode_map_dumb map = { .handle = b->handle };
	if (drmIoctl(d->fd, DRM_IOCTL_MODE_MAP_DUMB, &map))
		return -errno;
	b->map = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, (off_t)map.offset);
	if (b->map == MAP_FAILED) {
		b->map = NULL;
		return -errno;
	}
	memset(b->map, 0, b->size);
	return 0;
}

static void drm_destroy(struct ffdvb_output *o)
{
	struct drm_out *d = o->priv;
	if (!d)
		return;
	sdl_audio_close(&d->audio);
	if (d->fd >= 0) {
		wait_flip(d);
		if (d->saved) /* the console back as it was */
			drmModeSetCrtc(d->fd, d->saved->crtc_id, d->saved->buffer_id, d->saved->x,
				       d->saved->y, &d->conn, 1, &d->saved->mode);
		for (int i = 0; i < 2; i++)
			free_buf(d, &d->buf[i]);
		close(d->fd);
	}
	drmModeFreeCrtc(d->saved);
	sws_freeContext(d->sws);
	free(d->scratch);
	free(d->osd);
	free(d->osd_rows);
	free(d);
	o->priv = NULL;
}

static uint64_t drm_latency(struct ffdvb_output *o)
{
	return ((struct drm_out *)o->priv)->latency_ns;
}

static const struct output_backend drm_backend = {
	.name = "drm",
	.destroy = drm_destroy,
	.now = drm_now,
	.wait_until = drm_wait_until,
	.present = drm_present,
	.audio_queue = sdl_audio_queue,
	.audio_queued = sdl_audio_queued,
	.audio_pause = sdl_audio_pause,
	.audio_clear = sdl_audio_clear,
	.audio_link = sdl_audio_link,
	.audio_device_ns = sdl_audio_device_ns,
	.video_latency_ns = drm_latency,
};

static int pick_mode(const drmModeConnector *c, int want_w, int want_h, int want_hz,
		     drmModeModeInfo *m)
{
	int i = kms_pick_mode(c->modes, c->count_modes, want_w, want_h, want_hz);

	if (i < 0)
		return -ENODEV;
	*m = c->modes[i];
	return 0;
}

/* a connected connector of the card with a CRTC that can drive it */
static int pick_output(struct drm_out *d, int want_w, int want_h, int want_hz)
{
	drmModeRes *res = drmModeGetResources(d->fd);
	if (!res)
		return -ENODEV;
	int ret = -ENODEV;
	for (int i = 0; i < res->count_connectors && ret; i++) {
		drmModeConnector *c = drmModeGetConnector(d->fd, res->connectors[i]);
		if (c && c->connection == DRM_MODE_CONNECTED && !pick_mode(c, want_w, want_h, want_hz, &d->mode)) {
			for (int e = 0; e < c->count_encoders && ret; e++) {
				drmModeEncoder *enc = drmModeGetEncoder(d->fd, c->encoders[e]);
				for (int k = 0; enc && k < res->count_crtcs && ret; k++) {
					if (!(enc->possible_crtcs & (1u << k)))
						continue;
					d->crtc = res->crtcs[k];
					d->conn = c->connector_id;
					ret = 0;
				}
				drmModeFreeEncoder(enc);
			}
		}
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	return ret;
}

/* the first /dev/dri/card* with a connected display */
static int open_card(struct drm_out *d, int want_w, int want_h, int want_hz)
{
	glob_t g;
	int ret = -ENODEV;
	if (glob("/dev/dri/card*", 0, NULL, &g))
		return ret;
	for (size_t i = 0; i < g.gl_pathc && ret; i++) {
		d->fd = open(g.gl_pathv[i], O_RDWR | O_CLOEXEC);
		if (d->fd < 0)
			continue;
		uint64_t dumb = 0;
		if (!drmGetCap(d->fd, DRM_CAP_DUMB_BUFFER, &dumb) && dumb &&
		    !pick_output(d, want_w, want_h, want_hz))
			ret = 0;
		else
			close(d->fd), d->fd = -1;
	}
	globfree(&g);
	return ret;
}

int drm_open(struct ffdvb_output *o)
{
	struct drm_out *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->fd = -1;
	o->priv = d;
	o->backend = &drm_backend;
	int ret = open_card(d, o->cfg.width, o->cfg.height, o->cfg.refresh);
	if (ret) {
		ffdvb_log(FFDVB_LOG_WARNING, "output: no KMS display (a /dev/dri/card* with a connected "
				"connector and dumb buffers)");
		goto fail;
	}
	int w = d->mode.hdisplay, h = d->mode.vdisplay;
	d->scratch_stride = w * 4;
	/* one spare row: swscale's SIMD may write a little past the last row's end */
	d->scratch = calloc((size_t)h + 1, (size_t)d->scratch_stride);
	d->osd = malloc((size_t)w * h * 4);
	d->osd_rows = calloc((size_t)h, 1);
	if (!d->scratch || !d->osd || !d->osd_rows) {
		ret = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < 2 && !ret; i++)
		ret = alloc_buf(d, &d->buf[i]);
	if (ret) {
		ffdvb_log(FFDVB_LOG_ERR, "output: KMS dumb buffers %dx%d: %s", w, h, strerror(-ret));
		goto fail;
	}
	d->saved = drmModeGetCrtc(d->fd, d->crtc);
	if (drmModeSetCrtc(d->fd, d->crtc, d->buf[0].fb, 0, 0, &d->conn, 1, &d->mode)) {
		ret = -errno;
		ffdvb_log(FFDVB_LOG_ERR, "output: KMS mode %dx%d: %s (another program holds the "
				"display?)", w, h, strerror(-ret));
		goto fail;
	}
	if (o->cfg.refresh && (int)d->mode.vrefresh != o->cfg.refresh)
		ffdvb_log(FFDVB_LOG_NOTICE, "output: KMS mode %dx%d at %u Hz: the display offers no "
				"%d Hz mode at this size (pictures at 25 or 50 a second judder)", w, h,
			  d->mode.vrefresh, o->cfg.refresh);
	else
		ffdvb_log(FFDVB_LOG_INFO, "output: KMS mode %dx%d at %u Hz", w, h, d->mode.vrefresh);
	d->back = 1;
	d->flips = 1;
	uint64_t mono = 0;
	d->monotonic_stamps = !drmGetCap(d->fd, DRM_CAP_TIMESTAMP_MONOTONIC, &mono) && mono;
	pthread_mutex_lock(&o->lock);
	o->out_w = w; /* screenshots at the size on screen */
	o->out_h = h;
	pthread_mutex_unlock(&o->lock);
	ret = sdl_audio_open(o, &d->audio);
	if (!ret)
		return 0;
fail:
	drm_destroy(o);
	o->backend = NULL;
	return ret;
}
