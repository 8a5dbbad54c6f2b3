// SPDX-License-Identifier: GPL-2.0-or-later
/* The sound of the backends with real devices (sdl.c, drm.c: their state starts with a struct
 * sdl_audio): ALSA (alsa_audio.c), which knows the device's own delay, unless the device name
 * says "sdl:NAME" or SDL_AUDIODRIVER chooses an SDL driver; SDL's push-mode device
 * (SDL_QueueAudio) where ALSA has no default device (a desktop with another sound server).
 * Without a device (cfg.audio 0, none to open), the virtual device of vaudio.c keeps the sound
 * timed on the monotonic clock. On a faster link (E-AC-3 bursts, ffdvb_output_audio_link) the
 * device runs at link * 48 kHz and every count here is converted back to 48 kHz samples. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffdvb/log.h"
#include "alsa_audio.h"
#include "sdl_internal.h"

/* samples per device period: ~21 ms, the latency SDL adds beyond its queue */
#define DEVICE_PERIOD 1024

/* ALSA when it should be tried: 1 opened, 0 not tried or failed where SDL may do better,
 * -1 failed on a device the user named (no other device is tried for it) */
static int open_alsa(struct ffdvb_output *o, struct sdl_audio *a)
{
	const char *name = o->cfg.audio_device;
	char why[128] = "";

	if (!strncmp(name, "sdl:", 4) || (!name[0] && getenv("SDL_AUDIODRIVER")))
		return 0;
	if (alsa_audio_open(&a->alsa, name[0] ? name : "default", why, sizeof(why)) == 0) {
		ffdvb_log(FFDVB_LOG_NOTICE, "output: sound on ALSA device %s", name[0] ? name : "default");
		return 1;
	}
	if (!name[0])
		return 0;
	ffdvb_log(FFDVB_LOG_WARNING, "output: no sound device (ALSA %s: %s): sound is timed, not heard",
		name, why);
	return -1;
}

/* SDL's device at link * 48 kHz (SDL converts where the device wants another format) */
static SDL_AudioDeviceID open_sdl_device(struct sdl_audio *a, unsigned int link)
{
	SDL_AudioSpec want = {
		.freq = (int)(FFDVB_AUDIO_RATE * link), .format = AUDIO_S16SYS,
		.channels = FFDVB_AUDIO_CHANNELS, .samples = (Uint16)(DEVICE_PERIOD * link),
	}, have;
	SDL_AudioDeviceID dev = SDL_OpenAudioDevice(a->sdl_name, 0, &want, &have, 0);

	if (dev) {
		a->period = have.samples;
		SDL_PauseAudioDevice(dev, 0);
	}
	return dev;
}

int sdl_audio_open(struct ffdvb_output *o, struct sdl_audio *a)
{
	vaudio_init(&a->virt, output_monotonic_ns());
	a->link = 1;
	if (!o->cfg.audio)
		return 0;
	int alsa = open_alsa(o, a);

	if (alsa)
		return 0;
	a->sdl_name = !strncmp(o->cfg.audio_device, "sdl:", 4) && o->cfg.audio_device[4]
			      ? o->cfg.audio_device + 4 : NULL;

	if (SDL_InitSubSystem(SDL_INIT_AUDIO)) {
		ffdvb_log(FFDVB_LOG_WARNING, "output: no SDL audio (%s): sound is timed, not heard",
			SDL_GetError());
		return 0;
	}
	a->dev = open_sdl_device(a, 1);
	if (!a->dev) {
		ffdvb_log(FFDVB_LOG_WARNING, "output: no sound device (%s): sound is timed, not heard",
			SDL_GetError());
		SDL_QuitSubSystem(SDL_INIT_AUDIO);
		return 0;
	}
	return 0;
}

