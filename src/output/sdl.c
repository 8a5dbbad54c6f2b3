/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The SDL2 backend: a window, a fullscreen desktop window, or the console through SDL's KMSDRM
 * driver. The picture goes to the GPU in its own YUV layout where SDL has a texture for it
 * (IYUV, NV12) and is scaled and cropped by the renderer through rectangles from
 * compose_geometry(); the OSD is a second, alpha-blended texture uploaded only when it
 * changed. The clock is the monotonic clock; waiting pumps SDL's events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "ffdvb/log.h"
#include "sdl_internal.h"
#include "sdl_mode.h"

/* longest sleep between two looks at the window's events */
#define EVENT_PUMP_NS (10 * 1000 * 1000ull)

static uint64_t sdl_now(struct ffdvb_output *o)
{
	(void)o;
	return output_monotonic_ns();
}

static int draw(struct ffdvb_output *o, int present);
static int sdl_present(struct ffdvb_output *o);

static void pump_events(struct ffdvb_output *o)
{
	struct sdl_out *s = o->priv;
	SDL_Event e;
	int redraw = 0;
	while (SDL_PollEvent(&e)) {
		if (e.type == SDL_QUIT && !s->quit_noted) {
			/* the daemon serves its clients whatever happens to the window */
			ffdvb_log(FFDVB_LOG_NOTICE, "output: window closed: ignored, ffdvbd keeps running");
			s->quit_noted = 1;
		} else if (e.type == SDL_WINDOWEVENT &&
			   (e.window.event == SDL_WINDOWEVENT_SIZE_CHANGED ||
			    e.window.event == SDL_WINDOWEVENT_EXPOSED)) {
			redraw = 1;
		}
	}
	if (redraw)
		draw(o, 1);
}

static void sdl_wait_until(struct ffdvb_output *o, uint64_t t)
{
	for (;;) {
		pump_events(o);
		if (output_monotonic_ns() >= t)
			return;
		output_sleep_until(t, EVENT_PUMP_NS);
	}
}

/* the YUV matrix and range SDL must use for a frame uploaded as it is */
static SDL_YUV_CONVERSION_MODE yuv_mode(const AVFrame *f)
{
	if (f->color_range == AVCOL_RANGE_JPEG || f->format == AV_PIX_FMT_YUVJ420P)
		return SDL_YUV_CONVERSION_JPEG;
	if (f->colorspace == AVCOL_SPC_BT709 ||
	    (f->colorspace == AVCOL_SPC_UNSPECIFIED && f->height > 576))
		return SDL_YUV_CONVERSION_BT709;
	return SDL_YUV_CONVERSION_BT601;
}

/* (re)creates the picture texture when its size, layout or YUV matrix changes */
static int picture_texture(struct sdl_out *s, int w, int h, Uint32 format,
			   SDL_YUV_CONVERSION_MODE mode)
{
	if (s->pic && s->pic_w == w && s->pic_h == h && s->pic_format == format &&
	    s->pic_mode == mode)
		return 0;
	if (s->pic)
		SDL_DestroyTexture(s->pic);
	SDL_SetYUVConversionMode(mode); /* read by SDL when it creates the texture */
	s->pic = SDL_CreateTexture(s->ren, format, SDL_TEXTUREACCESS_STREAMING, w, h);
	if (!s->pic) {
		ffdvb_log(FFDVB_LOG_ERR, "output: SDL_CreateTexture %dx%d: %s", w, h,
			SDL_GetError());
		return -ENOMEM;
	}
	s->pic_w = w;
	s->pic_h = h;
	s->pic_format = format;
	s->pic_mode = mode;
	return 0;
}

