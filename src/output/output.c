/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The output's generic layer: configuration and backend choice, the last picture and the OSD
 * plane (shared with screenshots from any thread), the record, and dispatch to the backend. */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffdvb/log.h"
#include "output_internal.h"

#define DEFAULT_WIDTH 720
#define DEFAULT_HEIGHT 576
#define MAX_SIDE 8192
#define OSD_BYTES ((size_t)FFDVB_OSD_WIDTH * FFDVB_OSD_HEIGHT * sizeof(uint32_t))

static const struct ffdvb_picture_info default_info = {
	.pts = -1, .tv = FFDVB_TV_4_3, .display_format = FFDVB_DISPLAY_LETTER_BOX,
};

static int have_kms_device(void)
{
	glob_t g;
	int found = glob("/dev/dri/card*", 0, NULL, &g) == 0 && g.gl_pathc > 0;
	globfree(&g);
	return found;
}

static const char *const kind_names[FFDVB_OUTPUT_KIND_COUNT] = {
	[FFDVB_OUTPUT_NONE] = "none", [FFDVB_OUTPUT_WINDOW] = "window",
	[FFDVB_OUTPUT_FULLSCREEN] = "fullscreen", [FFDVB_OUTPUT_KMSDRM] = "kmsdrm",
	[FFDVB_OUTPUT_AUTO] = "auto", [FFDVB_OUTPUT_DRM] = "drm",
};

const char *ffdvb_output_kind_name(enum ffdvb_output_kind kind)
{
	return (unsigned)kind < FFDVB_OUTPUT_KIND_COUNT ? kind_names[kind] : "?";
}