int sdl_audio_link(struct ffdvb_output *o, unsigned int link)
{
	struct sdl_audio *a = o->priv; /* the first member of the backend's state */

	if (a->alsa) {
		int r = alsa_audio_set_rate(a->alsa, FFDVB_AUDIO_RATE * link);

		if (r < 0) {
			ffdvb_log(FFDVB_LOG_WARNING, "output: the ALSA device refuses %u Hz: %s",
				FFDVB_AUDIO_RATE * link, strerror(-r));
			return r;
		}
	} else if (a->dev) {
		SDL_AudioDeviceID dev;

		SDL_CloseAudioDevice(a->dev); /* only one open at a time on most devices */
		a->dev = 0;
		dev = open_sdl_device(a, link);
		if (!dev) {
			ffdvb_log(FFDVB_LOG_WARNING, "output: the SDL device refuses %u Hz: %s",
				FFDVB_AUDIO_RATE * link, SDL_GetError());
			a->dev = open_sdl_device(a, a->link);
			return -EIO;
		}
		a->dev = dev;
	} else {
		vaudio_clear(&a->virt, output_monotonic_ns());
	}
	if (a->alsa || a->dev)
		ffdvb_log(FFDVB_LOG_NOTICE, "output: sound device at %u Hz%s", FFDVB_AUDIO_RATE * link,
			link > 1 ? " (E-AC-3 bursts)" : "");
	a->link = link;
	a->device_frames = 0;
	return 0;
}

void sdl_audio_close(struct sdl_audio *a)
{
	alsa_audio_close(a->alsa);
	a->alsa = NULL;
	if (!a->dev)
		return;
	SDL_CloseAudioDevice(a->dev);
	a->dev = 0;
	SDL_QuitSubSystem(SDL_INIT_AUDIO);
}

int sdl_audio_queue(struct ffdvb_output *o, const int16_t *samples, size_t nb)
{
	struct sdl_audio *a = o->priv; /* the first member of the backend's state */
	if (a->alsa)
		return alsa_audio_queue(a->alsa, samples, nb * a->link);
	if (!a->dev) {
		vaudio_queue(&a->virt, output_monotonic_ns(), nb);
		return 0;
	}
	if (nb > UINT32_MAX / FFDVB_AUDIO_FRAME_BYTES / FFDVB_AUDIO_LINK_MAX)
		return -EINVAL;
	if (SDL_QueueAudio(a->dev, samples, (Uint32)(nb * FFDVB_AUDIO_FRAME_BYTES * a->link))) {
		ffdvb_log(FFDVB_LOG_ERR, "output: SDL_QueueAudio: %s", SDL_GetError());
		return -EIO;
	}
	return 0;
}

uint64_t sdl_audio_queued(struct ffdvb_output *o)
{
	struct sdl_audio *a = o->priv; /* the first member of the backend's state */
	if (a->alsa) {
		uint64_t device, q = alsa_audio_queued(a->alsa, &device);

		device /= a->link;
		if (device) /* the latency while sound plays, smoothed (a drain ends at 0) */
			a->device_frames = a->device_frames ? a->device_frames + device / 16 -
								      a->device_frames / 16 : device;
		return q / a->link;
	}
	if (!a->dev)
		return vaudio_queued(&a->virt, output_monotonic_ns());
	uint64_t q = SDL_GetQueuedAudioSize(a->dev) / (FFDVB_AUDIO_FRAME_BYTES * a->link);
	uint64_t period = (uint64_t)a->period / a->link;
	/* SDL's queue does not count the period the device is playing: assume one, as long as
	 * something is queued (ffplay's callback makes the same kind of assumption) */
	if (q)
		a->device_frames = period;
	return q ? q + period : 0;
}

uint64_t sdl_audio_device_ns(struct ffdvb_output *o)
{
	struct sdl_audio *a = o->priv; /* the first member of the backend's state */

	return vaudio_ns(a->device_frames);
}

void sdl_audio_pause(struct ffdvb_output *o, int pause)
{
	struct sdl_audio *a = o->priv; /* the first member of the backend's state */
	if (a->alsa)
		alsa_audio_pause(a->alsa, pause);
	else if (a->dev)
		SDL_PauseAudioDevice(a->dev, pause);
	else
		vaudio_pause(&a->virt, output_monotonic_ns(), pause);
}

void sdl_audio_clear(struct ffdvb_output *o)
{
	struct sdl_audio *a = o->priv; /* the first member of the backend's state */
	if (a->alsa)
		alsa_audio_clear(a->alsa);
	else if (a->dev)
		SDL_ClearQueuedAudio(a->dev);
	else
		vaudio_clear(&a->virt, output_monotonic_ns());
}
