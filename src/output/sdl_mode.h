/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which of SDL's display modes the fullscreen outputs switch to (sdl_mode.c). */
#ifndef FFDVB_OUTPUT_SDL_MODE_H
#define FFDVB_OUTPUT_SDL_MODE_H

#include <SDL.h>

/* The index in modes[n] of a mode of want_w x want_h refreshing at want_hz, preferring the
 * desktop's pixel format; -1 if there is none (or want_hz is 0: no wish). */
int sdl_pick_refresh(const SDL_DisplayMode *modes, int n, int want_w, int want_h, int want_hz,
		     Uint32 format);

#endif
