/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Inside the SDL backend: its state, shared by sdl.c (window, renderer, clock) and
 * sdl_audio.c (the sound device, also drm.c's). */
#ifndef FFDVB_SDL_INTERNAL_H
#define FFDVB_SDL_INTERNAL_H

#include <SDL.h>

#include "output_internal.h"

struct alsa_audio;

struct sdl_audio {
	struct alsa_audio *alsa; /* the ALSA device, or NULL: */
	SDL_AudioDeviceID dev;  /* the SDL device, or 0: the virtual one times the sound */
	uint64_t device_frames; /* what the device holds beyond the queue while playing */
	int period;             /* samples the device holds beyond SDL's queue (device rate) */
	unsigned int link;      /* the device runs at link * FFDVB_AUDIO_RATE (sdl_audio_link) */
	const char *sdl_name;   /* the SDL device asked for, NULL = SDL's default */
	struct vaudio virt;
};

struct sdl_out {
	struct sdl_audio audio; /* first: sdl_audio.c finds it at o->priv */
	enum ffdvb_output_kind kind;
	SDL_Window *win;
	SDL_Renderer *ren;

	/* the picture as a texture in its own YUV layout, when SDL has one, else converted */
	SDL_Texture *pic;
	int pic_w, pic_h;
	Uint32 pic_format;
	SDL_YUV_CONVERSION_MODE pic_mode;
	uint64_t pic_gen;       /* o->frame_gen of the uploaded picture */
	int have_pic;
	struct SwsContext *sws; /* for layouts SDL has no texture for: to yuv420p */
	uint8_t *conv[4];
	int conv_stride[4];
	int conv_w, conv_h;

	SDL_Texture *osd;
	uint64_t osd_gen;       /* o->osd_shown_gen of the uploaded OSD */
	int osd_on;

	int quit_noted;
	uint64_t latency_ns;    /* a present's duration, smoothed */
};

/* o->priv must start with the struct sdl_audio a */
int sdl_audio_open(struct ffdvb_output *o, struct sdl_audio *a);
void sdl_audio_close(struct sdl_audio *a);
int sdl_audio_queue(struct ffdvb_output *o, const int16_t *samples, size_t nb);
uint64_t sdl_audio_queued(struct ffdvb_output *o);
void sdl_audio_pause(struct ffdvb_output *o, int pause);
void sdl_audio_clear(struct ffdvb_output *o);
int sdl_audio_link(struct ffdvb_output *o, unsigned int link);
/* the sound the device itself held at the last sdl_audio_queued(), in ns */
uint64_t sdl_audio_device_ns(struct ffdvb_output *o);

#endif