int ffdvb_output_kind_parse(const char *name)
{
	for (int k = 0; k < FFDVB_OUTPUT_KIND_COUNT; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

/* AUTO: a window where a display server runs; else the console: SDL's KMSDRM where GL runs on
 * a GPU, KMS dumb buffers where it would run on the CPU (a software renderer costs far more
 * than one scale) or not at all; else none */
static int open_auto(struct ffdvb_output *o)
{
	const char *why = "no display ($DISPLAY, $WAYLAND_DISPLAY) and no /dev/dri/card*";
	if (getenv("DISPLAY") || getenv("WAYLAND_DISPLAY")) {
		if (!sdl_open(o, FFDVB_OUTPUT_WINDOW, 0))
			return 0;
		why = "no SDL window";
	} else if (have_kms_device()) {
		if (!sdl_open(o, FFDVB_OUTPUT_KMSDRM, 1) || !drm_open(o))
			return 0;
		why = "no KMS display";
	}
	ffdvb_log(FFDVB_LOG_NOTICE, "output: %s: headless output (none)", why);
	return headless_open(o);
}

static int check_config(const struct ffdvb_output_config *cfg)
{
	if (!cfg || (int)cfg->kind < FFDVB_OUTPUT_NONE || (int)cfg->kind >= FFDVB_OUTPUT_KIND_COUNT)
		return -EINVAL;
	if (cfg->width < 0 || cfg->height < 0 || cfg->width > MAX_SIDE || cfg->height > MAX_SIDE ||
	    (cfg->width == 0) != (cfg->height == 0))
		return -EINVAL;
	return 0;
}

struct ffdvb_output *ffdvb_output_new(const struct ffdvb_output_config *cfg)
{
	int ret = check_config(cfg);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	struct ffdvb_output *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->cfg = *cfg;
	o->info = default_info;
	o->audio_link = 1;
	o->out_w = cfg->width ? cfg->width : DEFAULT_WIDTH;
	o->out_h = cfg->height ? cfg->height : DEFAULT_HEIGHT;
	ret = -pthread_mutex_init(&o->lock, NULL);
	if (ret)
		goto free_o;
	ret = record_init(&o->rec);
	if (ret)
		goto destroy_lock;
	switch (cfg->kind) {
	case FFDVB_OUTPUT_NONE:
		ret = headless_open(o);
		break;
	case FFDVB_OUTPUT_AUTO:
		ret = open_auto(o);
		break;
	case FFDVB_OUTPUT_DRM:
		ret = drm_open(o);
		break;
	default:
		ret = sdl_open(o, cfg->kind, 0);
		break;
	}
	if (ret)
		goto release_record;
	return o;

release_record:
	record_release(&o->rec);
destroy_lock:
	pthread_mutex_destroy(&o->lock);
free_o:
	free(o);
	errno = -ret;
	return NULL;
}

void ffdvb_output_free(struct ffdvb_output *o)
{
	if (!o)
		return;
	if (o->backend)
		o->backend->destroy(o);
	av_frame_free(&o->frame);
	free(o->osd);
	free(o->osd_shown);
	record_release(&o->rec);
	pthread_mutex_destroy(&o->lock);
	free(o);
}

const char *ffdvb_output_name(const struct ffdvb_output *o)
{
	return o ? o->backend->name : "none";
}

uint64_t ffdvb_output_now(struct ffdvb_output *o)
{
	return o->backend->now(o);
}

void ffdvb_output_wait_until(struct ffdvb_output *o, uint64_t t)
{
	o->backend->wait_until(o, t);
}

/* ---- pictures ----------------------------------------------------------------------------- */

static int check_info(const struct ffdvb_picture_info *info)
{
	if (info->tv != FFDVB_TV_4_3 && info->tv != FFDVB_TV_16_9)
		return -EINVAL;
	if ((int)info->display_format < FFDVB_DISPLAY_PAN_SCAN ||
	    (int)info->display_format > FFDVB_DISPLAY_CENTER_CUT_OUT)
		return -EINVAL;
	if (info->dar_num < 0 || info->dar_den < 0 || (info->dar_num > 0) != (info->dar_den > 0))
		return -EINVAL;
	return 0;
}

/* the backend shows o->frame with o->osd_shown, which becomes the current OSD now: screenshots
 * show what is on screen, a later ffdvb_output_set_osd() only at the next present */
static int present(struct ffdvb_output *o)
{
	int ret = 0;
	pthread_mutex_lock(&o->lock);
	if (o->osd_shown_gen != o->osd_gen) {
		if (o->osd && !o->osd_shown)
			o->osd_shown = malloc(OSD_BYTES);
		if (o->osd && o->osd_shown) {
			memcpy(o->osd_shown, o->osd, OSD_BYTES);
		} else if (o->osd) {
			ret = -ENOMEM;
		} else {
			free(o->osd_shown);
			o->osd_shown = NULL;
		}
		if (!ret)
			o->osd_shown_gen = o->osd_gen;
	}
	pthread_mutex_unlock(&o->lock);
	int shown = o->backend->present(o);
	return ret ? ret : shown;
}

int ffdvb_output_show(struct ffdvb_output *o, const AVFrame *frame,
		      const struct ffdvb_picture_info *info)
{
	if (!o)
		return -EINVAL;
	if (!info)
		info = &default_info;
	int ret = check_info(info);
	if (!ret && frame)
		ret = compose_check_frame(frame);
	if (ret)
		return ret;
	AVFrame *ref = NULL;
	if (frame) {
		ref = av_frame_clone(frame); /* a reference, not a copy, for refcounted frames */
		if (!ref)
			return -ENOMEM;
	}
	pthread_mutex_lock(&o->lock);
	AVFrame *old = o->frame;
	o->frame = ref;
	o->info = *info;
	pthread_mutex_unlock(&o->lock);
	av_frame_free(&old);
	o->frame_gen++;

	if (o->cfg.record) {
		ret = record_picture(&o->rec, o->backend->now(o), frame, info->pts, info->blank);
		if (ret)
			return ret;
	}
	return present(o);
}

void ffdvb_output_latency(struct ffdvb_output *o, struct ffdvb_output_latency *l)
{
	*l = (struct ffdvb_output_latency){ 0 };
	if (!o)
		return;
	if (o->backend->audio_device_ns)
		l->audio_ns = o->backend->audio_device_ns(o);
	if (o->backend->video_latency_ns)
		l->video_ns = o->backend->video_latency_ns(o);
}

int ffdvb_output_refresh(struct ffdvb_output *o)
{
	return o ? present(o) : -EINVAL;
}

void ffdvb_output_set_osd(struct ffdvb_output *o, const uint32_t *argb)
{
	if (!o)
		return;
	pthread_mutex_lock(&o->lock);
	if (argb) {
		if (!o->osd)
			o->osd = malloc(OSD_BYTES);
		if (o->osd)
			memcpy(o->osd, argb, OSD_BYTES);
		else
			ffdvb_log(FFDVB_LOG_ERR, "output: out of memory for the OSD plane");
	} else {
		free(o->osd);
		o->osd = NULL;
	}
	o->osd_gen++;
	pthread_mutex_unlock(&o->lock);
	if (o->cfg.osd_set)
		o->cfg.osd_set(o->cfg.osd_set_ctx);
}

int ffdvb_output_osd_changed(struct ffdvb_output *o)
{
	if (!o)
		return 0;
	pthread_mutex_lock(&o->lock);
	int changed = o->osd_gen != o->osd_shown_gen;
	pthread_mutex_unlock(&o->lock);
	return changed;
}

/* the picture on screen with its OSD, composed at the output's size as RGB24 (malloc'ed) */
static int compose_screen(struct ffdvb_output *o, uint8_t **rgb, int *w_out, int *h_out)
{
	int ret = 0;
	AVFrame *frame = NULL;
	uint32_t *osd = NULL;
	struct ffdvb_picture_info info;
	/* take what is on screen under the lock, compose without it */
	pthread_mutex_lock(&o->lock);
	if (o->frame && !(frame = av_frame_clone(o->frame)))
		ret = -ENOMEM;
	if (!ret && o->osd_shown && (osd = malloc(OSD_BYTES)))
		memcpy(osd, o->osd_shown, OSD_BYTES);
	else if (!ret && o->osd_shown)
		ret = -ENOMEM;
	info = o->info;
	int w = o->out_w, h = o->out_h;
	pthread_mutex_unlock(&o->lock);

	*rgb = NULL;
	if (!ret && !(*rgb = malloc((size_t)w * h * 3)))
		ret = -ENOMEM;
	if (!ret)
		ret = compose_image(frame, &info, osd, w, h, AV_PIX_FMT_RGB24, *rgb, w * 3);
	if (ret) {
		free(*rgb);
		*rgb = NULL;
	}
	*w_out = w;
	*h_out = h;
	free(osd);
	av_frame_free(&frame);
	return ret;
}

int ffdvb_output_screenshot(struct ffdvb_output *o, const char *path)
{
	if (!o || !path)
		return -EINVAL;
	uint8_t *rgb;
	int w, h, ret = compose_screen(o, &rgb, &w, &h);
	if (!ret)
		ret = png_write_rgb24(path, rgb, w * 3, w, h);
	free(rgb);
	return ret;
}

int ffdvb_output_screenshot_png(struct ffdvb_output *o, uint8_t **png, size_t *len)
{
	if (!o || !png || !len)
		return -EINVAL;
	uint8_t *rgb;
	int w, h, ret = compose_screen(o, &rgb, &w, &h);
	if (!ret)
		ret = png_encode_rgb24(rgb, w * 3, w, h, png, len);
	free(rgb);
	return ret;
}

/* ---- sound -------------------------------------------------------------------------------- */

int ffdvb_output_audio_queue(struct ffdvb_output *o, const int16_t *samples, size_t nb,
			     int64_t pts)
{
	if (!o || (!samples && nb))
		return -EINVAL;
	if (!nb)
		return 0;
	uint64_t ahead = o->backend->audio_queued(o);
	uint64_t now = o->backend->now(o);
	int ret = o->backend->audio_queue(o, samples, nb);
	if (ret || !o->cfg.record || o->audio_link != 1) /* the record holds 48 kHz stereo */
		return ret;
	return record_sound(&o->rec, now + vaudio_ns(ahead), !o->audio_paused, ahead, pts,
			    samples, nb);
}

int ffdvb_output_audio_link(struct ffdvb_output *o, unsigned int link)
{
	if (!o || link < 1 || link > FFDVB_AUDIO_LINK_MAX)
		return -EINVAL;
	if (link == o->audio_link)
		return 0;
	int ret = o->backend->audio_link ? o->backend->audio_link(o, link) : 0;

	if (ret)
		return ret;
	if (!o->backend->audio_link)
		o->backend->audio_clear(o);
	o->audio_link = link;
	if (o->cfg.record)
		record_sound_clear(&o->rec);
	return 0;
}

size_t ffdvb_output_audio_queued(struct ffdvb_output *o)
{
	return o ? (size_t)o->backend->audio_queued(o) : 0;
}

void ffdvb_output_audio_pause(struct ffdvb_output *o, int pause)
{
	if (!o || !!pause == o->audio_paused)
		return;
	o->audio_paused = !!pause;
	o->backend->audio_pause(o, o->audio_paused);
	if (!pause && o->cfg.record)
		record_sound_resume(&o->rec, o->backend->now(o));
}

void ffdvb_output_audio_clear(struct ffdvb_output *o)
{
	if (!o)
		return;
	o->backend->audio_clear(o);
	if (o->cfg.record)
		record_sound_clear(&o->rec);
}
