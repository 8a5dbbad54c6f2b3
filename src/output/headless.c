/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The headless sink ("none"): shows nothing, converts nothing (the compositor runs only for a
 * screenshot), and keeps time on the monotonic clock or on a virtual clock that jumps to
 * whatever time the presenter waits for. Sound goes to the virtual device of vaudio.c. */
#include <errno.h>
#include <stdlib.h>

#include "output_internal.h"

/* where the virtual clock starts: far from 0 so that "time 0" bugs show */
#define VIRTUAL_CLOCK_START (1000ull * NS_PER_S)

struct headless {
	int virtual_clock;
	uint64_t vnow;
	struct vaudio audio;
};

static uint64_t headless_now(struct ffdvb_output *o)
{
	struct headless *h = o->priv;
	return h->virtual_clock ? h->vnow : output_monotonic_ns();
}

static void headless_wait_until(struct ffdvb_output *o, uint64_t t)
{
	struct headless *h = o->priv;
	if (!h->virtual_clock)
		output_sleep_until(t, 0);
	else if (t > h->vnow)
		h->vnow = t;
}

static int headless_present(struct ffdvb_output *o)
{
	(void)o; /* nothing to show: the frame is kept (output.c) for screenshots */
	return 0;
}

static int headless_audio_queue(struct ffdvb_output *o, const int16_t *samples, size_t nb)
{
	struct headless *h = o->priv;
	(void)samples;
	vaudio_queue(&h->audio, headless_now(o), nb);
	return 0;
}

static uint64_t headless_audio_queued(struct ffdvb_output *o)
{
	struct headless *h = o->priv;
	return vaudio_queued(&h->audio, headless_now(o));
}

static void headless_audio_pause(struct ffdvb_output *o, int pause)
{
	struct headless *h = o->priv;
	vaudio_pause(&h->audio, headless_now(o), pause);
}

static void headless_audio_clear(struct ffdvb_output *o)
{
	struct headless *h = o->priv;
	vaudio_clear(&h->audio, headless_now(o));
}

static void headless_destroy(struct ffdvb_output *o)
{
	free(o->priv);
	o->priv = NULL;
}

static const struct output_backend headless_backend = {
	.name = "none",
	.destroy = headless_destroy,
	.now = headless_now,
	.wait_until = headless_wait_until,
	.present = headless_present,
	.audio_queue = headless_audio_queue,
	.audio_queued = headless_audio_queued,
	.audio_pause = headless_audio_pause,
	.audio_clear = headless_audio_clear,
};

int headless_open(struct ffdvb_output *o)
{
	struct headless *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->virtual_clock = o->cfg.virtual_clock;
	h->vnow = VIRTUAL_CLOCK_START;
	o->priv = h;
	o->backend = &headless_backend;
	vaudio_init(&h->audio, headless_now(o));
	return 0;
}
