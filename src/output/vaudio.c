/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The virtual sound device: a queue drained at FFDVB_AUDIO_RATE samples per second of the
 * output clock while not paused. Exact in whole samples: the count consumed is always
 * floor(elapsed * rate) since the last anchor, and queuing more does not move the anchor
 * unless the device ran dry (then the new chunk starts playing when it is queued). */
#include "output_internal.h"

uint64_t vaudio_ns(uint64_t nb)
{
	return nb / FFDVB_AUDIO_RATE * NS_PER_S + nb % FFDVB_AUDIO_RATE * NS_PER_S / FFDVB_AUDIO_RATE;
}

/* samples heard in dt ns, rounded down, without overflow for any uint64_t dt */
static uint64_t samples_in(uint64_t dt)
{
	return dt / NS_PER_S * FFDVB_AUDIO_RATE + dt % NS_PER_S * FFDVB_AUDIO_RATE / NS_PER_S;
}

void vaudio_init(struct vaudio *a, uint64_t now)
{
	a->anchor_t = now;
	a->anchor_left = 0;
	a->paused = 0;
}

uint64_t vaudio_queued(const struct vaudio *a, uint64_t now)
{
	if (a->paused || now <= a->anchor_t)
		return a->anchor_left;
	uint64_t heard = samples_in(now - a->anchor_t);
	return heard >= a->anchor_left ? 0 : a->anchor_left - heard;
}

void vaudio_queue(struct vaudio *a, uint64_t now, uint64_t nb)
{
	if (!a->paused && vaudio_queued(a, now) == 0) {
		/* ran dry (or never started): the new chunk is heard from now on */
		a->anchor_t = now;
		a->anchor_left = 0;
	}
	a->anchor_left += nb;
}

void vaudio_pause(struct vaudio *a, uint64_t now, int pause)
{
	pause = !!pause;
	if (pause == a->paused)
		return;
	if (pause)
		a->anchor_left = vaudio_queued(a, now);
	a->anchor_t = now;
	a->paused = pause;
}

void vaudio_clear(struct vaudio *a, uint64_t now)
{
	a->anchor_t = now;
	a->anchor_left = 0;
}
