// SPDX-License-Identifier: GPL-2.0-or-later
/* ALSA sound (libasound) for the outputs with real devices. Unlike SDL's audio it says how much
 * the device itself still holds (snd_pcm_delay: its buffer, FIFO and codec), so the presenter's
 * audio clock is the sound coming out of the speaker, not the sound leaving a queue. A writer
 * thread moves the queue into the device: the presenter never blocks on the device, and every
 * ALSA call is made under the one lock (no reliance on libasound's own thread safety). */
#include <alsa/asoundlib.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ffdvb/log.h"
#include "alsa_audio.h"

/* The device's buffer, in periods of a quarter: 200 ms (mpv's default too). The presenter
 * bounds the sound's lead (src/decoder/presenter.c audio_target), so a larger buffer adds no
 * latency: the device holds all of the lead, and the writer thread may be descheduled for up
 * to that lead without starving it. With 50 ms, a TCG guest on a busy host starved AC-3 bursts
 * (200 ms of lead) at 48 kHz in vm_devices, as it had E-AC-3's at 192 kHz. */
#define BUFFER_US 200000
/* Playback starts once this much is written, not a whole period: a short sound after silence
 * is not held back (12.5 ms, the period of the 50 ms buffer before) */
#define START_US 12500
#define QUEUE_SECONDS 10 /* queued beyond the device at most */

struct alsa_audio {
	snd_pcm_t *pcm;
	char name[256];              /* of the device, to open it again at another rate */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int16_t *q;                  /* the queue: a ring of cap samples (stereo frames) */
	size_t cap, head, fill;
	snd_pcm_uframes_t period;
	unsigned int rate;           /* FFDVB_AUDIO_RATE, or a multiple for E-AC-3 bursts */
	int can_pause, paused, quit;
	uint64_t device_delay;       /* frames the device held at the last look */
	uint64_t underruns, underruns_logged;
	int ran_dry;                 /* the queue was empty while the device played on */
};

/* libasound prints its errors on stderr by default (a missing card is a screenful) */
static void quiet(const char *file, int line, const char *func, int err, const char *fmt, ...)
{
	(void)file, (void)line, (void)func, (void)err, (void)fmt;
}

/* lock held: an underrun or a suspend is repaired; 0 if the device can take data again */
static int recover(struct alsa_audio *a, int err)
{
	if (err == -EPIPE && ++a->underruns == a->underruns_logged * 10 + 1) {
		/* 1, 11, 111, ...: a device starved once is news, one starved all the time says so
		   without filling the log. Whose fault: the queue ran dry (the sound came too late
		   from the presenter), or it held sound the writer thread did not move in time. */
		ffdvb_log(FFDVB_LOG_WARNING, "output: sound device underrun (%llu so far): %s",
			  (unsigned long long)a->underruns,
			  a->ran_dry ? "no sound was ready for it" : "the sound was not written in time");
		a->underruns_logged = a->underruns;
	}
	return snd_pcm_recover(a->pcm, err, 1);
}