/* layouts without an SDL texture: converted to yuv420p (limited range) on the CPU */
static int upload_converted(struct sdl_out *s, const AVFrame *f)
{
	int w = f->width, h = f->height;
	if (!s->conv[0] || s->conv_w != w || s->conv_h != h) {
		av_freep(&s->conv[0]);
		if (av_image_alloc(s->conv, s->conv_stride, w, h, AV_PIX_FMT_YUV420P, 64) < 0)
			return -ENOMEM;
		s->conv_w = w;
		s->conv_h = h;
	}
	s->sws = sws_getCachedContext(s->sws, w, h, f->format, w, h, AV_PIX_FMT_YUV420P,
				      SWS_BILINEAR, NULL, NULL, NULL);
	if (!s->sws)
		return -EINVAL;
	SDL_YUV_CONVERSION_MODE mode = yuv_mode(f);
	if (mode == SDL_YUV_CONVERSION_JPEG)
		mode = SDL_YUV_CONVERSION_BT601;
	int *inv, src_range, *table, dst_range, bri, con, sat;
	if (sws_getColorspaceDetails(s->sws, &inv, &src_range, &table, &dst_range, &bri, &con,
				     &sat) >= 0) {
		const int *coefs = sws_getCoefficients(mode == SDL_YUV_CONVERSION_BT709 ?
							       SWS_CS_ITU709 : SWS_CS_ITU601);
		if (f->color_range == AVCOL_RANGE_JPEG)
			src_range = 1;
		sws_setColorspaceDetails(s->sws, coefs, src_range, coefs, 0, bri, con, sat);
	}
	sws_scale(s->sws, (const uint8_t *const *)f->data, f->linesize, 0, h, s->conv,
		  s->conv_stride);
	int ret = picture_texture(s, w, h, SDL_PIXELFORMAT_IYUV, mode);
	if (ret)
		return ret;
	return SDL_UpdateYUVTexture(s->pic, NULL, s->conv[0], s->conv_stride[0], s->conv[1],
				    s->conv_stride[1], s->conv[2], s->conv_stride[2]) ? -EIO : 0;
}

static int upload_picture(struct sdl_out *s, const AVFrame *f)
{
	int ret;
	/* SDL takes top-down planes only; bottom-up (negative linesize) frames are converted */
	int top_down = f->linesize[0] > 0 && f->linesize[1] > 0 && f->linesize[2] >= 0;
	if ((f->format == AV_PIX_FMT_YUV420P || f->format == AV_PIX_FMT_YUVJ420P) && top_down &&
	    f->linesize[2] > 0) {
		ret = picture_texture(s, f->width, f->height, SDL_PIXELFORMAT_IYUV, yuv_mode(f));
		if (!ret && SDL_UpdateYUVTexture(s->pic, NULL, f->data[0], f->linesize[0],
						 f->data[1], f->linesize[1], f->data[2],
						 f->linesize[2]))
			ret = -EIO;
	} else if (f->format == AV_PIX_FMT_NV12 && top_down) {
		ret = picture_texture(s, f->width, f->height, SDL_PIXELFORMAT_NV12, yuv_mode(f));
		if (!ret && SDL_UpdateNVTexture(s->pic, NULL, f->data[0], f->linesize[0],
						f->data[1], f->linesize[1]))
			ret = -EIO;
	} else {
		ret = upload_converted(s, f);
	}
	if (ret == -EIO)
		ffdvb_log(FFDVB_LOG_ERR, "output: SDL texture update: %s", SDL_GetError());
	return ret;
}

static int upload_osd(struct ffdvb_output *o, struct sdl_out *s)
{
	int ret = 0;
	pthread_mutex_lock(&o->lock);
	if (s->osd_gen != o->osd_shown_gen) {
		s->osd_on = o->osd_shown != NULL;
		if (o->osd_shown &&
		    SDL_UpdateTexture(s->osd, NULL, o->osd_shown, FFDVB_OSD_WIDTH * 4))
			ret = -EIO;
		s->osd_gen = o->osd_shown_gen;
	}
	pthread_mutex_unlock(&o->lock);
	return ret;
}

/* renders the uploaded picture and OSD at the window's current size */
static int draw(struct ffdvb_output *o, int present)
{
	struct sdl_out *s = o->priv;
	int w, h;
	if (SDL_GetRendererOutputSize(s->ren, &w, &h) || w < 1 || h < 1)
		return -EIO;
	pthread_mutex_lock(&o->lock);
	o->out_w = w; /* screenshots compose at the size on screen */
	o->out_h = h;
	pthread_mutex_unlock(&o->lock);

	SDL_SetRenderDrawColor(s->ren, 0, 0, 0, 255);
	SDL_RenderClear(s->ren);
	/* o->frame and o->info only change on this thread: no lock needed to read them here */
	struct compose_geometry g;
	if (s->have_pic && o->frame && !o->info.blank &&
	    !compose_geometry(o->frame, &o->info, w, h, &g)) {
		SDL_Rect src = { g.src_x, g.src_y, g.src_w, g.src_h };
		SDL_Rect dst = { g.dst_x, g.dst_y, g.dst_w, g.dst_h };
		SDL_RenderCopy(s->ren, s->pic, &src, &dst);
	}
	if (s->osd_on)
		SDL_RenderCopy(s->ren, s->osd, NULL, NULL);
	if (present)
		SDL_RenderPresent(s->ren);
	return 0;
}

