/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fullscreen outputs' mode choice (src/output/sdl_mode.c) on made-up mode lists: the
 * desktop's size at the refresh asked for, in the desktop's pixel format where there are two;
 * none when the size has no such refresh, or when no refresh is asked for. */
#include "check.h"
#include "sdl_mode.h"

static SDL_DisplayMode mode(int w, int h, int hz, Uint32 format)
{
	SDL_DisplayMode m = { .format = format, .w = w, .h = h, .refresh_rate = hz };

	return m;
}

int main(void)
{
	const Uint32 rgb = SDL_PIXELFORMAT_RGB888, bgr = SDL_PIXELFORMAT_BGR888;
	/* a TV on X11 (XRandR) or KMSDRM: 1080p at 60 and 50 (in two formats), 720p60, 576p50 */
	SDL_DisplayMode tv[] = {
		mode(1920, 1080, 60, rgb), mode(1920, 1080, 50, bgr), mode(1920, 1080, 50, rgb),
		mode(1280, 720, 60, rgb), mode(720, 576, 50, rgb),
	};
	/* a monitor (or qemu's bochs): 60 Hz only */
	SDL_DisplayMode mon[] = { mode(1280, 800, 75, rgb), mode(1280, 800, 60, rgb),
				  mode(1024, 768, 60, rgb) };

	CHECK_EQ(sdl_pick_refresh(tv, 5, 1920, 1080, 50, rgb), 2);
	CHECK_EQ(sdl_pick_refresh(tv, 5, 1920, 1080, 50, bgr), 1);
	CHECK_EQ(sdl_pick_refresh(tv, 5, 720, 576, 50, rgb), 4);
	CHECK_EQ(sdl_pick_refresh(tv, 5, 1280, 720, 50, rgb), -1); /* 720p has 60 only */
	CHECK_EQ(sdl_pick_refresh(tv, 5, 1920, 1080, 0, rgb), -1);  /* no wish */
	CHECK_EQ(sdl_pick_refresh(mon, 3, 1280, 800, 50, rgb), -1);
	CHECK_EQ(sdl_pick_refresh(mon, 3, 1280, 800, 60, rgb), 1);
	CHECK_EQ(sdl_pick_refresh(mon, 0, 1280, 800, 60, rgb), -1);
	return finish("test_output_sdl_mode");
}
