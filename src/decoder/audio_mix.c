/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Channel selection, volume and mute on the interleaved stereo S16 samples the output plays. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dec_internal.h"
#include "ffdvb/abi.h"

static int16_t scale(int v, int vol)
{
	return (int16_t)(v * vol / 255);
}

void audio_mix(int16_t *s, size_t nb, int channel, int vol_l, int vol_r, int mute)
{
	if (mute) {
		memset(s, 0, nb * 2 * sizeof(*s));
		return;
	}
	/* the usual case, stereo at full volume, leaves the samples as they are */
	if (channel == FFDVB_AUDIO_STEREO && vol_l >= 255 && vol_r >= 255)
		return;
	for (size_t i = 0; i < nb; i++) {
		int l = s[2 * i], r = s[2 * i + 1], t;

		switch (channel) {
		case FFDVB_AUDIO_MONO_LEFT:
			r = l;
			break;
		case FFDVB_AUDIO_MONO_RIGHT:
			l = r;
			break;
		case FFDVB_AUDIO_MONO:
			l = r = (l + r) / 2;
			break;
		case FFDVB_AUDIO_STEREO_SWAPPED:
			t = l, l = r, r = t;
			break;
		default:
			break;
		}
		s[2 * i] = vol_l >= 255 ? (int16_t)l : scale(l, vol_l);
		s[2 * i + 1] = vol_r >= 255 ? (int16_t)r : scale(r, vol_r);
	}
}