int sdl_read_back(struct ffdvb_output *o, uint8_t *rgb, int stride, int w, int h)
{
	struct sdl_out *s = o->priv;
	int ow, oh;
	if (o->backend->present != sdl_present || draw(o, 0))
		return -EINVAL;
	if (SDL_GetRendererOutputSize(s->ren, &ow, &oh) || ow != w || oh != h)
		return -EINVAL;
	if (SDL_RenderReadPixels(s->ren, NULL, SDL_PIXELFORMAT_RGB24, rgb, stride)) {
		ffdvb_log(FFDVB_LOG_ERR, "output: SDL_RenderReadPixels: %s", SDL_GetError());
		return -EIO;
	}
	return 0;
}

static int sdl_present(struct ffdvb_output *o)
{
	struct sdl_out *s = o->priv;
	uint64_t t0 = output_monotonic_ns();
	int ret = 0;
	if (s->pic_gen != o->frame_gen) {
		s->pic_gen = o->frame_gen;
		s->have_pic = 0;
		if (o->frame && !o->info.blank) {
			ret = upload_picture(s, o->frame);
			s->have_pic = !ret;
		}
	}
	int osd_ret = upload_osd(o, s);
	int draw_ret = draw(o, 1);
	uint64_t took = output_monotonic_ns() - t0;

	/* the picture is up once the present returned (vsync makes it wait for the flip) */
	s->latency_ns = s->latency_ns ? s->latency_ns + took / 8 - s->latency_ns / 8 : took;
	pump_events(o);
	return ret ? ret : osd_ret ? osd_ret : draw_ret;
}

static void sdl_destroy(struct ffdvb_output *o)
{
	struct sdl_out *s = o->priv;
	if (!s)
		return;
	sdl_audio_close(&s->audio);
	sws_freeContext(s->sws);
	av_freep(&s->conv[0]);
	if (s->osd)
		SDL_DestroyTexture(s->osd);
	if (s->pic)
		SDL_DestroyTexture(s->pic);
	if (s->ren)
		SDL_DestroyRenderer(s->ren);
	if (s->win)
		SDL_DestroyWindow(s->win);
	SDL_QuitSubSystem(SDL_INIT_VIDEO);
	if (!SDL_WasInit(SDL_INIT_EVERYTHING))
		SDL_Quit();
	free(s);
	o->priv = NULL;
}

static uint64_t sdl_latency(struct ffdvb_output *o)
{
	return ((struct sdl_out *)o->priv)->latency_ns;
}

static const struct output_backend sdl_backend = {
	.name = "window",
	.destroy = sdl_destroy,
	.now = sdl_now,
	.wait_until = sdl_wait_until,
	.present = sdl_present,
	.audio_queue = sdl_audio_queue,
	.audio_queued = sdl_audio_queued,
	.audio_pause = sdl_audio_pause,
	.audio_clear = sdl_audio_clear, .audio_device_ns = sdl_audio_device_ns,
	.audio_link = sdl_audio_link,
	.video_latency_ns = sdl_latency,
};
static const struct output_backend sdl_fullscreen_backend = {
	.name = "fullscreen", .destroy = sdl_destroy, .now = sdl_now,
	.wait_until = sdl_wait_until, .present = sdl_present, .audio_queue = sdl_audio_queue,
	.audio_queued = sdl_audio_queued, .audio_pause = sdl_audio_pause,
	.audio_clear = sdl_audio_clear, .audio_device_ns = sdl_audio_device_ns,
	.audio_link = sdl_audio_link,
	.video_latency_ns = sdl_latency,
};
static const struct output_backend sdl_kmsdrm_backend = {
	.name = "kmsdrm", .destroy = sdl_destroy, .now = sdl_now,
	.wait_until = sdl_wait_until, .present = sdl_present, .audio_queue = sdl_audio_queue,
	.audio_queued = sdl_audio_queued, .audio_pause = sdl_audio_pause,
	.audio_clear = sdl_audio_clear, .audio_device_ns = sdl_audio_device_ns,
	.audio_link = sdl_audio_link,
	.video_latency_ns = sdl_latency,
};

