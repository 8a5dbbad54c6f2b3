/* SDL sound: a push-mode device (SDL_QueueAudio) in the one format the output takes, so that
 * SDL converts if the hardware wants another. Without a device (cfg.audio 0, none to open),
 * the virtual device of vaudio.c keeps the sound timed on the monotonic clock. Both backends
 * with real devices (sdl.c, drm.c) use it: their state starts with a struct sdl_audio. */
#include <errno.h>
#include <stdio.h>

#include "sdl_internal.h"

/* samples per device period: ~21 ms, the latency SDL adds beyond its queue */
#define DEVICE_PERIOD 1024

int sdl_audio_open(struct ffdvb_output *o, struct sdl_audio *a)
{
	vaudio_init(&a->virt, output_monotonic_ns());
	if (!o->cfg.audio)
		return 0;
	if (SDL_InitSubSystem(SDL_INIT_AUDIO)) {
		fprintf(stderr, "ffdvb output: no SDL audio (%s): sound is timed, not heard\n",
			SDL_GetError());
		return 0;
	}
	SDL_AudioSpec want = {
		.freq = FFDVB_AUDIO_RATE, .format = AUDIO_S16SYS,
		.channels = FFDVB_AUDIO_CHANNELS, .samples = DEVICE_PERIOD,
	}, have;
	a->dev = SDL_OpenAudioDevice(NULL, 0, &want, &have, 0);
	if (!a->dev) {
		fprintf(stderr, "ffdvb output: no sound device (%s): sound is timed, not heard\n",
			SDL_GetError());
		SDL_QuitSubSystem(SDL_INIT_AUDIO);
		return 0;
	}
	a->period = have.samples;
	SDL_PauseAudioDevice(a->dev, 0);
	return 0;
}

void sdl_audio_close(struct sdl_audio *a)
{
	if (!a->dev)
		return;
	SDL_CloseAudioDevice(a->dev);
	a->dev = 0;
	SDL_QuitSubSystem(SDL_INIT_AUDIO);
}

int sdl_audio_queue(struct ffdvb_output *o, const int16_t *samples, size_t nb)
{
	struct sdl_audio *a = o->priv; /* the first member of the backend's state */
	if (!a->dev) {
		vaudio_queue(&a->virt, output_monotonic_ns(), nb);
		return 0;
	}
	if (nb > UINT32_MAX / FFDVB_AUDIO_FRAME_BYTES)
		return -EINVAL;
	if (SDL_QueueAudio(a->dev, samples, (Uint32)(nb * FFDVB_AUDIO_FRAME_BYTES))) {
		fprintf(stderr, "ffdvb output: SDL_QueueAudio: %s\n", SDL_GetError());
		return -EIO;
	}
	return 0;
}

uint64_t sdl_audio_queued(struct ffdvb_output *o)
{
	struct sdl_audio *a = o->priv; /* the first member of the backend's state */
	if (!a->dev)
		return vaudio_queued(&a->virt, output_monotonic_ns());
	uint64_t q = SDL_GetQueuedAudioSize(a->dev) / FFDVB_AUDIO_FRAME_BYTES;
	/* SDL's queue does not count the period the device is playing: assume one, as long as
	 * something is queued (ffplay's callback makes the same kind of assumption) */
	return q ? q + (uint64_t)a->period : 0;
}

void sdl_audio_pause(struct ffdvb_output *o, int pause)
{
	struct sdl_audio *a = o->priv; /* the first member of the backend's state */
	if (a->dev)
		SDL_PauseAudioDevice(a->dev, pause);
	else
		vaudio_pause(&a->virt, output_monotonic_ns(), pause);
}

void sdl_audio_clear(struct ffdvb_output *o)
{
	struct sdl_audio *a = o->priv; /* the first member of the backend's state */
	if (a->dev)
		SDL_ClearQueuedAudio(a->dev);
	else
		vaudio_clear(&a->virt, output_monotonic_ns());
}