static void *writer(void *arg)
{
	struct alsa_audio *a = arg;

	pthread_mutex_lock(&a->lock);
	while (!a->quit) {
		if (!a->pcm) { /* gone for good (alsa_audio_set_rate): the sound is dropped */
			a->fill = 0;
			a->head = 0;
		}
		if (a->paused || !a->fill) {
			a->ran_dry = !a->paused;
			pthread_cond_wait(&a->cond, &a->lock);
			continue;
		}
		snd_pcm_sframes_t room = snd_pcm_avail_update(a->pcm);

		if (room < 0) {
			if (recover(a, (int)room) < 0) { /* the device is gone: drop the sound */
				a->fill = 0;
				a->head = 0;
			}
			continue;
		}
		if (room == 0) { /* full: look again in half a period */
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += (long)(a->period * 500000000ull / a->rate);
			ts.tv_sec += ts.tv_nsec / 1000000000;
			ts.tv_nsec %= 1000000000;
			pthread_cond_timedwait(&a->cond, &a->lock, &ts);
			continue;
		}
		size_t n = a->cap - a->head < a->fill ? a->cap - a->head : a->fill;

		if (n > (size_t)room)
			n = (size_t)room;
		snd_pcm_sframes_t w = snd_pcm_writei(a->pcm, a->q + 2 * a->head, n);

		if (w == -EAGAIN)
			continue;
		if (w < 0) {
			recover(a, (int)w);
			continue;
		}
		a->head = (a->head + (size_t)w) % a->cap;
		a->fill -= (size_t)w;
		a->ran_dry = 0;
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* the device's own parameters: our format (plug converts where the device wants another),
 * BUFFER_US of buffer, and playback that starts once START_US is written */
static int configure(struct alsa_audio *a)
{
	snd_pcm_uframes_t buffer;
	snd_pcm_hw_params_t *hw;
	snd_pcm_sw_params_t *sw;
	int r = snd_pcm_set_params(a->pcm, SND_PCM_FORMAT_S16, SND_PCM_ACCESS_RW_INTERLEAVED,
				   FFDVB_AUDIO_CHANNELS, a->rate, 1, BUFFER_US);

	if (r < 0 || (r = snd_pcm_get_params(a->pcm, &buffer, &a->period)) < 0)
		return r;
	snd_pcm_hw_params_alloca(&hw);
	if (snd_pcm_hw_params_current(a->pcm, hw) == 0)
		a->can_pause = snd_pcm_hw_params_can_pause(hw);
	snd_pcm_sw_params_alloca(&sw);
	if ((r = snd_pcm_sw_params_current(a->pcm, sw)) < 0 ||
	    (r = snd_pcm_sw_params_set_start_threshold(a->pcm, sw,
							 (snd_pcm_uframes_t)a->rate * START_US / 1000000)) < 0 ||
	    (r = snd_pcm_sw_params(a->pcm, sw)) < 0)
		return r;
	return 0;
}

int alsa_audio_open(struct alsa_audio **out, const char *name, char *why, size_t whylen)
{
	struct alsa_audio *a = calloc(1, sizeof(*a));
	int r;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	snd_lib_error_set_handler(quiet);
	a->rate = FFDVB_AUDIO_RATE;
	a->cap = FFDVB_AUDIO_RATE; /* 1 s to start with; grows up to QUEUE_SECONDS */
	a->q = malloc(a->cap * FFDVB_AUDIO_FRAME_BYTES);
	if (!a->q) {
		free(a);
		return -ENOMEM;
	}
	snprintf(a->name, sizeof(a->name), "%s", name);
	r = snd_pcm_open(&a->pcm, name, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK);
	if (r < 0 || (r = configure(a)) < 0) {
		snprintf(why, whylen, "%s", snd_strerror(r));
		if (a->pcm)
			snd_pcm_close(a->pcm);
		free(a->q);
		free(a);
		return r;
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	if ((r = pthread_create(&a->thread, NULL, writer, a))) {
		snprintf(why, whylen, "no thread: %s", strerror(r));
		snd_pcm_close(a->pcm);
		pthread_cond_destroy(&a->cond);
		pthread_mutex_destroy(&a->lock);
		free(a->q);
		free(a);
		return -r;
	}
	*out = a;
	return 0;
}

void alsa_audio_close(struct alsa_audio *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->quit = 1;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	if (a->pcm) {
		snd_pcm_drop(a->pcm);
		snd_pcm_close(a->pcm);
	}
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
	free(a->q);
	free(a);
}

/* lock held: room for nb more samples in the queue, growing it in order */
static int make_room(struct alsa_audio *a, size_t nb)
{
	if (a->fill + nb <= a->cap)
		return 0;
	size_t max = (size_t)a->rate * QUEUE_SECONDS;

	if (a->fill + nb > max)
		return -ENOBUFS;
	size_t cap = a->cap;

	while (cap < a->fill + nb)
		cap *= 2;
	if (cap > max)
		cap = max;
	int16_t *q = malloc(cap * FFDVB_AUDIO_FRAME_BYTES);

	if (!q)
		return -ENOMEM;
	size_t first = a->cap - a->head < a->fill ? a->cap - a->head : a->fill;

	memcpy(q, a->q + 2 * a->head, first * FFDVB_AUDIO_FRAME_BYTES);
	memcpy(q + 2 * first, a->q, (a->fill - first) * FFDVB_AUDIO_FRAME_BYTES);
	free(a->q);
	a->q = q;
	a->cap = cap;
	a->head = 0;
	return 0;
}

int alsa_audio_queue(struct alsa_audio *a, const int16_t *samples, size_t nb)
{
	pthread_mutex_lock(&a->lock);
	int r = make_room(a, nb);

	for (size_t done = 0; !r && done < nb;) {
		size_t tail = (a->head + a->fill) % a->cap;
		size_t n = a->cap - tail < nb - done ? a->cap - tail : nb - done;

		memcpy(a->q + 2 * tail, samples + 2 * done, n * FFDVB_AUDIO_FRAME_BYTES);
		a->fill += n;
		done += n;
	}
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
	return r;
}

uint64_t alsa_audio_queued(struct alsa_audio *a, uint64_t *device)
{
	snd_pcm_sframes_t d = 0;

	pthread_mutex_lock(&a->lock);
	switch (a->pcm ? snd_pcm_state(a->pcm) : SND_PCM_STATE_DISCONNECTED) {
	case SND_PCM_STATE_RUNNING:
	case SND_PCM_STATE_PREPARED:
	case SND_PCM_STATE_PAUSED:
		if (snd_pcm_delay(a->pcm, &d) < 0 || d < 0)
			d = 0;
		break;
	default: /* an underrun: the device holds nothing */
		break;
	}
	a->device_delay = (uint64_t)d;
	uint64_t q = a->fill + (uint64_t)d;

	if (device)
		*device = (uint64_t)d;
	pthread_mutex_unlock(&a->lock);
	return q;
}

void alsa_audio_pause(struct alsa_audio *a, int pause)
{
	pthread_mutex_lock(&a->lock);
	a->paused = pause;
	snd_pcm_state_t st = a->pcm ? snd_pcm_state(a->pcm) : SND_PCM_STATE_DISCONNECTED;

	if (a->can_pause && ((pause && st == SND_PCM_STATE_RUNNING) ||
			     (!pause && st == SND_PCM_STATE_PAUSED))) {
		snd_pcm_pause(a->pcm, pause);
	} else if (pause && st == SND_PCM_STATE_RUNNING) {
		/* a device that cannot pause loses what it holds (a few ms) rather than play on */
		snd_pcm_drop(a->pcm);
		snd_pcm_prepare(a->pcm);
	}
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
}

void alsa_audio_clear(struct alsa_audio *a)
{
	pthread_mutex_lock(&a->lock);
	a->head = 0;
	a->fill = 0;
	if (a->pcm) {
		snd_pcm_drop(a->pcm);
		snd_pcm_prepare(a->pcm);
	}
	pthread_mutex_unlock(&a->lock);
}

uint64_t alsa_audio_underruns(struct alsa_audio *a)
{
	pthread_mutex_lock(&a->lock);
	uint64_t n = a->underruns;

	pthread_mutex_unlock(&a->lock);
	return n;
}

/* lock held, a->pcm closed: opens and configures it again; a->pcm NULL if that fails (the
 * sound is then dropped as if the device were gone) */
static int reopen(struct alsa_audio *a)
{
	int r = snd_pcm_open(&a->pcm, a->name, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK);

	if (r == 0 && (r = configure(a)) < 0)
		snd_pcm_close(a->pcm);
	if (r < 0)
		a->pcm = NULL;
	return r;
}

int alsa_audio_set_rate(struct alsa_audio *a, unsigned int rate)
{
	unsigned int old = a->rate;
	int r;

	pthread_mutex_lock(&a->lock);
	a->fill = 0;
	a->head = 0;
	/* opened again, not just reconfigured: a device may tie new parameters to those it had
	   for as long as it is open (the kernel's loopback card fixes a cable's rate this way) */
	if (a->pcm) {
		snd_pcm_drop(a->pcm);
		snd_pcm_close(a->pcm);
	}
	a->rate = rate;
	r = reopen(a);
	if (r < 0) { /* back to what worked */
		a->rate = old;
		reopen(a);
	}
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
	return r;
}