/* SDL's video, refusing the drivers that show nothing unless the user asked for them
 * (SDL itself falls back to "offscreen" when no display works) */
static int init_video(enum ffdvb_output_kind kind)
{
	const char *asked = getenv("SDL_VIDEODRIVER");
	if (kind == FFDVB_OUTPUT_KMSDRM) {
		SDL_SetHintWithPriority(SDL_HINT_VIDEODRIVER, "kmsdrm", SDL_HINT_OVERRIDE);
		asked = "kmsdrm";
	} else if (!asked && !getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY")) {
		ffdvb_log(FFDVB_LOG_WARNING, "output: no display ($DISPLAY, $WAYLAND_DISPLAY) for a "
				"window (SDL_VIDEODRIVER=offscreen runs without one)");
		return -ENODEV;
	}
	int ret = SDL_InitSubSystem(SDL_INIT_VIDEO);
	if (kind == FFDVB_OUTPUT_KMSDRM)
		SDL_ResetHint(SDL_HINT_VIDEODRIVER);
	if (ret) {
		ffdvb_log(FFDVB_LOG_ERR, "output: SDL video: %s", SDL_GetError());
		return -ENODEV;
	}
	const char *driver = SDL_GetCurrentVideoDriver();
	int shows_nothing = !strcasecmp(driver, "offscreen") || !strcasecmp(driver, "dummy") ||
			    !strcasecmp(driver, "evdev");
	if ((kind == FFDVB_OUTPUT_KMSDRM && strcasecmp(driver, "kmsdrm")) ||
	    (shows_nothing && (!asked || strcasecmp(asked, driver)))) {
		ffdvb_log(FFDVB_LOG_WARNING, "output: SDL chose the '%s' video driver: no %s", driver,
			kind == FFDVB_OUTPUT_KMSDRM ? "KMSDRM display" : "display");
		SDL_QuitSubSystem(SDL_INIT_VIDEO);
		return -ENODEV;
	}
	return 0;
}

/* SDL's own software renderer, or GL drawn by Mesa on the CPU (llvmpipe, softpipe, swrast) */
static int renders_on_cpu(SDL_Renderer *ren)
{
	SDL_RendererInfo info;
	if (SDL_GetRendererInfo(ren, &info) || strncmp(info.name, "opengl", 6))
		return 1;
	/* the renderer's context is current on this thread after SDL_CreateRenderer */
	const unsigned char *(*get)(unsigned int) = SDL_GL_GetProcAddress("glGetString");
	const char *gl = get ? (const char *)get(0x1F01 /* GL_RENDERER */) : NULL;
	return !gl || strstr(gl, "llvmpipe") || strstr(gl, "softpipe") || strstr(gl, "Software");
}

/* A mode of the desktop's size at cfg.refresh when the desktop runs at another rate: the
 * window then goes fullscreen in it (a mode switch) instead of on the desktop as it is. 1 if
 * *mode is to be used. */
static int refresh_mode(const struct ffdvb_output *o, const SDL_DisplayMode *desktop,
			SDL_DisplayMode *mode)
{
	int n = SDL_GetNumDisplayModes(0), pick = -1;
	SDL_DisplayMode *modes;

	if (!o->cfg.refresh || desktop->refresh_rate == o->cfg.refresh || n <= 0)
		return 0;
	modes = calloc((size_t)n, sizeof(*modes));
	for (int i = 0; modes && i < n; i++)
		if (SDL_GetDisplayMode(0, i, &modes[i]))
			modes[i].w = 0; /* not a mode we can ask for */
	if (modes)
		pick = sdl_pick_refresh(modes, n, desktop->w, desktop->h, o->cfg.refresh,
					desktop->format);
	if (pick >= 0) {
		*mode = modes[pick];
		ffdvb_log(FFDVB_LOG_INFO, "output: display mode %dx%d at %d Hz (the desktop's is %d Hz)",
			mode->w, mode->h, mode->refresh_rate, desktop->refresh_rate);
	} else {
		ffdvb_log(FFDVB_LOG_NOTICE, "output: the display offers no %d Hz mode at %dx%d: the "
			  "desktop's %d Hz stays (pictures at 25 or 50 a second judder)",
			  o->cfg.refresh, desktop->w, desktop->h, desktop->refresh_rate);
	}
	free(modes);
	return pick >= 0;
}

