// SPDX-License-Identifier: GPL-2.0-or-later
/* ALSA sound for the outputs with real devices (alsa_audio.c): interleaved S16 stereo at
 * FFDVB_AUDIO_RATE (or a multiple: alsa_audio_set_rate), queued without blocking, with the
 * device's own delay known. Counts are in samples at the device's rate. */
#ifndef FFDVB_ALSA_AUDIO_H
#define FFDVB_ALSA_AUDIO_H

#include <stddef.h>
#include <stdint.h>

#include "ffdvb/output.h"

struct alsa_audio;

/* Opens the ALSA PCM `name` ("default", "hw:0,3", "plughw:CARD=PCH", ...). 0, or -errno with
 * libasound's reason in why. */
int alsa_audio_open(struct alsa_audio **a, const char *name, char *why, size_t whylen);
void alsa_audio_close(struct alsa_audio *a);
/* Drops what is queued and runs the device at rate Hz from now on: 0, or the libasound error
 * (the device keeps its rate). */
int alsa_audio_set_rate(struct alsa_audio *a, unsigned int rate);
/* 0, -ENOBUFS beyond 10 s queued, -ENOMEM */
int alsa_audio_queue(struct alsa_audio *a, const int16_t *samples, size_t nb);
/* samples queued and not yet heard: the queue plus what the device holds (*device, if not
 * NULL: the device's part alone) */
uint64_t alsa_audio_queued(struct alsa_audio *a, uint64_t *device);
void alsa_audio_pause(struct alsa_audio *a, int pause);
void alsa_audio_clear(struct alsa_audio *a);
uint64_t alsa_audio_underruns(struct alsa_audio *a);

#endif
