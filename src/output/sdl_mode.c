/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fullscreen outputs' display mode (sdl_mode.h): the desktop's size at the refresh DVB's
 * pictures want (50 Hz for 25 frames or 50 fields a second; a 60 Hz desktop holds one picture
 * in five twice as long), as the drm output does with KMS modes (kms_mode.c). */
#include "sdl_mode.h"

int sdl_pick_refresh(const SDL_DisplayMode *modes, int n, int want_w, int want_h, int want_hz,
		     Uint32 format)
{
	int best = -1;

	for (int i = 0; want_hz && i < n; i++) {
		const SDL_DisplayMode *m = &modes[i];

		if (m->w != want_w || m->h != want_h || m->refresh_rate != want_hz)
			continue;
		if (best < 0 || (m->format == format && modes[best].format != format))
			best = i;
	}
	return best;
}