static int create_window(struct ffdvb_output *o, struct sdl_out *s, int hardware_gl)
{
	Uint32 flags = SDL_WINDOW_RESIZABLE;
	int x = SDL_WINDOWPOS_UNDEFINED, y = SDL_WINDOWPOS_UNDEFINED, w = o->out_w, h = o->out_h;
	SDL_DisplayMode desktop, mode;
	int switch_mode = 0;
	if (s->kind != FFDVB_OUTPUT_WINDOW && !SDL_GetDesktopDisplayMode(0, &desktop)) {
		/* Without a window manager (an X server that runs only the TV, common under VDR)
		 * nobody makes a FULLSCREEN_DESKTOP window cover the screen: SDL would render at
		 * the screen's size into a window of o->out_w x o->out_h and show a corner of the
		 * picture. So the window is the screen's size at its origin from the start. */
		flags = SDL_WINDOW_FULLSCREEN_DESKTOP | SDL_WINDOW_BORDERLESS;
		x = y = 0;
		w = desktop.w;
		h = desktop.h;
		switch_mode = refresh_mode(o, &desktop, &mode);
		if (switch_mode) /* the desktop's size, another refresh */
			flags = SDL_WINDOW_FULLSCREEN | SDL_WINDOW_BORDERLESS;
	} else if (s->kind != FFDVB_OUTPUT_WINDOW) {
		flags = SDL_WINDOW_FULLSCREEN_DESKTOP;
	}
	s->win = SDL_CreateWindow("ffdvb", x, y, w, h, flags);
	if (!s->win) {
		ffdvb_log(FFDVB_LOG_ERR, "output: SDL window: %s", SDL_GetError());
		return -ENODEV;
	}
	if (switch_mode && SDL_SetWindowDisplayMode(s->win, &mode))
		ffdvb_log(FFDVB_LOG_NOTICE, "output: the %d Hz mode was refused (%s): the desktop's "
			  "stays", mode.refresh_rate, SDL_GetError());
	if (s->kind != FFDVB_OUTPUT_WINDOW)
		SDL_ShowCursor(SDL_DISABLE);
	/* the scaling the renderer does must be smooth, not nearest-neighbour */
	SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "linear");
	s->ren = SDL_CreateRenderer(s->win, -1, SDL_RENDERER_ACCELERATED);
	if (!s->ren)
		s->ren = SDL_CreateRenderer(s->win, -1, 0);
	if (!s->ren) {
		ffdvb_log(FFDVB_LOG_ERR, "output: SDL renderer: %s", SDL_GetError());
		return -ENODEV;
	}
	if (hardware_gl && renders_on_cpu(s->ren)) {
		ffdvb_log(FFDVB_LOG_WARNING, "output: SDL's renderer draws on the CPU here: not used");
		return -ENODEV;
	}
	s->osd = SDL_CreateTexture(s->ren, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STREAMING,
				   FFDVB_OSD_WIDTH, FFDVB_OSD_HEIGHT);
	if (!s->osd) {
		ffdvb_log(FFDVB_LOG_ERR, "output: SDL OSD texture: %s", SDL_GetError());
		return -ENOMEM;
	}
	SDL_SetTextureBlendMode(s->osd, SDL_BLENDMODE_BLEND);
	return 0;
}

int sdl_open(struct ffdvb_output *o, enum ffdvb_output_kind kind, int hardware_gl)
{
	int ret = init_video(kind);
	if (ret)
		return ret;
	struct sdl_out *s = calloc(1, sizeof(*s));
	if (!s) {
		SDL_QuitSubSystem(SDL_INIT_VIDEO);
		return -ENOMEM;
	}
	s->kind = kind;
	o->priv = s;
	o->backend = kind == FFDVB_OUTPUT_KMSDRM     ? &sdl_kmsdrm_backend :
		     kind == FFDVB_OUTPUT_FULLSCREEN ? &sdl_fullscreen_backend :
						       &sdl_backend;
	ret = create_window(o, s, hardware_gl);
	if (!ret)
		ret = sdl_audio_open(o, &s->audio);
	if (!ret)
		ret = draw(o, 1); /* black, and the real output size for screenshots */
	if (ret) {
		sdl_destroy(o);
		o->backend = NULL;
	}
	return ret;
}
