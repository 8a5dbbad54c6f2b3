/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The KMS mode choice (src/output/kms_mode.c) on made-up connectors: the configured size if
 * offered, else the preferred mode's; at that size the refresh asked for (50 Hz) over the
 * preferred 60, the preferred when no 50 Hz mode exists, never an interlaced mode. */
#include <string.h>

#include "check.h"
#include "kms_mode.h"

static drmModeModeInfo mode(int w, int h, int hz, int preferred, int interlaced)
{
	drmModeModeInfo m;

	memset(&m, 0, sizeof(m));
	m.hdisplay = (uint16_t)w;
	m.vdisplay = (uint16_t)h;
	m.vrefresh = (uint32_t)hz;
	m.type = preferred ? DRM_MODE_TYPE_PREFERRED : 0;
	m.flags = interlaced ? DRM_MODE_FLAG_INTERLACE : 0;
	return m;
}

int main(void)
{
	/* a TV's list: 1080p60 preferred first, then 1080i50, 1080p50, 720p60, 576p50 */
	drmModeModeInfo tv[] = {
		mode(1920, 1080, 60, 1, 0), mode(1920, 1080, 50, 0, 1), mode(1920, 1080, 50, 0, 0),
		mode(1280, 720, 60, 0, 0), mode(720, 576, 50, 0, 0),
	};
	/* a monitor (or qemu's bochs-display): 60 Hz only, the preferred one not first */
	drmModeModeInfo mon[] = {
		mode(1280, 1024, 60, 0, 0), mode(1024, 768, 60, 1, 0), mode(1024, 768, 75, 0, 0),
	};

	CHECK_EQ(kms_pick_mode(tv, 5, 0, 0, 50), 2);      /* preferred size, progressive 50 Hz */
	CHECK_EQ(kms_pick_mode(tv, 5, 0, 0, 0), 0);       /* no wish: the preferred mode */
	CHECK_EQ(kms_pick_mode(tv, 5, 1280, 720, 50), 3); /* the size asked for, only 60 there */
	CHECK_EQ(kms_pick_mode(tv, 5, 720, 576, 50), 4);
	CHECK_EQ(kms_pick_mode(tv, 5, 800, 600, 50), 2);  /* size not offered: the preferred's */
	CHECK_EQ(kms_pick_mode(mon, 3, 0, 0, 50), 1);     /* no 50 Hz: the preferred */
	CHECK_EQ(kms_pick_mode(mon, 3, 0, 0, 75), 2);
	CHECK_EQ(kms_pick_mode(mon, 3, 1280, 1024, 50), 0);
	CHECK_EQ(kms_pick_mode(mon, 0, 0, 0, 50), -1);
	return finish("test_output_kms_mode");
}
